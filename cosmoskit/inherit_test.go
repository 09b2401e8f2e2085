package cosmoskit_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/crosspartition"
	"github.com/cosmoskit/cosmoskit-go/repository"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

type inhDoc struct {
	ID  string    `json:"id"`
	PK  string    `json:"pk"`
	N   int       `json:"n"`
	Emb []float32 `json:"emb"`
}

func debugLogger(buf *lockedBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// TestPackagesInheritClientLogger: a repository, a crosspartition.Container and a vector.Searcher
// built on a container handle of a Client log to the Client's Config.Logger (their per-page lines
// at Debug) and never to slog.Default(), and take its diagnostics policy; a Logger set in their
// own options wins; a handle the Client did not make gets slog.Default().
func TestPackagesInheritClientLogger(t *testing.T) {
	var deflt, client, own lockedBuffer
	prev := slog.Default()
	slog.SetDefault(debugLogger(&deflt))
	t.Cleanup(func() { slog.SetDefault(prev) })

	ctx := context.Background()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(3))
	clientLog := debugLogger(&client)
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: clientLog})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ccRes, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "inh", PartitionKeyPaths: []string{"/pk"},
		Vectors: []cosmoskit.VectorSpec{{Path: "/emb", Dimensions: 2, IndexType: azcosmos.VectorIndexTypeFlat}}})
	if err != nil {
		t.Fatal(err)
	}
	cc := ccRes.Container
	key := func(d inhDoc) (string, azcosmos.PartitionKey) { return d.ID, azcosmos.NewPartitionKeyString(d.PK) }
	repo, err := repository.New(cc, repository.Options[inhDoc]{Type: "doc", Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if got := repo.Options(); got.Logger != clientLog || got.Diagnostics != c.Diagnostics() || got.Diagnostics == nil {
		t.Fatalf("repository Options() = logger %p, diagnostics %p; want the client's %p, %p", got.Logger, got.Diagnostics, clientLog, c.Diagnostics())
	}
	for i := range 12 {
		if _, err := repo.Upsert(ctx, inhDoc{ID: fmt.Sprint("d", i), PK: fmt.Sprint("p", i), N: i, Emb: []float32{1, float32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	before := client.String()

	// repository: its cross-partition query line, at Debug, on the client's logger.
	for _, err := range repo.All(ctx, repository.NewQuery().CrossPartition()) {
		if err != nil {
			t.Fatal(err)
		}
	}
	// crosspartition: one Debug line per page.
	xq, err := crosspartition.New(cc, crosspartition.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if xq.Options().Logger != clientLog {
		t.Error("crosspartition Options().Logger is not the client's")
	}
	pager := xq.NewQueryItemsPager("SELECT c.id FROM c ORDER BY c.n", nil)
	for pager.More() {
		if _, err := pager.NextPage(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// vector: a cross-partition search through its engine.
	vs, err := vector.New(cc, vector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vs.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: 3}); err != nil {
		t.Fatal(err)
	}
	got := strings.TrimPrefix(client.String(), before)
	if !strings.Contains(got, "level=DEBUG msg=\"cosmoskit: cross-partition query\"") || strings.Count(got, "cosmoskit: cross-partition page") < 3 {
		t.Errorf("the client's logger got:\n%s\nwant the repository's query line and the pages of the query, the repository and the search at Debug", got)
	}
	if strings.Contains(got, "level=INFO") {
		t.Errorf("a per-query or per-page line at Info:\n%s", got)
	}

	// Options win.
	ownLog := debugLogger(&own)
	repo2, err := repository.New(cc, repository.Options[inhDoc]{Type: "doc", Key: key, Logger: ownLog})
	if err != nil {
		t.Fatal(err)
	}
	before = client.String()
	for _, err := range repo2.All(ctx, repository.NewQuery().CrossPartition()) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(own.String(), "cross-partition query") || client.String() != before {
		t.Errorf("with Options.Logger set: own logger got %q, the client's got %q more", own.String(), strings.TrimPrefix(client.String(), before))
	}

	// A handle the client did not hand out: the package's defaults.
	bare, err := c.Cosmos().NewContainer("db", "inh")
	if err != nil {
		t.Fatal(err)
	}
	repo3, err := repository.New(bare, repository.Options[inhDoc]{Type: "doc", Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if got := repo3.Options(); got.Logger != slog.Default() || got.Diagnostics != nil {
		t.Errorf("a bare handle inherited logger %p, diagnostics %p", got.Logger, got.Diagnostics)
	}
	if d := deflt.String(); d != "" {
		t.Errorf("slog.Default() received:\n%s", d)
	}
}
