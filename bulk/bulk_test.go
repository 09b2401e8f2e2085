package bulk_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/bulk"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/epk"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/throughput"
)

// TestUpsertsAcrossRanges: every operation lands once, in packed requests per physical
// partition.
func TestUpsertsAcrossRanges(t *testing.T) {
	e := newEnv(t, 0, cosmostest.WithPartitionCount(4))
	x := e.executor(t, bulk.Options{})
	const n = 1000
	e.s.ResetRequests()
	res := collect(t, x, context.Background(), upserts(n, 97, 100))
	for i, r := range res {
		if r.Err != nil || r.StatusCode != http.StatusCreated || r.ETag == "" || r.RequestCharge <= 0 || r.Attempts != 1 {
			t.Fatalf("op %d: %+v", i, r)
		}
	}
	got := stored(t, e.s)
	if len(got) != n {
		t.Fatalf("%d documents stored, want %d", len(got), n)
	}
	reqs := e.s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpExecuteBatch})
	if reqs < 4 || reqs > n/20 {
		t.Errorf("%d bulk requests for %d operations over 4 ranges, want packed requests (4 to %d)", reqs, n, n/20)
	}
}

// TestOperationKinds: each kind through the real pipeline, with its own result.
func TestOperationKinds(t *testing.T) {
	e := newEnv(t, 0)
	ctx := context.Background()
	pk := partitionkey.Of("a")
	if _, err := e.cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("a"), doc("old", "a", 0), nil); err != nil {
		t.Fatal(err)
	}
	p := azcosmos.PatchOperations{}
	p.AppendSet("/n", 7)
	missing := azcosmos.PatchOperations{}
	missing.AppendReplace("/nothere", 1)
	ops := []bulk.Operation{
		bulk.CreateOp(pk, doc("new", "a", 0)),
		bulk.CreateOp(pk, doc("old", "a", 0)),
		{Kind: bulk.Replace, PartitionKey: pk, Document: doc("ghost", "a", 0)},
		bulk.ReadOp(pk, "old"),
		bulk.PatchOp(pk, "old", &p),
		bulk.PatchOp(pk, "old", &missing),
		bulk.DeleteOp(pk, "new"),
		{Kind: bulk.Upsert, PartitionKey: pk, Document: doc("old", "a", 0), IfMatch: `"stale"`},
	}
	res := collect(t, e.executor(t, bulk.Options{}), ctx, ops)
	want := []struct {
		status int
		err    error
	}{{201, nil}, {409, cosmoserr.ErrConflict}, {404, cosmoserr.ErrNotFound}, {200, nil}, {200, nil},
		{400, cosmoserr.ErrBadRequest}, {204, nil}, {412, cosmoserr.ErrPreconditionFailed}}
	for i, w := range want {
		r := res[i]
		if r.StatusCode != w.status || (w.err == nil) != (r.Err == nil) || (w.err != nil && !errors.Is(r.Err, w.err)) {
			t.Errorf("op %d (%v): status %d err %v, want %d %v", i, r.Kind, r.StatusCode, r.Err, w.status, w.err)
		}
		var ce *cosmoserr.Error
		if r.Err != nil && (!errors.As(r.Err, &ce) || ce.Container != "c" || ce.ID == "") {
			t.Errorf("op %d: error %v is not a *cosmoserr.Error naming the container and id", i, r.Err)
		}
	}
	if !strings.Contains(string(res[3].Body), `"id":"old"`) {
		t.Errorf("read body %s", res[3].Body)
	}
	if res[0].ID != "new" || res[2].ID != "ghost" {
		t.Errorf("ids %q %q, want the documents' ids", res[0].ID, res[2].ID)
	}
}

