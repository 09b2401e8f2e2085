package changefeed_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
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

// When Stop's context ends first, the handler's context is cancelled and Stop reports it; the
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
	p := newProc(t, e, "a", h, fast())
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Stop(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Stop = %v, want context.Canceled", err)
	}
	if sawCancel == nil {
		t.Error("the handler's context was not cancelled")
	}
	tl := newTally()
	b := newProc(t, e, "b", tl.handle, fast())
	waitFor(t, "redelivery", 10*time.Second, func() bool { return tl.distinct() == 1 })
	stop(t, b)
}
