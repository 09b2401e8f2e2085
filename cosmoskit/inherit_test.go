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

// TestPackagesTakeClientLoggerExplicitly: a repository made with NewFromClient from a Client logs
// to the Client's Config.Logger (its per-page lines at Debug) and takes its diagnostics policy;
// crosspartition and vector take the Client's Logger() when their options pass it; a Logger set
// in the options wins. What a package logs does not depend on how its container handle was made:
// repository.New over the Client's own handle and over a plain azcosmos client's handle both get
// the defaults (slog.Default(), no diagnostics policy). Before, a process-wide map of the handles
// Client.Container made decided it.
func TestPackagesTakeClientLoggerExplicitly(t *testing.T) {
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
	if c.Logger() != clientLog {
		t.Fatal("Client.Logger() is not Config.Logger")
	}
	res, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "inh", PartitionKeyPaths: []string{"/pk"},
		Vectors: []cosmoskit.VectorSpec{{Path: "/emb", Dimensions: 2, IndexType: azcosmos.VectorIndexTypeFlat}}})
	if err != nil {
		t.Fatal(err)
	}
	cc := res.Container
	key := func(d inhDoc) (string, azcosmos.PartitionKey) { return d.ID, azcosmos.NewPartitionKeyString(d.PK) }
	repo, err := repository.NewFromClient(c, "db", "inh", repository.Options[inhDoc]{Type: "doc", Key: key})
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
	// crosspartition: one Debug line per page, on the logger its options name.
	xq, err := crosspartition.New(cc, crosspartition.Options{Logger: c.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	pager := xq.NewQueryItemsPager("SELECT c.id FROM c ORDER BY c.n", nil)
	for pager.More() {
		if _, err := pager.NextPage(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// vector: a cross-partition search through its engine.
	vs, err := vector.New(cc, vector.Options{CrossPartition: crosspartition.Options{Logger: c.Logger()}})
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
	if d := deflt.String(); d != "" {
		t.Errorf("slog.Default() received:\n%s", d)
	}

	// Options win.
	ownLog := debugLogger(&own)
	repo2, err := repository.NewFromClient(c, "db", "inh", repository.Options[inhDoc]{Type: "doc", Key: key, Logger: ownLog})
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

	// repository.New: the defaults, whether the handle is the Client's or a plain azcosmos
	// client's.
	plain, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	bare, err := plain.NewContainer("db", "inh")
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]*azcosmos.ContainerClient{"the client's handle": cc, "a plain azcosmos handle": bare} {
		r, err := repository.New(h, repository.Options[inhDoc]{Type: "doc", Key: key})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Options(); got.Logger != slog.Default() || got.Diagnostics != nil {
			t.Errorf("repository.New over %s: logger %p, diagnostics %p; want slog.Default() and none", name, got.Logger, got.Diagnostics)
		}
		before, beforeDefault := client.String(), deflt.String()
		for _, err := range r.All(ctx, repository.NewQuery().CrossPartition()) {
			if err != nil {
				t.Fatal(err)
			}
		}
		if !strings.Contains(strings.TrimPrefix(deflt.String(), beforeDefault), "cross-partition query") || client.String() != before {
			t.Errorf("repository.New over %s logged to the client's logger, or not to slog.Default()", name)
		}
	}

	// A client without Config.Logger hands out slog.Default() at the time of the call.
	c2, err := cosmoskit.NewIndependent(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key()})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if c2.Logger() != slog.Default() {
		t.Error("Logger() of a client without Config.Logger is not slog.Default()")
	}
}
