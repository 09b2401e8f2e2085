package bulk_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/bulk"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// The load benchmark of the issue: 4 physical partitions, 10,000 RU/s with throughput limits,
// upserts of documents stored in at most 1 KB (5.15 RU each by internal/rucharge), by the bulk
// executor and by a goroutine per item over plain azcosmos (at most 100 in flight, each retrying
// its 429s), side by side. -bulk.n sets the operations per job (default 5,000; docs/performance.md's
// figures use 100,000).
// With BULK_BENCH_ENDPOINT (and BULK_BENCH_KEY) set, the server is that process (cmd/cosmostest
// --partitions 4 --throughput-limits), so cpu-ns/op is the client's alone; otherwise it is in
// process and the figure includes the server's work.
var benchN = flag.Int("bulk.n", 5000, "operations per job of BenchmarkLoad")

const (
	benchRU     = 10000
	benchInFl   = 100
	benchDocPad = 700 // stored size with system properties stays under 1 KB
)

func BenchmarkLoad(b *testing.B) {
	endpoint, key := os.Getenv("BULK_BENCH_ENDPOINT"), os.Getenv("BULK_BENCH_KEY")
	var s *cosmostest.Server
	if endpoint == "" {
		s = cosmostest.NewServer(b, cosmostest.WithPartitionCount(4), cosmostest.WithThroughputLimits())
		endpoint, key = s.Endpoint(), s.Key()
	}
	var throttles atomic.Int64
	client, err := cosmoskit.New(cosmoskit.Config{Endpoint: endpoint, Key: key, Logger: quiet,
		PerRetryPolicies: []policy.Policy{count429{&throttles}}})
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	n := *benchN
	run := 0
	container := func(b *testing.B) (string, *azcosmos.ContainerClient) {
		run++
		id := fmt.Sprintf("load%d-%d", time.Now().UnixNano(), run)
		db, err := client.Database("bench")
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		if _, err := client.Cosmos().CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "bench"}, nil); err != nil && !errors.Is(cosmoserr.FromError("", err), cosmoserr.ErrConflict) {
			b.Fatal(err)
		}
		tp := azcosmos.NewManualThroughputProperties(benchRU)
		props := azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}
		if _, err := db.CreateContainer(ctx, props, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
			b.Fatal(err)
		}
		cc, _ := db.NewContainer(id)
		return id, cc
	}
	report := func(b *testing.B, elapsed time.Duration, ru float64, requests, throttled int64, cpu time.Duration, cc *azcosmos.ContainerClient) {
		b.Helper()
		secs := elapsed.Seconds()
		b.ReportMetric(float64(n)/secs, "items/s")
		b.ReportMetric(ru/secs, "RU/s")
		b.ReportMetric(100*ru/secs/benchRU, "%provisioned")
		if requests > 0 {
			b.ReportMetric(100*float64(throttled)/float64(requests), "%throttled")
		}
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/item")
		// Lost: every id stored (upserts cannot store an id twice).
		ids := map[string]bool{}
		q := cc.NewQueryItemsPager("SELECT VALUE c.id FROM c", azcosmos.NewPartitionKey(), nil)
		for q.More() {
			page, err := q.NextPage(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			for _, it := range page.Items {
				ids[string(it)] = true
			}
		}
		if len(ids) != n {
			b.Fatalf("%d documents stored, want %d", len(ids), n)
		}
	}

	b.Run("bulk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			id, cc := container(b)
			var last bulk.Progress
			x, err := bulk.New(client, "bench", id, bulk.Options{OnProgress: func(p bulk.Progress) { last = p }})
			if err != nil {
				b.Fatal(err)
			}
			cpu0, t0 := cpuTime(), time.Now()
			var ru float64
			seen := make([]bool, n)
			for r, err := range x.Execute(context.Background(), loadOps(n)) {
				if err != nil {
					b.Fatalf("op %d: %v", r.Index, err)
				}
				if seen[r.Index] {
					b.Fatalf("op %d reported twice", r.Index)
				}
				seen[r.Index] = true
				ru += r.RequestCharge
			}
			report(b, time.Since(t0), ru, last.Requests, last.ThrottledRequests, cpuTime()-cpu0, cc)
		}
	})

	b.Run("goroutine-per-item", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, cc := container(b)
			throttles.Store(0)
			var ru atomic.Uint64 // centi-RU
			var requests atomic.Int64
			sem := make(chan struct{}, benchInFl)
			var wg sync.WaitGroup
			cpu0, t0 := cpuTime(), time.Now()
			for op := range loadOps(n) {
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer func() { <-sem; wg.Done() }()
					pk := azcosmos.NewPartitionKeyString(op.PartitionKey.Value(0).(string))
					for {
						requests.Add(1)
						resp, err := cc.UpsertItem(context.Background(), pk, op.Document, nil)
						if err == nil {
							ru.Add(uint64(resp.RequestCharge * 100))
							return
						}
						var ce *cosmoserr.Error
						if e := cosmoserr.FromError("", err); errors.As(e, &ce) && ce.StatusCode == http.StatusTooManyRequests {
							time.Sleep(max(ce.RetryAfter, 10*time.Millisecond))
							continue
						}
						b.Error(err)
						return
					}
				}()
			}
			wg.Wait()
			report(b, time.Since(t0), float64(ru.Load())/100, requests.Load()+throttles.Load(), throttles.Load(), cpuTime()-cpu0, cc)
		}
	})
}

// loadOps are n upserts of distinct documents over 1,000 partition keys.
func loadOps(n int) func(func(bulk.Operation) bool) {
	return func(yield func(bulk.Operation) bool) {
		for i := range n {
			pk := fmt.Sprint("tenant-", i%1000)
			if !yield(bulk.UpsertOp(partitionkey.Of(pk), doc(fmt.Sprint("item-", i), pk, benchDocPad))) {
				return
			}
		}
	}
}

// count429 counts the attempts answered 429 (which the retry policy may retry).
type count429 struct{ n *atomic.Int64 }

func (c count429) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		c.n.Add(1)
	}
	return resp, err
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