// TestBadInput: an operation refused before sending is its own result with a
// *cosmoserr.ValidationError naming the field; the job goes on.
func TestBadInput(t *testing.T) {
	e := newEnv(t, 0)
	pk := partitionkey.Of("a")
	noPath := azcosmos.PatchOperations{}
	noPath.AppendSet("n", 1)
	ops := []bulk.Operation{
		{Kind: bulk.Upsert, Document: doc("x", "a", 0)},                            // no key
		{Kind: bulk.Delete, PartitionKey: pk},                                      // no id
		bulk.UpsertOp(partitionkey.Of("b"), doc("x", "a", 0)),                      // key does not match
		bulk.UpsertOp(pk, doc("big", "a", 2<<20)),                                  // over 2 MB
		bulk.PatchOp(pk, "x", &noPath),                                             // not a path
		bulk.PatchOp(pk, "x", nil),                                                 // no patch
		bulk.UpsertOp(pk, []byte(`{"pk":"a"}`)),                                    // no id in the document
		bulk.UpsertOp(pk, []byte(`[1,2]`)),                                         // not an object
		{Kind: bulk.Kind(42), PartitionKey: pk, ID: "x"},                           // no such kind
		bulk.UpsertOp(partitionkey.Of("a", "b"), doc("x", "a", 0)),                 // too many key values
		{Kind: bulk.Upsert, PartitionKey: pk, ID: "y", Document: doc("x", "a", 0)}, // id differs
		bulk.UpsertOp(pk, doc("fine", "a", 0)),
	}
	wantKind := []error{cosmoserr.ErrInvalidPartitionKey, cosmoserr.ErrInvalidID, cosmoserr.ErrInvalidPartitionKey,
		cosmoserr.ErrItemTooLarge, cosmoserr.ErrInvalidPatch, cosmoserr.ErrInvalidPatch, cosmoserr.ErrInvalidID,
		cosmoserr.ErrValidation, cosmoserr.ErrValidation, cosmoserr.ErrInvalidPartitionKey, cosmoserr.ErrInvalidID, nil}
	res := collect(t, e.executor(t, bulk.Options{}), context.Background(), ops)
	for i, want := range wantKind {
		r := res[i]
		if want == nil {
			if r.Err != nil || r.StatusCode != http.StatusCreated {
				t.Errorf("op %d: %v", i, r.Err)
			}
			continue
		}
		var ve *cosmoserr.ValidationError
		if !errors.As(r.Err, &ve) || !errors.Is(r.Err, want) || ve.Field == "" || r.StatusCode != 0 || r.Attempts != 0 {
			t.Errorf("op %d: %v (status %d, %d attempts), want a ValidationError matching %v", i, r.Err, r.StatusCode, r.Attempts, want)
		}
		if r.Err != nil && strings.Contains(r.Err.Error(), "xxxx") {
			t.Errorf("op %d: the error echoes the document", i)
		}
	}
	if got := stored(t, e.s); len(got) != 1 || got["fine"] != 1 {
		t.Errorf("stored %v, want only the valid operation", got)
	}
}

