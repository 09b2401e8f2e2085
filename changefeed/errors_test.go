package changefeed_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// A handler that fails twice on a batch sees the same batch again, and nothing after it is
// delivered or checkpointed first.
func TestHandlerErrorRedeliversTheSameBatch(t *testing.T) {
	e := newEnv(t, 1)
	for i := range 30 {
		write(t, e.monitored, doc{ID: id(i), PK: "p", Seq: i})
	}
	var (
		mu         sync.Mutex
		deliveries [][]string
		attempts   []int
		cpDuring   []string
		failures   []error
	)
	var p *changefeed.Processor
	fails := 0
	h := func(_ context.Context, b changefeed.Batch) error {
		mu.Lock()
		defer mu.Unlock()
		var ids []string
		for _, raw := range b.Items {
			var d doc
			_ = json.Unmarshal(raw, &d)
			ids = append(ids, d.ID)
		}
		deliveries = append(deliveries, ids)
		attempts = append(attempts, b.Delivery)
		if len(deliveries) >= 2 && fails < 2 { // the second batch fails twice
			fails++
			cpDuring = append(cpDuring, p.State()[0].ContinuationToken)
			return errors.New("boom")
		}
		return nil
	}
	o := fast()
	o.MaxItems = 10
	o.OnError = func(_ string, err error) {
		mu.Lock()
		failures = append(failures, err)
		mu.Unlock()
	}
	p = newProc(t, e, "a", h, o)
	waitFor(t, "five deliveries", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(deliveries) >= 5
	})
	stop(t, p)
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(deliveries[1], deliveries[2]) || !slices.Equal(deliveries[2], deliveries[3]) {
		t.Errorf("failed batch not redelivered as is: %v / %v / %v", deliveries[1], deliveries[2], deliveries[3])
	}
	if !slices.Equal(attempts[:5], []int{1, 1, 2, 3, 1}) {
		t.Errorf("Batch.Delivery = %v, want 1 1 2 3 1", attempts[:5])
	}
	if deliveries[4][0] != id(20) {
		t.Errorf("the batch after the failing one starts at %s, want %s", deliveries[4][0], id(20))
	}
	if len(cpDuring) != 2 || cpDuring[0] != cpDuring[1] {
		t.Errorf("checkpoint moved while the batch failed: %q", cpDuring)
	}
	var he *changefeed.HandlerError
	if len(failures) < 2 || !errors.As(failures[0], &he) || he.Attempt != 1 || !errors.Is(failures[1], cosmoserr.ErrHandler) {
		t.Errorf("OnError got %v, want two *HandlerError", failures)
	}
}

// After MaxDeliveries failures, OnPoison takes the batch and processing goes on; without OnPoison
// the lease stops and reports a *PoisonError.
func TestPoisonBatch(t *testing.T) {
	for _, custody := range []bool{true, false} {
		t.Run(map[bool]string{true: "OnPoison", false: "stop"}[custody], func(t *testing.T) {
			e := newEnv(t, 1)
			for i := range 20 {
				write(t, e.monitored, doc{ID: id(i), PK: "p", Seq: i})
			}
			var mu sync.Mutex
			var handled, poisoned []string
			var errs []error
			h := func(_ context.Context, b changefeed.Batch) error {
				mu.Lock()
				defer mu.Unlock()
				for _, raw := range b.Items {
					var d doc
					_ = json.Unmarshal(raw, &d)
					if d.ID == id(5) {
						return errors.New("poison")
					}
				}
				for _, raw := range b.Items {
					var d doc
					_ = json.Unmarshal(raw, &d)
					handled = append(handled, d.ID)
				}
				return nil
			}
			o := fast()
			o.MaxItems = 5
			o.MaxDeliveries = 3
			o.OnError = func(_ string, err error) {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
			if custody {
				o.OnPoison = func(_ context.Context, b changefeed.Batch, err error) error {
					mu.Lock()
					defer mu.Unlock()
					poisoned = append(poisoned, string(b.Items[0]))
					return nil
				}
			}
			p := newProc(t, e, "a", h, o)
			if custody {
				waitFor(t, "the rest handled", 10*time.Second, func() bool {
					mu.Lock()
					defer mu.Unlock()
					return len(handled) == 15
				})
				mu.Lock()
				if len(poisoned) != 1 {
					t.Errorf("OnPoison called %d times, want 1", len(poisoned))
				}
				mu.Unlock()
			} else {
				waitFor(t, "lease stopped", 10*time.Second, func() bool {
					st := p.State()
					return len(st) == 1 && st[0].Stopped != nil
				})
				st := p.State()
				var pe *changefeed.PoisonError
				if !errors.As(st[0].Stopped, &pe) || pe.Deliveries != 3 || len(pe.Batch.Items) != 5 {
					t.Errorf("Stopped = %v", st[0].Stopped)
				}
				mu.Lock()
				if len(handled) != 5 {
					t.Errorf("handled %d, want only the 5 before the poison batch", len(handled))
				}
				if !errors.Is(errs[len(errs)-1], cosmoserr.ErrPoisonBatch) {
					t.Errorf("last OnError = %v, want a PoisonError", errs[len(errs)-1])
				}
				mu.Unlock()
			}
			stop(t, p)
		})
	}
}
