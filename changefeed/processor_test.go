package changefeed_test

import (
	"testing"
	"time"
)

func TestSingleInstanceSeesEveryChange(t *testing.T) {
	e := newEnv(t, 4)
	writeConcurrently(t, e, 0, 300, 4)
	tl := newTally()
	p := newProc(t, e, "a", tl.handle, fast())
	writeConcurrently(t, e, 300, 200, 4)
	waitFor(t, "500 documents", 20*time.Second, func() bool { return tl.distinct() == 500 })
	if st := p.State(); len(st) != 4 {
		t.Errorf("State: %d leases, want 4: %+v", len(st), st)
	}
	stop(t, p)
	if tl.outOfOrd != 0 {
		t.Errorf("%d changes out of order within a partition key", tl.outOfOrd)
	}
	if dup := tl.total - 500; dup != 0 {
		t.Errorf("%d changes delivered twice by a single instance", dup)
	}
}