// TestThrottledAtTheLimit: with a 400 RU/s container whose budget another writer overdrew, every
// operation is applied exactly once, the throttled ones after being sent again.
func TestThrottledAtTheLimit(t *testing.T) {
	e := newEnv(t, 400, cosmostest.WithThroughputLimits())
	// About 900 RU (a 1.5 MB item): the partition's budget is spent for the next second or two.
	// Written as the job reads its first operation (after it read the container and its offer),
	// so its first requests meet the overdrawn budget.
	big := fmt.Appendf(nil, `{"id":"big","pk":"other","pad":%q}`, strings.Repeat("x", 1500<<10))
	const n = 250 // about 5 RU each: about 3 s of budget
	ops := func(yield func(bulk.Operation) bool) {
		if _, err := e.cc.UpsertItem(context.Background(), azcosmos.NewPartitionKeyString("other"), big, nil); err != nil {
			t.Error(err)
		}
		for _, op := range upserts(n, 10, 10) {
			if !yield(op) {
				return
			}
		}
	}
	var last bulk.Progress
	x := e.executor(t, bulk.Options{OnProgress: func(p bulk.Progress) { last = p }, ProgressInterval: 100 * time.Millisecond, Total: n})
	res := make([]bulk.Result, n)
	for r, err := range x.Execute(context.Background(), ops) {
		if r.Index < 0 {
			t.Fatalf("job failed: %v", err)
		}
		res[r.Index] = r
	}
	retried := 0
	for i, r := range res {
		if r.Err != nil || r.StatusCode != http.StatusCreated {
			t.Fatalf("op %d: %+v", i, r)
		}
		if r.Attempts > 1 {
			retried++
		}
	}
	// Throttled either for some operations (sent again by the job: Attempts > 1) or as a whole
	// at admission (retried by the client's retry policy: counted in ThrottledRequests).
	if retried == 0 && last.ThrottledRequests == 0 {
		t.Error("nothing was throttled: the test does not exercise the limit")
	}
	docs := stored(t, e.s)
	delete(docs, "big")
	for id, c := range docs {
		if c != 1 {
			t.Errorf("%s stored %d times", id, c)
		}
	}
	if got := len(docs); got != n {
		t.Errorf("%d stored, want %d", got, n)
	}
	if last.Done != n || last.Succeeded != n || last.Pending != 0 || last.ThrottledRequests == 0 || last.Requests <= last.ThrottledRequests {
		t.Errorf("final progress %+v", last)
	}
}

// TestOrderPerLogicalPartition: successive writes of one document under throttling and many
// requests in flight are applied in input order.
func TestOrderPerLogicalPartition(t *testing.T) {
	e := newEnv(t, 400, cosmostest.WithThroughputLimits(), cosmostest.WithPartitionCount(2))
	var ops []bulk.Operation
	for v := range 60 {
		for k := range 3 {
			pk := fmt.Sprint("k", k)
			ops = append(ops, bulk.UpsertOp(partitionkey.Of(pk), fmt.Appendf(nil, `{"id":"doc","pk":%q,"v":%d}`, pk, v)))
		}
	}
	x := e.executor(t, bulk.Options{MaxOperationsPerRequest: 7})
	for _, r := range collect(t, x, context.Background(), ops) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	for k := range 3 {
		pk := fmt.Sprint("k", k)
		got, err := e.cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString(pk), "doc", nil)
		if err != nil || !strings.Contains(string(got.Value), `"v":59`) {
			t.Errorf("%s: %s (%v), want the last write", pk, got.Value, err)
		}
	}
}

// TestSplitDuringJob: a partition that splits while the job runs; its operations are re-routed
// to the children, none lost or applied twice.
func TestSplitDuringJob(t *testing.T) {
	e := newEnv(t, 0, cosmostest.WithPartitionCount(2))
	ch := make(chan bulk.Operation)
	ops := upserts(600, 50, 10)
	go func() {
		defer close(ch)
		for i, op := range ops {
			if i == 300 {
				if err := e.s.SplitRange("db", "c", "0"); err != nil {
					t.Error(err)
				}
			}
			ch <- op
		}
	}()
	x := e.executor(t, bulk.Options{MaxOperationsPerRequest: 20})
	n := 0
	for r, err := range x.Execute(context.Background(), bulk.FromChannel(ch)) {
		if err != nil {
			t.Fatalf("op %d: %v", r.Index, err)
		}
		n++
	}
	if got := stored(t, e.s); n != len(ops) || len(got) != len(ops) {
		t.Fatalf("%d results, %d stored, want %d", n, len(got), len(ops))
	}
}

