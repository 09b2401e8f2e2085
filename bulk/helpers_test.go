package bulk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/bulk"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

var quiet = slog.New(slog.DiscardHandler)

// env is a server, a cosmoskit client and a container db/c partitioned on /pk.
type env struct {
	s  *cosmostest.Server
	c  *cosmoskit.Client
	cc *azcosmos.ContainerClient
}

func newEnv(t testing.TB, ru int32, opts ...cosmostest.Option) env {
	t.Helper()
	s := cosmostest.NewServer(t, opts...)
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := context.Background()
	if _, err := c.Cosmos().CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.Cosmos().NewDatabase("db")
	var co *azcosmos.CreateContainerOptions
	if ru > 0 {
		tp := azcosmos.NewManualThroughputProperties(ru)
		co = &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}
	}
	props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}
	if _, err := db.CreateContainer(ctx, props, co); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	return env{s: s, c: c, cc: cc}
}

func (e env) executor(t testing.TB, o bulk.Options) *bulk.Executor {
	t.Helper()
	x, err := bulk.New(e.c, "db", "c", o)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// upserts returns n upserts of ids d0..d(n-1) spread over keys partition keys.
func upserts(n, keys int, pad int) []bulk.Operation {
	ops := make([]bulk.Operation, n)
	for i := range ops {
		pk := fmt.Sprint("k", i%keys)
		ops[i] = bulk.UpsertOp(partitionkey.Of(pk), doc(fmt.Sprint("d", i), pk, pad))
	}
	return ops
}

func doc(id, pk string, pad int) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "pk": pk, "pad": strings.Repeat("x", pad)})
	return b
}

// collect runs ops and returns the results by input index.
func collect(t testing.TB, x *bulk.Executor, ctx context.Context, ops []bulk.Operation) []bulk.Result {
	t.Helper()
	out := make([]bulk.Result, len(ops))
	seen := make([]bool, len(ops))
	for r, err := range x.Execute(ctx, slices.Values(ops)) {
		if r.Index < 0 {
			t.Fatalf("job failed: %v", err)
		}
		if seen[r.Index] {
			t.Fatalf("operation %d reported twice", r.Index)
		}
		seen[r.Index] = true
		out[r.Index] = r
	}
	return out
}

// stored returns the ids of the container's documents, each with how many times it is stored.
func stored(t testing.TB, s *cosmostest.Server) map[string]int {
	t.Helper()
	all, err := s.Dump("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int{}
	for _, d := range all {
		var v struct{ ID string }
		_ = json.Unmarshal(d, &v)
		m[v.ID]++
	}
	return m
}

// checkWindows checks the RU a group spent in 1 s windows against its target: over the windows
// after the first (the start), within ±15% of the target; no window above the target plus the
// group's burst (1 s) and a little.
func checkWindows(t *testing.T, windows []float64, target float64) {
	t.Helper()
	sum := 0.0
	for i, w := range windows[1:] {
		sum += w
		if w > 2.2*target {
			t.Errorf("second %d: %.0f RU, more than the target %v plus its burst (windows %v)", i+2, w, target, windows)
		}
	}
	want := target * float64(len(windows)-1)
	if math.Abs(sum-want)/want > 0.15 {
		t.Errorf("%.0f RU over %d s, want %.0f ±15%% (windows %v)", sum, len(windows)-1, want, windows)
	}
}
