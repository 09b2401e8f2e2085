package diagnostics

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestMeterConcurrentAndNested(t *testing.T) {
	ctx, outer := WithMeter(context.Background())
	ctx, inner := WithMeter(ctx)
	if MeterFromContext(ctx) != inner {
		t.Fatal("MeterFromContext does not return the innermost meter")
	}
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				inner.add(0.5, 2, 1, time.Millisecond)
			}
		}()
	}
	wg.Wait()
	outer.add(1, 0, 0, 0) // no attempt policy: counts as 1 attempt
	if got := inner.RequestCharge(); got != 500 {
		t.Errorf("inner RequestCharge = %v, want 500", got)
	}
	if got, want := inner.Requests(), 1000; got != want {
		t.Errorf("inner Requests = %d, want %d", got, want)
	}
	if got := outer.RequestCharge(); got != 501 {
		t.Errorf("outer RequestCharge = %v, want 501", got)
	}
	if got := outer.Requests(); got != 1001 {
		t.Errorf("outer Requests = %d, want 1001", got)
	}
	if got := outer.Attempts(); got != 2001 {
		t.Errorf("outer Attempts = %d, want 2001", got)
	}
	if got := outer.Throttles(); got != 1000 {
		t.Errorf("outer Throttles = %d, want 1000", got)
	}
	if got, want := inner.ThrottleWait(), time.Second; got != want {
		t.Errorf("inner ThrottleWait = %v, want %v", got, want)
	}
	if got, want := outer.ThrottleWait(), time.Second; got != want {
		t.Errorf("outer ThrottleWait = %v, want %v", got, want)
	}
}

func TestMeterNil(t *testing.T) {
	var m *Meter
	if m.RequestCharge() != 0 || m.Requests() != 0 || m.Attempts() != 0 || m.Throttles() != 0 || m.ThrottleWait() != 0 {
		t.Error("nil meter is not zero")
	}
	if MeterFromContext(context.Background()) != nil {
		t.Error("MeterFromContext(background) != nil")
	}
}
