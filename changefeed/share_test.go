package changefeed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
)

// writeConcurrently writes documents from..from+n-1 from w goroutines, in transactional batches
// of up to 50 per partition key (fewer requests, so the test spends its time in the processor);
// each partition key is written by one goroutine with increasing seq, so its changes have one
// order.
func writeConcurrently(t testing.TB, e *env, from, n, w int) {
	t.Helper()
	var wg sync.WaitGroup
	for g := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			byPK := map[string][]doc{}
			flush := func(pk string) {
				b := e.monitored.NewTransactionalBatch(azcosmos.NewPartitionKeyString(pk))
				for _, d := range byPK[pk] {
					raw, _ := json.Marshal(d)
					b.UpsertItem(raw, nil)
				}
				resp, err := e.monitored.ExecuteTransactionalBatch(context.Background(), b, nil)
				if err != nil || !resp.Success {
					t.Errorf("batch of %d for %s: %v", len(byPK[pk]), pk, err)
				}
				byPK[pk] = byPK[pk][:0]
			}
			for i := from + g; i < from+n; i += w {
				pk := fmt.Sprintf("g%d-%d", g, i%7)
				byPK[pk] = append(byPK[pk], doc{ID: id(i), PK: pk, Seq: i})
				if len(byPK[pk]) == 50 {
					flush(pk)
				}
			}
			for pk, ds := range byPK {
				if len(ds) > 0 {
					flush(pk)
				}
			}
		}()
	}
	wg.Wait()
}

// spread returns the leases each processor holds.
func spread(ps ...*changefeed.Processor) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = len(p.State())
	}
	return out
}

func even(counts []int, total int) bool {
	lo, hi, sum := counts[0], counts[0], 0
	for _, c := range counts {
		lo, hi, sum = min(lo, c), max(hi, c), sum+c
	}
	return sum == total && hi-lo <= 1
}

func TestThreeInstancesShareTheWork(t *testing.T) {
	e := newEnv(t, 4)
	n := scaled(10000)
	tl := newTally()
	var ps []*changefeed.Processor
	var moves atomic.Int64
	for _, name := range []string{"a", "b", "c"} {
		o := fast()
		o.OnLeaseAcquired = func(string) { moves.Add(1) }
		ps = append(ps, newProc(t, e, name, tl.handle, o))
	}
	start := time.Now()
	writeConcurrently(t, e, 0, n, 8)
	t.Logf("wrote %d in %v", n, time.Since(start))
	waitFor(t, "every change handled", 60*time.Second, func() bool { return tl.distinct() == n })
	t.Logf("handled all after %v", time.Since(start))
	waitFor(t, "leases spread evenly", 10*time.Second, func() bool { return even(spread(ps...), 4) })
	est := ps[0].Estimator()
	waitFor(t, "estimated lag 0", 10*time.Second, func() bool {
		total, err := est.Total(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return total == 0
	})
	t.Logf("leases per instance %v after %d acquisitions; %d deliveries of %d changes (%d duplicates)", spread(ps...), moves.Load(), tl.total, n, tl.total-n)
	for _, p := range ps {
		stop(t, p)
	}
	if tl.outOfOrd != 0 {
		t.Errorf("%d changes out of order within a partition key", tl.outOfOrd)
	}
	// Stop released every lease and kept the checkpoints.
	for _, l := range leaseDocs(t, e) {
		if l.Owner != nil || l.ContinuationToken == "" {
			t.Errorf("after Stop, lease %s: Owner %v, ContinuationToken %q; want released with a checkpoint", l.LeaseToken, l.Owner, l.ContinuationToken)
		}
	}
}

func TestDeadInstanceLeasesAreTakenOver(t *testing.T) {
	e := newEnv(t, 4)
	n := scaled(3000)
	tl := newTally()
	a := newProc(t, e, "a", tl.handle, fast())
	b := newProc(t, e, "b", tl.handle, fast())
	waitFor(t, "leases spread", 10*time.Second, func() bool { return even(spread(a, b), 4) })
	writeConcurrently(t, e, 0, n/2, 4)
	changefeed.Kill(a) // no release, no checkpoint of its in-flight batches
	writeConcurrently(t, e, n/2, n/2, 4)
	waitFor(t, "every change handled", 60*time.Second, func() bool { return tl.distinct() == n })
	waitFor(t, "b holding every lease", 10*time.Second, func() bool { return len(b.State()) == 4 })
	t.Logf("%d deliveries of %d changes (%d duplicates)", tl.total, n, tl.total-n)
	stop(t, b)
}

type leaseDoc struct {
	ID                string  `json:"id"`
	LeaseToken        string  `json:"LeaseToken"`
	Owner             *string `json:"Owner"`
	ContinuationToken string  `json:"ContinuationToken"`
	Version           int     `json:"version"`
	Timestamp         string  `json:"timestamp"`
	FeedRange         struct {
		Range struct{ Min, Max string }
	}
	Properties map[string]string `json:"properties"`
}

func leaseDocs(t *testing.T, e *env) []leaseDoc {
	t.Helper()
	pager := e.leases.NewQueryItemsPager("SELECT * FROM c WHERE IS_DEFINED(c.LeaseToken)", azPK(), nil)
	var out []leaseDoc
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range page.Items {
			var l leaseDoc
			if err := json.Unmarshal(raw, &l); err != nil {
				t.Fatal(err)
			}
			out = append(out, l)
		}
	}
	return out
}

// writeBench writes n documents for a benchmark, outside its timer.
func writeBench(b *testing.B, e *env, n int) {
	b.Helper()
	b.StopTimer()
	writeConcurrently(b, e, 0, n, 8)
	b.StartTimer()
}
