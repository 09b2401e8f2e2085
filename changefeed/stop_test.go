package changefeed_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Stop waits for the batch in flight, checkpoints it, then releases the lease.
func TestStopWaitsForTheBatchInFlight(t *testing.T) {
	e := newEnv(t, 1)
	write(t, e.monitored, doc{ID: "x", PK: "p"})
	entered, release := make(chan struct{}), make(chan struct{})
	h := func(ctx context.Context, b changefeed.Batch) error {
		close(entered)
		<-release
		return ctx.Err() // nil: Stop's context did not end
	}
	p := newProc(t, e, "a", h, fast())
	<-entered
	stopped := make(chan error, 1)
	go func() { stopped <- p.Stop(context.Background()) }()
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned (%v) while a batch was being handled", err)
	case <-time.After(50 * time.Millisecond): // not a timing assertion: Stop must not return at all yet
	}
	close(release)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	for _, l := range leaseDocs(t, e) {
		if l.Owner != nil || l.ContinuationToken == "" {
			t.Errorf("after Stop: Owner %v, ContinuationToken %q; want released with the batch checkpointed", deref(l.Owner), l.ContinuationToken)
		}
	}
	// The next instance starts after the checkpoint: the change is not delivered again.
	tl := newTally()
	b := newProc(t, e, "b", tl.handle, fast())
	waitFor(t, "b to hold the lease", 10*time.Second, func() bool { return len(b.State()) == 1 })
	write(t, e.monitored, doc{ID: "y", PK: "p"})
	waitFor(t, "the new change", 10*time.Second, func() bool { return tl.distinct() == 1 })
	stop(t, b)
	if tl.seen["x"] != 0 {
		t.Error("the batch checkpointed at Stop was delivered again")
	}
}

// When Stop's context ends first, the handler's context is cancelled and Stop reports it (Stop's
// error is the one report: the handler's return is not also a *HandlerError to OnError); the
// uncheckpointed batch is delivered again later.
func TestStopContextCancelsHandlers(t *testing.T) {
	e := newEnv(t, 1)
	write(t, e.monitored, doc{ID: "x", PK: "p"})
	entered := make(chan struct{})
	var sawCancel error
	h := func(ctx context.Context, b changefeed.Batch) error {
		close(entered)
		<-ctx.Done()
		sawCancel = ctx.Err()
		return ctx.Err()
	}
	var mu sync.Mutex
	var reports []error
	o := fast()
	o.OnError = func(_ string, err error) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, err)
	}
	p := newProc(t, e, "a", h, o)
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Stop(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Stop = %v, want context.Canceled", err)
	}
	stop(t, p) // waits for the handler left running
	if sawCancel == nil {
		t.Error("the handler's context was not cancelled")
	}
	mu.Lock()
	if len(reports) != 0 {
		t.Errorf("OnError got %q; want nothing (Stop's error reports the cancelled handler)", reports)
	}
	mu.Unlock()
	tl := newTally()
	b := newProc(t, e, "b", tl.handle, fast())
	waitFor(t, "redelivery", 10*time.Second, func() bool { return tl.distinct() == 1 })
	stop(t, b)
}

// Stop returns at its context's deadline even when a handler ignores cancellation, with an error
// matching the context's that names the handler left running; a second Stop waits for it.
func TestStopReturnsAtItsDeadline(t *testing.T) {
	e := newEnv(t, 1)
	write(t, e.monitored, doc{ID: "x", PK: "p"})
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h := func(ctx context.Context, b changefeed.Batch) error {
		once.Do(func() { close(entered) })
		<-release // ignores ctx
		return nil
	}
	p := newProc(t, e, "a", h, fast())
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- p.Stop(ctx) }()
	select {
	case err := <-stopped:
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "handlers still running") {
			t.Errorf("Stop = %v, want context.DeadlineExceeded naming the handler left running", err)
		}
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("Stop did not return at its deadline while a handler ignored cancellation")
	}
	if err := p.Start(context.Background()); !errors.Is(err, cosmoserr.ErrStarted) {
		t.Errorf("Start while the previous run is still stopping = %v, want cosmoserr.ErrStarted", err)
	}
	close(release)
	stop(t, p) // waits for the handler
	// Stopped for good: it can run again.
	if err := p.Start(context.Background()); err != nil {
		t.Fatalf("Start after Stop: %v", err)
	}
	stop(t, p)
}

