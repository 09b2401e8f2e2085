package retry_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/google/go-cmp/cmp"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// sessionNotAvailable answers document reads in region with 404/1002 (times 0: always).
func sessionNotAvailable(region string, times int) cosmostest.Fault {
	return cosmostest.Fault{Region: region, Operation: cosmostest.OpReadItem,
		Status: http.StatusNotFound, SubStatus: 1002, Times: times}
}

// TestSessionNotAvailableGoesToTheWriteRegion: by default a 404/1002 goes to the write region at
// once, as in the gateway-mode .NET and Java clients, with no wait in the lagging region. (It used
// to be retried in the region for up to 500 ms first.)
func TestSessionNotAvailableGoesToTheWriteRegion(t *testing.T) {
	clock := newFakeClock()
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{Clock: clock})
	e.s.InjectFault(sessionNotAvailable("East US", 1))
	if err := e.read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if e.s.Requests(regionReads("East US")) != 1 || e.s.Requests(regionReads("West US")) != 1 {
		t.Errorf("East US %d, West US %d reads; want 1 and 1 (straight to the write region)",
			e.s.Requests(regionReads("East US")), e.s.Requests(regionReads("West US")))
	}
	if len(clock.waits()) != 0 {
		t.Errorf("waited %v", clock.waits())
	}
}

// TestSessionNotAvailableRetriedInRegion: with SessionRetry.MaxWait, a 404/1002 is retried in the
// region that answered it,
// the first retry at once and then with the .NET backoff (5 ms, ×5), before any other region.
func TestSessionNotAvailableRetriedInRegion(t *testing.T) {
	clock := newFakeClock()
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{Clock: clock,
		SessionRetry: retry.BackoffOptions{MaxWait: 500 * time.Millisecond}})
	e.s.InjectFault(sessionNotAvailable("East US", 3))
	if err := e.read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(regionReads("East US")); got != 4 {
		t.Errorf("East US saw %d reads, want 4 (1 + 3 retries)", got)
	}
	if got := e.s.Requests(regionReads("West US")); got != 0 {
		t.Errorf("West US saw %d reads, want 0: the region caught up before the budget was spent", got)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Millisecond, 25 * time.Millisecond}, clock.waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// TestSessionNotAvailableBudget: once the in-region budget is spent the SDK tries the write
// region once (no second in-region wait there), and the caller gets a typed, retryable error.
func TestSessionNotAvailableBudget(t *testing.T) {
	clock := newFakeClock()
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{Clock: clock,
		SessionRetry: retry.BackoffOptions{MaxWait: 30 * time.Millisecond}})
	always := e.s.InjectFault(sessionNotAvailable("", 0))
	err := e.read(context.Background())
	if !errors.Is(cosmoserr.FromError("", err), cosmoserr.ErrSessionNotAvailable) {
		t.Fatalf("err = %v, want ErrSessionNotAvailable", err)
	}
	if errors.Is(cosmoserr.FromError("", err), cosmoserr.ErrNotFound) {
		t.Error("a 404/1002 matches ErrNotFound")
	}
	if !cosmoserr.IsRetryable(err) {
		t.Error("404/1002 is not retryable")
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusNotFound {
		t.Errorf("err does not unwrap to the SDK's 404: %v", err)
	}
	// East US: the first read, a retry at once, after 5 ms, after 25 ms (30 ms spent; 125 ms
	// more would pass MaxWait); then the SDK's one retry in the write region, West US.
	if got := e.s.Requests(regionReads("East US")); got != 4 {
		t.Errorf("East US saw %d reads, want 4", got)
	}
	if got := e.s.Requests(regionReads("West US")); got != 1 {
		t.Errorf("West US saw %d reads, want 1 (the SDK's write-region retry)", got)
	}
	if got := always.Hits(); got != 5 {
		t.Errorf("the fault fired %d times, want 5", got)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Millisecond, 25 * time.Millisecond}, clock.waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestSessionRetryDisabled(t *testing.T) {
	clock := newFakeClock()
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{Clock: clock,
		SessionRetry: retry.BackoffOptions{Disable: true}})
	e.s.InjectFault(sessionNotAvailable("East US", 1))
	if err := e.read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if e.s.Requests(regionReads("East US")) != 1 || e.s.Requests(regionReads("West US")) != 1 {
		t.Errorf("East US %d, West US %d reads; want 1 and 1 (the SDK's write-region retry only)",
			e.s.Requests(regionReads("East US")), e.s.Requests(regionReads("West US")))
	}
	if len(clock.waits()) != 0 {
		t.Errorf("waited %v", clock.waits())
	}
}

func retryWith(op cosmostest.Operation, times int) cosmostest.Fault {
	return cosmostest.Fault{Operation: op, ResourceType: cosmostest.ResourceDocument, Status: 449, Times: times}
}

