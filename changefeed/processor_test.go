package changefeed_test

import (
	"context"
	"testing"
	"time"
)

func TestSingleInstanceSeesEveryChange(t *testing.T) {
	e := newEnv(t, 4)
	for i := range 300 {
		write(t, e.monitored, doc{ID: id(i), PK: id(i % 17), Seq: i})
	}
	tl := newTally()
	p := newProc(t, e, "a", tl.handle, fast())
	for i := 300; i < 500; i++ {
		write(t, e.monitored, doc{ID: id(i), PK: id(i % 17), Seq: i})
	}
	waitFor(t, "500 documents", 20*time.Second, func() bool { return tl.distinct() == 500 })
	if st := p.State(); len(st) != 4 {
		t.Errorf("State: %d leases, want 4: %+v", len(st), st)
	}
	stop(t, p)
	if tl.outOfOrd != 0 {
		t.Errorf("%d changes out of order within a partition key", tl.outOfOrd)
	}
	_ = context.Background()
}