// Cancelling the context given to Start stops the processor: the leases are released.
func TestCancellingStartsContextStops(t *testing.T) {
	e := newEnv(t, 2)
	tl := newTally()
	p, err := changefeed.New(e.monitored, withLeases(e, "a", tl.handle, fast()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "both leases", 10*time.Second, func() bool { return len(p.State()) == 2 })
	cancel()
	waitFor(t, "the leases released", 10*time.Second, func() bool {
		for _, l := range leaseDocs(t, e) {
			if l.Owner != nil {
				return false
			}
		}
		return len(p.State()) == 0
	})
	stop(t, p)
}

// Run blocks until its context ends, then stops gracefully (leases released) and returns nil; a
// stopped processor runs again.
func TestRun(t *testing.T) {
	e := newEnv(t, 2)
	tl := newTally()
	p, err := changefeed.New(e.monitored, withLeases(e, "a", tl.handle, fast()))
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- p.Run(ctx) }()
		write(t, e.monitored, doc{ID: id(round), PK: id(round)})
		waitFor(t, "the change", 10*time.Second, func() bool { return tl.distinct() == round+1 })
		select {
		case err := <-ran:
			t.Fatalf("Run returned before its context ended: %v", err)
		default:
		}
		cancel()
		if err := <-ran; err != nil {
			t.Errorf("Run = %v", err)
		}
		for _, l := range leaseDocs(t, e) {
			if l.Owner != nil {
				t.Errorf("after Run: lease %s still owned by %s", l.LeaseToken, *l.Owner)
			}
		}
	}
	// Stop from elsewhere ends Run too.
	ran := make(chan error, 1)
	go func() { ran <- p.Run(context.Background()) }()
	waitFor(t, "running", 10*time.Second, func() bool { return len(p.State()) == 2 })
	stop(t, p)
	if err := <-ran; err != nil {
		t.Errorf("Run after Stop = %v", err)
	}
}

// stubbornHang holds every replace of a document whose id ends with suffix, once armed, until
// release is closed, whatever the request's context says (a write the service or the network
// does not answer, and a transport that does not give up).
type stubbornHang struct {
	armed   atomic.Bool
	suffix  string
	release chan struct{}
	hung    atomic.Int64
}

func (h *stubbornHang) Do(req *policy.Request) (*http.Response, error) {
	if r := req.Raw(); h.armed.Load() && r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, h.suffix) {
		h.hung.Add(1)
		<-h.release
	}
	return req.Next()
}

// Stop's error names as "handlers still running" only the leases whose handler is running; a
// lease whose handler returned and whose checkpoint is still being written is named as such
// (issue 32: every worker that had not exited was called a running handler).
func TestStopNamesWhatEachLeaseIsStillDoing(t *testing.T) {
	e := newEnv(t, 2)
	hang := &stubbornHang{suffix: "..1", release: make(chan struct{})}
	o := fast()
	o.Leases = changefeed.Leases(leasesThrough(t, e, hang))
	o.LeaseRenewInterval, o.LeaseExpirationInterval = time.Minute, 2*time.Minute // no renewal in the way
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h := func(ctx context.Context, b changefeed.Batch) error {
		if b.LeaseToken == "0" {
			once.Do(func() { close(entered) })
			<-release // ignores ctx
		}
		return nil
	}
	o.Name, o.Instance, o.Handler = "proc", "a", h
	p, err := changefeed.New(e.monitored, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "both leases", 10*time.Second, func() bool { return len(p.State()) == 2 })
	hang.armed.Store(true)
	for i := range 20 {
		write(t, e.monitored, doc{ID: id(i), PK: id(i), Seq: i})
	}
	<-entered
	waitFor(t, "lease 1's checkpoint to hang", 10*time.Second, func() bool { return hang.hung.Load() > 0 })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = p.Stop(ctx)
	close(release)
	close(hang.release)
	stop(t, p) // waits for both
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Stop = %v, want context.DeadlineExceeded", err)
	}
	for _, want := range []string{`handlers still running on leases ["0"]`, `still checkpointing leases ["1"]`, `leases ["0" "1"] not released`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Stop = %v\nwant it to say %s", err, want)
		}
	}
}
