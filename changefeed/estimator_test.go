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
	est, err := changefeed.NewEstimator("proc", e.monitored, changefeed.Leases(e.leases), changefeed.StartFromBeginning())
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
	ok.Store(true)
	waitFor(t, "lag 0", 10*time.Second, func() bool {
		n, err := est.Total(context.Background())
		return err == nil && n == 0
	})
	stop(t, p)
	if _, err := changefeed.NewEstimator("", e.monitored, changefeed.Leases(e.leases), changefeed.StartFromNow()); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Errorf("NewEstimator without a name: %v", err)
	}
}