// TestFaults: dropped connections and injected 503s and 429s on bulk requests: every operation
// is applied exactly once.
func TestFaults(t *testing.T) {
	e := newEnv(t, 0, cosmostest.WithPartitionCount(2))
	faults := []*cosmostest.FaultHandle{
		e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpExecuteBatch, DropConnection: true, Probability: 0.05}),
		e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpExecuteBatch, Status: http.StatusServiceUnavailable, RetryAfter: time.Millisecond, Probability: 0.1}),
		e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpExecuteBatch, Status: http.StatusTooManyRequests, SubStatus: 3200, RetryAfter: 5 * time.Millisecond, Probability: 0.2}),
	}
	ops := upserts(300, 40, 10)
	res := collect(t, e.executor(t, bulk.Options{MaxOperationsPerRequest: 10}), context.Background(), ops)
	hits := 0
	for _, f := range faults {
		hits += f.Hits()
	}
	if hits == 0 {
		t.Error("no fault fired: the test does not exercise them")
	}
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("op %d: %v", i, r.Err)
		}
	}
	got := stored(t, e.s)
	for id, c := range got {
		if c != 1 {
			t.Errorf("%s stored %d times", id, c)
		}
	}
	if len(got) != len(ops) {
		t.Fatalf("%d stored, want %d", len(got), len(ops))
	}
}

// TestCancel: cancelling stops dispatch; what was reported done is stored, what was reported
// with the context's error is not, and nothing is reported twice.
func TestCancel(t *testing.T) {
	e := newEnv(t, 400, cosmostest.WithThroughputLimits())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ops := upserts(2000, 10, 10)
	x := e.executor(t, bulk.Options{MaxPending: 300})
	var done, cancelled []string
	for r, err := range x.Execute(ctx, slices.Values(ops)) {
		switch {
		case err == nil:
			done = append(done, r.ID)
			if len(done) == 50 {
				cancel()
			}
		case errors.Is(err, context.Canceled):
			cancelled = append(cancelled, r.ID)
		default:
			t.Fatalf("op %d: %v", r.Index, err)
		}
	}
	got := stored(t, e.s)
	if len(done)+len(cancelled) >= len(ops) || len(cancelled) == 0 {
		t.Errorf("%d done, %d cancelled of %d: the input should stop being read", len(done), len(cancelled), len(ops))
	}
	if len(got) != len(done) {
		t.Errorf("%d stored, %d reported done", len(got), len(done))
	}
	for _, id := range done {
		if got[id] != 1 {
			t.Errorf("%s reported done, stored %d times", id, got[id])
		}
	}
	for _, id := range cancelled {
		if got[id] != 0 {
			t.Errorf("%s reported cancelled but stored", id)
		}
	}
}

// TestStopIteration: breaking out of the results stops the job without leaking goroutines
// (TestMain's goleak).
func TestStopIteration(t *testing.T) {
	e := newEnv(t, 0)
	x := e.executor(t, bulk.Options{})
	n := 0
	for _, err := range x.Execute(context.Background(), slices.Values(upserts(500, 5, 10))) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 10 {
			break
		}
	}
}

func TestNewValidates(t *testing.T) {
	e := newEnv(t, 0)
	for name, tc := range map[string]struct {
		o     bulk.Options
		field string
	}{
		"ops over 100":    {bulk.Options{MaxOperationsPerRequest: 101}, "Options.MaxOperationsPerRequest"},
		"bytes too small": {bulk.Options{MaxRequestBytes: 10}, "Options.MaxRequestBytes"},
		"bytes over 2 MB": {bulk.Options{MaxRequestBytes: 3 << 20}, "Options.MaxRequestBytes"},
		"negative window": {bulk.Options{MaxConcurrencyPerRange: -1}, "Options.MaxConcurrencyPerRange"},
		"negative linger": {bulk.Options{Linger: -1}, "Options.Linger"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := bulk.New(e.c, "db", "c", tc.o)
			var ve *cosmoserr.ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.field {
				t.Fatalf("%v, want a ValidationError for %s", err, tc.field)
			}
		})
	}
	if _, err := bulk.New(nil, "db", "c", bulk.Options{}); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Errorf("nil client: %v", err)
	}
	x := e.executor(t, bulk.Options{MaxOperationsPerRequest: 50})
	if o := x.Options(); o.MaxOperationsPerRequest != 50 || o.MaxRequestBytes != 220201 || o.MaxConcurrencyPerRange != 8 ||
		o.MaxAttempts != 30 || o.MaxPending != 10000 || o.Linger != 5*time.Millisecond || o.ProgressInterval != time.Second {
		t.Errorf("Options() = %+v", o)
	}
	// A missing container: one result with Index -1.
	y, _ := bulk.New(e.c, "db", "nope", bulk.Options{})
	for r, err := range y.Execute(context.Background(), slices.Values(upserts(3, 1, 0))) {
		if r.Index != -1 || !errors.Is(err, cosmoserr.ErrNotFound) {
			t.Errorf("missing container: %+v %v", r, err)
		}
	}
}

