package changefeed_test

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
)

// A split mid-run replaces the parent lease by two child leases starting at its checkpoint:
// nothing is lost, and with one instance nothing is delivered twice.
func TestSplitMidRun(t *testing.T) {
	e := newEnv(t, 2)
	tl := newTally()
	o := fast()
	var acquired atomic.Int64
	o.OnLeaseAcquired = func(string) { acquired.Add(1) }
	p := newProc(t, e, "a", tl.handle, o)
	n := scaled(3000)
	writeConcurrently(t, e, 0, n/2, 4)
	waitFor(t, "some changes handled", 10*time.Second, func() bool { return tl.distinct() > 200 })
	if err := e.srv.SplitRange("db", "items", "1"); err != nil {
		t.Fatal(err)
	}
	writeConcurrently(t, e, n/2, n/2, 4)
	waitFor(t, "every change handled", 30*time.Second, func() bool { return tl.distinct() == n })
	waitFor(t, "three leases", 10*time.Second, func() bool { return len(p.State()) == 3 })
	stop(t, p)
	if dup := tl.total - n; dup != 0 {
		t.Errorf("%d changes delivered twice by a single instance", dup)
	}
	if tl.outOfOrd != 0 {
		t.Errorf("%d changes out of order", tl.outOfOrd)
	}
	var tokens []string
	for _, l := range leaseDocs(t, e) {
		tokens = append(tokens, l.LeaseToken)
		if l.ContinuationToken == "" || l.Version != 0 {
			t.Errorf("lease %+v", l)
		}
	}
	slices.Sort(tokens)
	if len(tokens) != 3 {
		t.Errorf("leases after the split: %q, want the untouched one and two children", tokens)
	}
	t.Logf("leases %q; %d acquisitions", tokens, acquired.Load())
}

// Several instances across a split lose nothing.
func TestSplitWithThreeInstances(t *testing.T) {
	e := newEnv(t, 4)
	tl := newTally()
	var ps []*changefeed.Processor
	for _, name := range []string{"a", "b", "c"} {
		ps = append(ps, newProc(t, e, name, tl.handle, fast()))
	}
	n := scaled(4000) &^ 1 // even: written in two halves
	writeConcurrently(t, e, 0, n/2, 4)
	for _, r := range []string{"0", "3"} {
		if err := e.srv.SplitRange("db", "items", r); err != nil {
			t.Fatal(err)
		}
	}
	writeConcurrently(t, e, n/2, n/2, 4)
	waitFor(t, "every change handled", 30*time.Second, func() bool { return tl.distinct() == n }, func() {
		t.Logf("handled %d of %d", tl.distinct(), n)
		for _, p := range ps {
			t.Logf("%s: %+v", p.Instance(), p.State())
		}
		for _, l := range leaseDocs(t, e) {
			t.Logf("lease %s owner %v cont %s ts %s", l.LeaseToken, deref(l.Owner), l.ContinuationToken, l.Timestamp)
		}
	})
	waitFor(t, "six leases spread evenly", 10*time.Second, func() bool { return even(spread(ps...), 6) })
	for _, p := range ps {
		stop(t, p)
	}
	t.Logf("%d deliveries of %d changes", tl.total, n)
}
