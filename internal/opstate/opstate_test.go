package opstate

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestState(t *testing.T) {
	st := &State{}
	ctx := With(context.Background(), st)
	if From(ctx) != st || From(context.Background()) != nil {
		t.Fatal("From")
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			st.Attempt([]string{"a:1", "b:1", "c:1", "d:1", "e:1", "f:1"}[i%6], 1.5, i%2 == 0)
			AddThrottleWait(ctx, time.Millisecond)
		})
	}
	wg.Wait()
	AddThrottleWait(context.Background(), time.Second) // no state: nothing
	AddThrottleWait(ctx, -time.Second)                 // negative: nothing
	c := st.Snapshot()
	if c.Attempts != 8 || c.Throttles != 4 || c.RequestCharge != 12 || c.ThrottleWait != 8*time.Millisecond {
		t.Errorf("counts %+v", c)
	}
	if h := st.Contacted(); len(h) != MaxHosts {
		t.Errorf("contacted %v", h)
	}
}
