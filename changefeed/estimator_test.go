package changefeed_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// The estimator counts the changes after each lease's checkpoint: all 50 while the handler
// fails, 0 once it succeeds.
func TestEstimator(t *testing.T) {
	e := newEnv(t, 1)
	for i := range 50 {
		write(t, e.monitored, doc{ID: id(i), PK: id(i % 4), Seq: i})
	}
	var ok atomic.Bool
	h := func(context.Context, changefeed.Batch) error {
		if !ok.Load() {
			return errors.New("not yet")
		}
		return nil
	}
	o := fast()
	o.OnError = func(string, error) {}
	p := newProc(t, e, "a", h, o)
	est, err := changefeed.NewEstimator(e.monitored, changefeed.EstimatorOptions{Name: "proc", Leases: changefeed.Leases(e.leases), StartFrom: changefeed.StartFromBeginning()})
	if err != nil {
		t.Fatal(err)
	}
	states, err := est.Estimate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 1 || states[0].EstimatedLag != 50 || states[0].LeaseToken == "" {
		t.Fatalf("Estimate = %+v, want one lease 50 behind", states)
	}
	// Past CountLimit the rest is estimated from LSNs (exact here: one write per document).
	capped, err := changefeed.NewEstimator(e.monitored, changefeed.EstimatorOptions{Name: "proc", Leases: changefeed.Leases(e.leases),
		StartFrom: changefeed.StartFromBeginning(), CountLimit: 7})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := capped.Total(context.Background()); err != nil || n != 50 {
		t.Errorf("Total with CountLimit 7 = %d, %v; want 50", n, err)
	}
	if est.Options().CountLimit != changefeed.DefaultCountLimit {
		t.Errorf("CountLimit in effect %d", est.Options().CountLimit)
	}
	ok.Store(true)
	waitFor(t, "lag 0", 10*time.Second, func() bool {
		n, err := est.Total(context.Background())
		return err == nil && n == 0
	})
	stop(t, p)
	if _, err := changefeed.NewEstimator(e.monitored, changefeed.EstimatorOptions{Leases: changefeed.Leases(e.leases)}); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Errorf("NewEstimator without a name: %v", err)
	}
}

// After a split the estimate stays exact: changes written before the split are counted once, in
// the child range that holds them, not in both children (the children inherit the parent's LSN
// sequence, so an LSN difference counts the sibling's pre-split changes too).
func TestEstimatorExactAfterSplit(t *testing.T) {
	e := newEnv(t, 1)
	for i := range 30 {
		write(t, e.monitored, doc{ID: id(i), PK: id(i), Seq: i})
	}
	o := fast()
	o.MaxItems = 10
	o.RetryBackoff, o.MaxRetryBackoff = 20*time.Millisecond, 50*time.Millisecond
	o.OnError = func(string, error) {}
	var calls atomic.Int64
	first := func(context.Context, changefeed.Batch) error {
		if calls.Add(1) == 1 {
			return nil // the first batch (10 changes) is checkpointed, then nothing more
		}
		return errors.New("not yet")
	}
	a := newProc(t, e, "a", first, o)
	est := a.Estimator()
	waitFor(t, "the first batch checkpointed", 10*time.Second, func() bool {
		n, err := est.Total(context.Background())
		return err == nil && n == 20
	})
	stop(t, a)
	if err := e.srv.SplitRange("db", "items", "0"); err != nil {
		t.Fatal(err)
	}
	for i := 30; i < 40; i++ {
		write(t, e.monitored, doc{ID: id(i), PK: id(i), Seq: i})
	}
	check := func(when string) {
		t.Helper()
		states, err := est.Estimate(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		for _, s := range states {
			total += s.EstimatedLag
		}
		if total != 30 {
			t.Errorf("%s: estimated %d changes after the checkpoints (%+v), want exactly 30", when, total, states)
		}
	}
	check("the parent lease over the split range")
	// Another instance, whose handler fails, replaces the parent lease by its children (starting at
	// the parent's checkpoint) and checkpoints nothing.
	b := newProc(t, e, "b", func(context.Context, changefeed.Batch) error { return errors.New("not yet") }, o)
	defer stop(t, b)
	waitFor(t, "the parent lease replaced by its children", 10*time.Second, func() bool {
		ls := leaseDocs(t, e)
		return len(ls) == 2 && ls[0].LeaseToken != "0" && ls[1].LeaseToken != "0"
	})
	check("the child leases")
}
