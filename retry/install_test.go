package retry_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

func TestInstall(t *testing.T) {
	p := mustPolicy(t, retry.Options{})
	other := policy.Policy(nil)
	o := &azcosmos.ClientOptions{}
	o.PerRetryPolicies = []policy.Policy{other}
	p.Install(o)
	if len(o.PerRetryPolicies) != 2 || o.PerRetryPolicies[0] != p {
		t.Fatalf("PerRetryPolicies = %v, want the policy first", o.PerRetryPolicies)
	}
	want := []int{408, 500, 502, 503, 504}
	if !slices.Equal(o.Retry.StatusCodes, want) {
		t.Errorf("StatusCodes = %v, want %v", o.Retry.StatusCodes, want)
	}

	o = &azcosmos.ClientOptions{}
	o.Retry.StatusCodes = []int{429, 503}
	p.Install(o)
	if !slices.Equal(o.Retry.StatusCodes, []int{503}) {
		t.Errorf("StatusCodes = %v, want [503]", o.Retry.StatusCodes)
	}

	o = &azcosmos.ClientOptions{}
	o.Retry.ShouldRetry = func(*http.Response, error) bool { return true }
	p.Install(o)
	if o.Retry.ShouldRetry(&http.Response{StatusCode: 429}, nil) || !o.Retry.ShouldRetry(&http.Response{StatusCode: 503}, nil) {
		t.Error("ShouldRetry must refuse 429 and keep the rest")
	}
}

func TestThrottledWrite(t *testing.T) {
	clock := newFakeClock()
	e := newEnv(t, envRegions{}, retry.Options{Clock: clock})
	e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpCreateItem,
		Status: http.StatusTooManyRequests, RetryAfter: 12 * time.Millisecond, Times: 2})
	if _, err := e.cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"b","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpCreateItem}); got != 3 {
		t.Errorf("%d create attempts, want 3", got)
	}
	if got := clock.waits(); !slices.Equal(got, []time.Duration{12 * time.Millisecond, 12 * time.Millisecond}) {
		t.Errorf("waits %v", got)
	}
	// The body was sent again intact: the item exists once.
	if _, err := e.cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("p"), "b", nil); err != nil {
		t.Error(err)
	}
}

// TestSingleWriteRegionNeverFailsFast: with one write region there is nowhere else to go, so an
// open write breaker must not refuse writes: each is sent (without asking the breaker), and the
// breaker closes when its first probe after the open interval succeeds.
func TestSingleWriteRegionNeverFailsFast(t *testing.T) {
	const interval = time.Second // gobreaker reads time.Now: a short interval, not a fake clock
	e := newEnv(t, envRegions{}, retry.Options{Breaker: retry.BreakerOptions{OpenInterval: interval}})
	fault := e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpUpsertItem, Status: http.StatusServiceUnavailable})
	ctx := context.Background()
	upsert := func() error {
		_, err := e.cc.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"b","pk":"p"}`), nil)
		return err
	}
	for i := range retry.DefaultWriteFailureThreshold {
		if err := upsert(); err == nil {
			t.Fatalf("upsert %d = %v, want the 503", i, err)
		}
	}
	west := e.host(t, "West US")
	opened := time.Now()
	if st, _ := breakerState(e.p, west, true); st != retry.StateOpen && time.Since(opened) < interval {
		t.Fatalf("write breaker %v after %d 503s, want open", st, retry.DefaultWriteFailureThreshold)
	}
	e.s.ResetRequests()
	if err := upsert(); err == nil {
		t.Fatalf("upsert with the only write region's breaker open = %v, want it sent (and its 503)", err)
	}
	if got := e.s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpUpsertItem}); got == 0 {
		t.Fatal("the write was not sent")
	}
	fault.Remove()
	if err := upsert(); err != nil {
		t.Fatalf("upsert once the region recovered: %v", err)
	}
	time.Sleep(time.Until(opened.Add(interval + 10*time.Millisecond)))
	if err := upsert(); err != nil { // the probe
		t.Fatalf("upsert after the open interval: %v", err)
	}
	if st, _ := breakerState(e.p, west, true); st != retry.StateClosed {
		t.Errorf("write breaker %v after a successful write, want closed", st)
	}
	// Reads are unaffected.
	if err := e.read(ctx); err != nil {
		t.Errorf("read: %v", err)
	}
}
