package retry_test

import (
	"context"
	"errors"
	"go/build"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

func breakerState(p *retry.PipelinePolicy, host string, write bool) (retry.State, int) {
	for _, b := range p.Breakers() {
		if b.Host == host && b.Partition == "" && b.Write == write {
			return b.State, b.ConsecutiveFailures
		}
	}
	return retry.StateClosed, 0
}

func TestRegionDownMidRun(t *testing.T) {
	rep := &reporter{}
	// gobreaker reads time.Now: a short open interval instead of a fake clock.
	const interval = time.Second
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{
		Reporter: rep,
		Breaker:  retry.BreakerOptions{OpenInterval: interval}})
	east, west := e.host(t, "East US"), e.host(t, "West US")
	ctx, _ := diagnostics.WithMeter(context.Background()) // Stats for every read
	if err := e.read(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(regionReads("East US")); got != 1 {
		t.Fatalf("healthy read: %d reads in East US, want 1", got)
	}

	if err := e.s.SetRegionDown("East US", true); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i := 1; i <= retry.DefaultReadFailureThreshold; i++ {
		if err := e.read(ctx); err != nil {
			t.Fatalf("read %d with East US down: %v", i, err)
		}
		state, failures := breakerState(e.p, east, false)
		wantState := retry.StateClosed
		if i == retry.DefaultReadFailureThreshold {
			wantState = retry.StateOpen
		}
		// An open breaker reads 0 failures: the counts start again on a state change.
		if state != wantState || (state == retry.StateClosed && failures != i) || (state == retry.StateOpen && failures != 0) {
			t.Fatalf("after %d failed reads in East US: breaker %v with %d failures, want %v", i, state, failures, wantState)
		}
	}
	opened := time.Now()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("ten failed-over reads took %v: something slept", d)
	}
	if st := e.stats.get(); st.Region != "West US" || st.Host != west || st.Attempts != 2 {
		t.Errorf("failed-over read: Stats %+v, want Region West US, Host %s, 2 attempts (East US, then West US)", st, west)
	}
	if got := e.s.Requests(regionReads("West US")); got != retry.DefaultReadFailureThreshold {
		t.Errorf("%d reads served by West US, want %d", got, retry.DefaultReadFailureThreshold)
	}

	// Open: East US is skipped without a connection attempt.
	e.rec.reset()
	if err := e.read(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.rec.attempts(); len(got) != 1 || got[0].host != west {
		t.Fatalf("read with the breaker open sent %+v, want one attempt to West US %s", got, west)
	}

	// Still open within the interval (checked only if this machine got here in time).
	if err := e.s.SetRegionDown("East US", false); err != nil {
		t.Fatal(err)
	}
	e.s.ResetRequests()
	if err := e.read(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(regionReads("East US")); got != 0 && time.Since(opened) < interval {
		t.Fatalf("%d reads went to East US before the open interval ended", got)
	}

	// Recovery: after the open interval a probe goes to East US, succeeds, and traffic returns.
	time.Sleep(time.Until(opened.Add(interval + 10*time.Millisecond)))
	e.s.ResetRequests()
	for range 3 {
		if err := e.read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := e.s.Requests(regionReads("East US")); got != 3 {
		t.Errorf("after recovery %d of 3 reads went to East US", got)
	}
	if state, _ := breakerState(e.p, east, false); state != retry.StateClosed {
		t.Errorf("breaker %v after a successful probe, want closed", state)
	}
	var changes []string
	for _, c := range rep.list() {
		if strings.Contains(c, east) {
			changes = append(changes, c[strings.LastIndex(c, ": ")+2:])
		}
	}
	want := []string{"closed -> open", "open -> half-open", "half-open -> closed"}
	if !slices.Equal(changes, want) {
		t.Errorf("reported changes %q, want %q (all: %q)", changes, want, rep.list())
	}
}

// TestAllRegionsOpenTriesTheLeastRecentlyOpened: when every region's breaker is open, a read is
// not refused: it goes, without asking the breaker, to the region whose breaker opened first, alone.
func TestAllRegionsOpenTriesTheLeastRecentlyOpened(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{
		Breaker: retry.BreakerOptions{ReadFailureThreshold: 3}})
	fault := e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
		Status: http.StatusServiceUnavailable})
	ctx := context.Background()
	for i := range 3 { // East US's breaker opens a moment before West US's
		err := e.read(ctx)
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("read %d = %v, want the 503", i, err)
		}
	}
	// Each read tried each region once: no second walk by the SDK.
	if got := e.s.Requests(docReads); got != 6 {
		t.Errorf("%d attempts for 3 reads over 2 regions, want 6", got)
	}
	east, west := e.host(t, "East US"), e.host(t, "West US")
	if se, _ := breakerState(e.p, east, false); se != retry.StateOpen {
		t.Fatalf("East US breaker %v, want open", se)
	}
	if sw, _ := breakerState(e.p, west, false); sw != retry.StateOpen {
		t.Fatalf("West US breaker %v, want open", sw)
	}
	// Both open, the fault still there: one attempt, to East US (opened first), and its 503.
	e.s.ResetRequests()
	err := e.read(ctx)
	if err == nil {
		t.Fatalf("read = %v: want the 503 of the region tried half-open", err)
	}
	if got, ge := e.s.Requests(docReads), e.s.Requests(regionReads("East US")); got != 1 || ge != 1 {
		t.Fatalf("%d attempts (%d in East US), want 1 in East US", got, ge)
	}
	// East US failed again, so West US is now the least recently opened.
	fault.Remove()
	e.s.ResetRequests()
	if err := e.read(ctx); err != nil {
		t.Fatalf("read once the region recovered: %v", err)
	}
	if got := e.s.Requests(regionReads("West US")); got != 1 {
		t.Errorf("%d reads in West US, want 1 (the least recently opened)", got)
	}
	// The breaker was not asked: it stays open until its interval ends (30 s here).
	if sw, _ := breakerState(e.p, west, false); sw != retry.StateOpen {
		t.Errorf("West US breaker %v after a read sent without asking it, want open", sw)
	}
	// Writes have their own breakers: the write region still takes writes.
	if _, err := e.cc.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"b","pk":"p"}`), nil); err != nil {
		t.Errorf("write with the read breakers open: %v", err)
	}
}

func TestBreakerClassification(t *testing.T) {
	tests := []struct {
		name   string
		fault  cosmostest.Fault
		failed bool
	}{
		{"500", cosmostest.Fault{Status: http.StatusInternalServerError}, true},
		{"503", cosmostest.Fault{Status: http.StatusServiceUnavailable}, true},
		{"408", cosmostest.Fault{Status: http.StatusRequestTimeout}, true},
		{"dropped connection", cosmostest.Fault{DropConnection: true}, true},
		{"404", cosmostest.Fault{Status: http.StatusNotFound}, false},
		{"412", cosmostest.Fault{Status: http.StatusPreconditionFailed}, false},
		{"413", cosmostest.Fault{Status: http.StatusRequestEntityTooLarge}, false},
		{"409", cosmostest.Fault{Status: http.StatusConflict}, false},
		{"400", cosmostest.Fault{Status: http.StatusBadRequest}, false},
		{"401", cosmostest.Fault{Status: http.StatusUnauthorized}, false},
		{"403", cosmostest.Fault{Status: http.StatusForbidden}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// East US fails, West US answers: a failure fails over and counts once in East US.
			e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{})
			f := tt.fault
			f.Region, f.Operation, f.ResourceType = "East US", cosmostest.OpReadItem, cosmostest.ResourceDocument
			e.s.InjectFault(f)
			err := e.read(context.Background())
			_, failures := breakerState(e.p, e.host(t, "East US"), false)
			want := 0
			if tt.failed {
				want = 1
				if err != nil {
					t.Errorf("read = %v, want it served by West US", err)
				}
			}
			if failures != want {
				t.Errorf("counted %d failures, want %d", failures, want)
			}
			if got := e.s.Requests(regionReads("West US")); got != want {
				t.Errorf("%d reads failed over to West US, want %d", got, want)
			}
		})
	}
}

func TestCallerCancellationIsNotAFailure(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{})
	e.s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpReadItem, Delay: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := e.read(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("read = %v, want the deadline", err)
	}
	if got := e.s.Requests(regionReads("West US")); got != 0 {
		t.Errorf("the caller's deadline made the read fail over (%d reads in West US)", got)
	}
	if _, failures := breakerState(e.p, e.host(t, "East US"), false); failures != 0 {
		t.Errorf("the caller's deadline counted as %d breaker failures", failures)
	}
}

func TestPartitionBreaker(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{
		Breaker: retry.BreakerOptions{ReadFailureThreshold: 2, OpenInterval: time.Hour}}, cosmostest.WithPartitionCount(2))
	east := e.host(t, "East US")
	e.s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpQueryItems, PartitionKeyRangeID: "0",
		Status: http.StatusServiceUnavailable})
	query := func(rangeID string) error {
		ctx := retry.WithPartitionKeyRange(context.Background(), rangeID)
		pager := e.cc.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKey(), nil)
		for pager.More() {
			if _, err := pager.NextPage(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	for range 3 {
		if err := query("0"); err != nil {
			t.Fatalf("query of range 0: %v", err)
		}
	}
	var part retry.BreakerInfo
	for _, b := range e.p.Breakers() {
		if b.Host == east && strings.HasSuffix(b.Partition, "pkrange 0") {
			part = b
		}
	}
	if part.State != retry.StateOpen {
		t.Fatalf("partition breaker %+v, want open (all: %+v)", part, e.p.Breakers())
	}
	if state, _ := breakerState(e.p, east, false); state != retry.StateClosed {
		t.Errorf("region breaker %v: one partition must not stop the region", state)
	}
	e.s.ResetRequests()
	if err := query("1"); err != nil {
		t.Fatal(err)
	}
	if err := query("0"); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(cosmostest.RequestFilter{Region: "East US", Operation: cosmostest.OpQueryItems}); got != 1 {
		t.Errorf("%d queries in East US, want 1 (range 1 only)", got)
	}
}

func TestEveryRegionDown(t *testing.T) {
	// Both regions refuse connections (only the account endpoint, West US, stays up for GET /):
	// the read fails at once with a retryable error naming the last region, not after the SDK's
	// 1 s connection retries.
	e := newEnv(t, envRegions{preferred: []string{"East US", "North Europe"}}, retry.Options{},
		cosmostest.WithRegions("West US", "East US", "North Europe"))
	if err := e.s.SetRegionDown("East US", true); err != nil {
		t.Fatal(err)
	}
	if err := e.s.SetRegionDown("North Europe", true); err != nil {
		t.Fatal(err)
	}
	err := e.read(context.Background())
	if err == nil || !strings.Contains(err.Error(), "every region failed; last, North Europe") {
		t.Fatalf("read = %v", err)
	}
	if !cosmoserr.IsRetryable(err) {
		t.Errorf("IsRetryable(%v) = false", err)
	}
	if got := len(e.rec.attempts()); got != 2 {
		t.Errorf("%d attempts, want one per region (the SDK did not retry)", got)
	}
}

func TestBreakersDisabled(t *testing.T) {
	e := newEnv(t, envRegions{}, retry.Options{Breaker: retry.BreakerOptions{Disable: true, ReadFailureThreshold: 1}},
		cosmostest.WithRegions("West US"))
	e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
		Status: http.StatusServiceUnavailable, Times: 3})
	for range 3 {
		_ = e.read(context.Background())
	}
	if err := e.read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.p.Breakers(); len(got) != 0 {
		t.Errorf("Breakers = %+v, want none", got)
	}
}

func TestRegionDownUnderConcurrentReads(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{})
	if err := e.s.SetRegionDown("East US", true); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8*20)
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 20 {
				if err := e.read(context.Background()); err != nil {
					errs <- err
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if state, _ := breakerState(e.p, e.host(t, "East US"), false); state != retry.StateOpen {
		t.Errorf("East US breaker %v after 160 reads with the region down, want open", state)
	}
	if got := e.s.Requests(regionReads("West US")); got != 160 {
		t.Errorf("%d reads served by West US, want 160", got)
	}
}

// TestEveryRegionDroppingIsRetryable: when every region drops a read's connection, the error is
// retryable and stays so once wrapped as a *cosmoserr.Error (as every cosmoskit package does).
func TestEveryRegionDroppingIsRetryable(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"West US", "East US"}}, retry.Options{})
	e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, DropConnection: true})
	err := e.read(context.Background())
	if err == nil {
		t.Fatal("read succeeded with every region dropping connections")
	}
	if e.s.Requests(regionReads("West US")) == 0 || e.s.Requests(regionReads("East US")) == 0 {
		t.Fatalf("the read did not walk both regions: %v", err)
	}
	wrapped := cosmoserr.FromError(cosmoserr.OpReadItem, err)
	for _, err := range []error{err, wrapped} {
		if !cosmoserr.IsRetryable(err) || cosmoserr.IsTimeout(err) {
			t.Errorf("IsRetryable %v IsTimeout %v for %v; want true, false", cosmoserr.IsRetryable(err), cosmoserr.IsTimeout(err), err)
		}
	}
}

// TestBreakersAreGobreaker: the product is specified on github.com/sony/gobreaker/v2; the
// package imports it (nothing of a home-made breaker is left), and the module requires it.
func TestBreakersAreGobreaker(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pkg.Imports, "github.com/sony/gobreaker/v2") {
		t.Errorf("package retry does not import github.com/sony/gobreaker/v2; imports %q", pkg.Imports)
	}
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mod), "github.com/sony/gobreaker/v2 v2.") {
		t.Error("go.mod does not require github.com/sony/gobreaker/v2")
	}
}
