package changefeed_test

import (
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
)

// An instance that crashed and restarts under the same name resumes its own leases at once (as
// .NET's PartitionControllerCore.InitializeAsync does), not when they expire: with an expiration
// of an hour, the new change can only arrive within the test's wait if the restart took them.
func TestRestartUnderTheSameNameResumesItsLeases(t *testing.T) {
	e := newEnv(t, 2)
	o := fast()
	o.LeaseExpirationInterval = time.Hour
	tl := newTally()
	a := newProc(t, e, "a", tl.handle, o)
	waitFor(t, "a holding both leases", 10*time.Second, func() bool { return len(a.State()) == 2 })
	changefeed.Kill(a) // a crash: the leases stay owned by "a", unexpired for an hour
	for i := range 20 {
		write(t, e.monitored, doc{ID: id(i), PK: id(i)})
	}
	tl2 := newTally()
	again := newProc(t, e, "a", tl2.handle, o)
	waitFor(t, "the restarted instance to deliver the changes", 10*time.Second, func() bool { return tl2.distinct() == 20 })
	if n := len(again.State()); n != 2 {
		t.Errorf("the restarted instance holds %d leases, want 2", n)
	}
	stop(t, again)
}
