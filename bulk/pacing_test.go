package bulk_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/bulk"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// batchSizes records the operation count of every bulk request the client sends.
type batchSizes struct {
	mu    sync.Mutex
	sizes []int
}

func (b *batchSizes) Do(req *policy.Request) (*http.Response, error) {
	if req.Raw().Header.Get(wire.HeaderIsBatch) != "" && req.Raw().Body != nil {
		body, err := io.ReadAll(req.Raw().Body)
		if err != nil {
			return nil, err
		}
		if err := req.RewindBody(); err != nil {
			return nil, err
		}
		var ops []json.RawMessage
		if json.Unmarshal(body, &ops) == nil {
			b.mu.Lock()
			b.sizes = append(b.sizes, len(ops))
			b.mu.Unlock()
		}
	}
	return req.Next()
}

// TestRequestsSizedToTheRate: once a partition is paced, a request carries operations costing
// about a twentieth of a second at its rate, not the 100 operations the service allows. The
// service counts a partition's budget per second and a request's charge lands in one second: a
// request worth a fifth of a second (100 upserts of 5 RU against 2,500 RU/s) made the AIMD settle
// a fifth below the provisioned throughput (80% in BenchmarkLoad).
func TestRequestsSizedToTheRate(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithThroughputLimits())
	sizes := &batchSizes{}
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: quiet, PerRetryPolicies: []policy.Policy{sizes}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := context.Background()
	if _, err := c.Cosmos().CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.Cosmos().NewDatabase("db")
	tp := azcosmos.NewManualThroughputProperties(1000)
	props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}
	if _, err := db.CreateContainer(ctx, props, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	// A long linger: the first request is not sent before it is full (it would leave with what
	// 5 ms of input brought).
	x, err := bulk.New(c, "db", "c", bulk.Options{Linger: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	const n = 300 // about 5 RU each: 1.5 s at 1,000 RU/s
	for i, r := range collect(t, x, ctx, upserts(n, 50, 700)) {
		if r.Err != nil {
			t.Fatalf("op %d: %v", i, r.Err)
		}
	}
	if got := len(stored(t, s)); got != n {
		t.Errorf("%d stored, want %d", got, n)
	}
	sizes.mu.Lock()
	defer sizes.mu.Unlock()
	if len(sizes.sizes) < 2 {
		t.Fatalf("%d bulk requests", len(sizes.sizes))
	}
	// 950 RU/s × 5% / ~5 RU = 9 operations; the first request, before any charge is known, with
	// the documented charge of a 1 KB write (4.95 RU), not 100 (550 RU, over half a second).
	for i, k := range sizes.sizes {
		if k > 20 {
			t.Errorf("request %d carried %d operations, want at most 20 at 950 RU/s: %v", i, k, sizes.sizes)
			break
		}
	}
}