// TestRetryWith: a 449 is retried in the same region with the .NET backoff (at once, 10 ms, ×2).
func TestRetryWith(t *testing.T) {
	clock := newFakeClock()
	e := newEnv(t, envRegions{}, retry.Options{Clock: clock})
	e.s.InjectFault(retryWith(cosmostest.OpReadItem, 3))
	if err := e.read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(docReads); got != 4 {
		t.Errorf("%d reads reached the server, want 4", got)
	}
	if diff := cmp.Diff([]time.Duration{10 * time.Millisecond, 20 * time.Millisecond}, clock.waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// TestRetryWithWrite: a 449 means the write was not applied, so writes are retried too.
func TestRetryWithWrite(t *testing.T) {
	clock := newFakeClock()
	e := newEnv(t, envRegions{}, retry.Options{Clock: clock})
	e.s.InjectFault(retryWith(cosmostest.OpCreateItem, 2))
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := e.cc.CreateItem(ctx, pk, []byte(`{"id":"b","pk":"p"}`), nil); err != nil {
		t.Fatalf("create after two 449s: %v", err)
	}
	creates := cosmostest.RequestFilter{Operation: cosmostest.OpCreateItem}
	if got := e.s.Requests(creates); got != 3 {
		t.Errorf("%d creates reached the server, want 3", got)
	}
	if _, err := e.cc.ReadItem(ctx, pk, "b", nil); err != nil {
		t.Errorf("the created item: %v", err)
	}
}

// TestRetryWithBudget: past its budget a 449 is returned as a final, typed, retryable error,
// with every attempt counted and no retry by the SDK or azcore on top.
func TestRetryWithBudget(t *testing.T) {
	clock := newFakeClock()
	e := newEnv(t, envRegions{}, retry.Options{Clock: clock, RetryWith: retry.BackoffOptions{MaxWait: 70 * time.Millisecond}})
	e.s.InjectFault(retryWith(cosmostest.OpReadItem, 0))
	err := e.read(context.Background())
	var ce *cosmoserr.Error
	if !errors.As(err, &ce) || ce.StatusCode != 449 {
		t.Fatalf("err = %v, want a *cosmoserr.Error with status 449", err)
	}
	// At once, then 10, 20 and 40 ms (70 ms); 80 ms more would pass MaxWait.
	if ce.Attempts != 5 {
		t.Errorf("Attempts = %d, want 5", ce.Attempts)
	}
	if got := e.s.Requests(docReads); got != 5 {
		t.Errorf("%d reads reached the server, want 5", got)
	}
	if !cosmoserr.IsRetryable(err) {
		t.Error("449 is not retryable")
	}
	if diff := cmp.Diff([]time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}, clock.waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// TestRetryWithDeadline: a wait that would pass the caller's deadline is not started.
func TestRetryWithDeadline(t *testing.T) {
	// A deadline an hour away in real time, 25 ms away on the policy's clock.
	base := time.Now()
	clock := &fakeClock{now: base.Add(time.Hour - 25*time.Millisecond)}
	e := newEnv(t, envRegions{}, retry.Options{Clock: clock})
	e.s.InjectFault(retryWith(cosmostest.OpReadItem, 0))
	ctx, cancel := context.WithDeadline(context.Background(), base.Add(time.Hour))
	defer cancel()
	err := e.read(ctx)
	var ce *cosmoserr.Error
	if !errors.As(err, &ce) || ce.StatusCode != 449 {
		t.Fatalf("err = %v, want the last 449", err)
	}
	if diff := cmp.Diff([]time.Duration{10 * time.Millisecond}, clock.waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestBackoffOptionsInEffect(t *testing.T) {
	o := mustPolicy(t, retry.Options{}).Options()
	want := retry.BackoffOptions{InitialBackoff: 5 * time.Millisecond, MaxBackoff: 500 * time.Millisecond, Multiplier: 5}
	if o.SessionRetry != want {
		t.Errorf("SessionRetry = %+v, want %+v", o.SessionRetry, want)
	}
	want = retry.BackoffOptions{MaxWait: 30 * time.Second, InitialBackoff: 10 * time.Millisecond, MaxBackoff: time.Second, Multiplier: 2}
	if o.RetryWith != want {
		t.Errorf("RetryWith = %+v, want %+v", o.RetryWith, want)
	}
	o = mustPolicy(t, retry.Options{RetryWith: retry.BackoffOptions{Disable: true, MaxWait: time.Second}}).Options()
	if !o.RetryWith.Disable || o.RetryWith.MaxWait != time.Second {
		t.Errorf("RetryWith = %+v", o.RetryWith)
	}
}

// TestSessionRetryUsesTheWholeWindow: the last wait is cut to what is left of the budget
// (min(backoff, remaining), as the SDKs do), so a 100 ms budget waits 5, 25 and then 70 ms, not
// 30 ms in all because the next step (125 ms) would not fit.
func TestSessionRetryUsesTheWholeWindow(t *testing.T) {
	clock := newFakeClock()
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{Clock: clock,
		SessionRetry: retry.BackoffOptions{MaxWait: 100 * time.Millisecond}})
	e.s.InjectFault(sessionNotAvailable("", 0))
	if err := e.read(context.Background()); !errors.Is(cosmoserr.FromError("", err), cosmoserr.ErrSessionNotAvailable) {
		t.Fatalf("err = %v, want ErrSessionNotAvailable", err)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Millisecond, 25 * time.Millisecond, 70 * time.Millisecond}, clock.waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if got := e.s.Requests(regionReads("East US")); got != 5 {
		t.Errorf("East US saw %d reads, want 5 (1 + 4 retries)", got)
	}
}