// TestJobInGroup: a job whose context carries a throughput group capped at 30% of a 1,000 RU/s
// container spends 300 RU/s (±15% per second after the first), with Low priority, while point
// reads outside the group see no throttle.
func TestJobInGroup(t *testing.T) {
	e := newEnv(t, 1000, cosmostest.WithThroughputLimits(), cosmostest.WithPartitionCount(2))
	ctx := context.Background()
	g, err := throughput.NewGroup(ctx, e.cc, throughput.GroupOptions{Name: "load", TargetFraction: 0.15, Priority: azcosmos.PriorityLevelLow, Burst: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	pk := azcosmos.NewPartitionKeyString("k0")
	if _, err := e.cc.UpsertItem(ctx, pk, doc("hot", "k0", 0), nil); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var readErrs atomic.Int64
	var reads sync.WaitGroup
	reads.Add(1)
	go func() {
		defer reads.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := e.cc.ReadItem(ctx, pk, "hot", &azcosmos.ItemOptions{}); err != nil {
				readErrs.Add(1)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	var windows []float64
	var prev float64
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	jobCtx, cancel := context.WithCancel(throughput.WithGroup(ctx, g))
	defer cancel()
	// Requests of 2 operations (11.42 RU): the budget is 26 of them a second.
	x := e.executor(t, bulk.Options{MaxOperationsPerRequest: 2})
	for _, err := range x.Execute(jobCtx, slices.Values(upserts(5000, 100, 10))) {
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		select {
		case <-tick.C:
			now := g.Stats().RequestCharge
			windows = append(windows, now-prev)
			prev = now
			if len(windows) == 5 {
				cancel()
			}
		default:
		}
	}
	close(stop)
	reads.Wait()
	if len(windows) < 5 {
		t.Fatalf("the job ended after %d s: make it longer", len(windows))
	}
	checkWindows(t, windows, 150)
	if n := readErrs.Load(); n != 0 {
		t.Errorf("%d point reads failed", n)
	}
	if n := e.s.Throttled(cosmostest.RequestFilter{Operation: cosmostest.OpReadItem}); n != 0 {
		t.Errorf("%d point reads throttled", n)
	}
}

// TestLingerEnds: a partly filled request of a quiet partition goes out after Options.Linger
// even while operations keep arriving for another partition.
func TestLingerEnds(t *testing.T) {
	e := newEnv(t, 0, cosmostest.WithPartitionCount(2))
	quietKey, busyKey := keyIn(t, 2, 1), keyIn(t, 2, 0)
	ch := make(chan bulk.Operation)
	seen := make(chan struct{})
	var giveUp atomic.Bool
	go func() {
		defer close(ch)
		ch <- bulk.UpsertOp(partitionkey.Of(quietKey), doc("quiet", quietKey, 0))
		deadline := time.After(3 * time.Second)
		for i := 0; ; i++ {
			select {
			case <-seen:
				return
			case <-deadline:
				giveUp.Store(true)
				return
			case ch <- bulk.UpsertOp(partitionkey.Of(busyKey), doc(fmt.Sprint("busy", i), busyKey, 0)):
				time.Sleep(time.Millisecond)
			}
		}
	}()
	x := e.executor(t, bulk.Options{Linger: 50 * time.Millisecond, MaxOperationsPerRequest: 100})
	start := time.Now()
	var took time.Duration
	for r, err := range x.Execute(context.Background(), bulk.FromChannel(ch)) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Index == 0 {
			took = time.Since(start)
			close(seen)
		}
	}
	if giveUp.Load() || took > 800*time.Millisecond {
		t.Fatalf("the quiet partition's operation took %v (linger 50 ms): it waited for the busy partition's input", took)
	}
}

// keyIn returns a partition key value that a container of n ranges (/pk, hash version 2) holds
// in range i.
func keyIn(t *testing.T, n, i int) string {
	t.Helper()
	r := epk.Ranges(n, "Hash", 2)[i]
	for k := range 1000 {
		v := fmt.Sprint("key", k)
		if r.Contains(epk.Hash([]any{v}, "Hash", 2)) {
			return v
		}
	}
	t.Fatal("no key found")
	return ""
}

// TestConcurrentJobs: one Executor runs several jobs at once (it is shared, immutable state).
func TestConcurrentJobs(t *testing.T) {
	e := newEnv(t, 0, cosmostest.WithPartitionCount(2))
	x := e.executor(t, bulk.Options{MaxOperationsPerRequest: 30})
	var wg sync.WaitGroup
	for j := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ops := make([]bulk.Operation, 200)
			for i := range ops {
				pk := fmt.Sprint("k", i%13)
				ops[i] = bulk.UpsertOp(partitionkey.Of(pk), doc(fmt.Sprintf("j%d-%d", j, i), pk, 10))
			}
			for r, err := range x.Execute(context.Background(), slices.Values(ops)) {
				if err != nil {
					t.Errorf("job %d op %d: %v", j, r.Index, err)
				}
			}
		}()
	}
	wg.Wait()
	if got := stored(t, e.s); len(got) != 800 {
		t.Errorf("%d stored, want 800", len(got))
	}
}

// TestRetryAfterIsBounded: a 429 whose retry-after is an hour pauses its partition for at most
// 5 s, not the hour.
func TestRetryAfterIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("waits the 5 s bound")
	}
	e := newEnv(t, 0)
	e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpExecuteBatch, Status: http.StatusTooManyRequests, SubStatus: 3200,
		RetryAfter: time.Hour, Times: 1})
	start := time.Now()
	for _, r := range collect(t, e.executor(t, bulk.Options{}), context.Background(), upserts(10, 2, 0)) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestRetriedThrottlesCount: whole-request 429s that the client's retry policy retried (the job
// sees only the final 200) still count as throttles: the partition backs off and Progress reports
// them. They were lost (added to a copy of the reply), so a 64-partition import at 3,200 RU/s had
// 41% of its bulk requests refused by the service while its progress showed 0% throttled.
func TestRetriedThrottlesCount(t *testing.T) {
	e := newEnv(t, 0)
	f := e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpExecuteBatch, Status: http.StatusTooManyRequests,
		RetryAfter: 10 * time.Millisecond, Times: 3})
	var last bulk.Progress
	x := e.executor(t, bulk.Options{OnProgress: func(p bulk.Progress) { last = p }, MaxOperationsPerRequest: 10})
	for i, r := range collect(t, x, context.Background(), upserts(50, 5, 0)) {
		if r.Err != nil {
			t.Fatalf("op %d: %v", i, r.Err)
		}
	}
	if f.Hits() != 3 {
		t.Fatalf("the fault fired %d times, want 3", f.Hits())
	}
	if last.ThrottledRequests == 0 {
		t.Errorf("final progress %+v: 3 throttles retried by the client, none counted", last)
	}
}
