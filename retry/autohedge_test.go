package retry_test

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// TestPolicyHedgesReadsItself: with hedging enabled, a plain read (no retry.Hedge around it) on a
// slow preferred region is hedged to the next region after the threshold; the hedge answers, the
// slow request is cancelled, and exactly one hedge was sent. (Before, only code wrapped in
// retry.Hedge was hedged: this read waited the full delay.)
func TestPolicyHedgesReadsItself(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{
		Hedging: retry.HedgingOptions{Enable: true, Threshold: 50 * time.Millisecond}})
	slow := e.s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpReadItem, Delay: time.Minute})
	if err := e.read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.p.HedgeStats(); got != (retry.HedgeStats{Hedged: 1, Sent: 1, Won: 1, Cancelled: 1}) {
		t.Errorf("HedgeStats = %+v, want one hedge sent, won, and the slow request cancelled", got)
	}
	if got := e.s.Requests(regionReads("West US")); got != 1 {
		t.Errorf("%d reads in West US, want 1 (the hedge)", got)
	}
	// The slow request was cancelled (not left running): the server saw its client give up.
	waitFor(t, func() bool { return slow.Cancelled() == 1 }, "the slow request's cancellation")
	if _, failures := breakerState(e.p, e.host(t, "East US"), false); failures != 0 {
		t.Errorf("the slow, cancelled region counted %d failures", failures)
	}

	// A query page is hedged too; WithoutHedging turns it off for a request.
	e.s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpQueryItems, Delay: time.Minute})
	pager := e.cc.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKeyString("p"), nil)
	page, err := pager.NextPage(context.Background())
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("hedged query page: %d items, %v", len(page.Items), err)
	}
	if got := e.p.HedgeStats().Sent; got != 2 {
		t.Errorf("%d hedges after the query page, want 2", got)
	}
	slow.Remove()
	ctx, cancel := context.WithTimeout(retry.WithoutHedging(context.Background()), 200*time.Millisecond)
	defer cancel()
	e.s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpReadItem, Delay: time.Minute})
	if err := e.read(ctx); err == nil {
		t.Error("a read WithoutHedging was hedged")
	}
	if got := e.p.HedgeStats().Sent; got != 2 {
		t.Errorf("%d hedges after a read WithoutHedging, want still 2", got)
	}
}

// TestChangeFeedIsNotHedged: change feed reads keep their region (their continuation is per
// region's LSNs), hedging on or not.
func TestChangeFeedIsNotHedged(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{
		Hedging: retry.HedgingOptions{Enable: true, Threshold: time.Millisecond}})
	ranges, err := e.cc.ReadFeedRanges(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	slow := e.s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpReadChangeFeed, Delay: 30 * time.Millisecond})
	if _, err := e.cc.ReadChangeFeed(context.Background(), &azcosmos.ChangeFeedOptions{FeedRange: &ranges[0]}); err != nil {
		t.Fatal(err)
	}
	if slow.Hits() != 1 {
		t.Fatalf("the slow region served %d change feed reads, want 1", slow.Hits())
	}
	if got := e.p.HedgeStats(); got != (retry.HedgeStats{}) {
		t.Errorf("HedgeStats = %+v after a change feed read, want none", got)
	}
}

// waitFor waits for cond; the deadline is only a backstop against a hang (a loaded 2-core CI
// machine running three test steps at once has taken more than 5 s).
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
