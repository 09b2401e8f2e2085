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
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

func throttle(retryAfter time.Duration, times int) cosmostest.Fault {
	return cosmostest.Fault{Operation: cosmostest.OpReadItem,
		Status: http.StatusTooManyRequests, RetryAfter: retryAfter, Times: times}
}

func TestThrottledThenSuccess(t *testing.T) {
	for _, n := range []int{1, 4, 9} {
		clock := newFakeClock()
		e := newEnv(t, envRegions{}, retry.Options{Clock: clock})
		e.s.InjectFault(throttle(37*time.Millisecond, n))
		ctx, meter := diagnostics.WithMeter(context.Background()) // turns the diagnostics policy on
		if err := e.read(ctx); err != nil {
			t.Fatalf("%d throttles: %v", n, err)
		}
		if got := e.s.Requests(docReads); got != n+1 {
			t.Errorf("%d throttles: %d attempts reached the server, want %d", n, got, n+1)
		}
		want := make([]time.Duration, n)
		for i := range want {
			want[i] = 37 * time.Millisecond
		}
		if diff := cmp.Diff(want, clock.waits()); diff != "" {
			t.Errorf("%d throttles: waits (-want +got):\n%s", n, diff)
		}
		st := e.stats.get()
		if st.Attempts != n+1 || st.Throttles != n || st.ThrottleWait != time.Duration(n)*37*time.Millisecond {
			t.Errorf("%d throttles: diagnostics saw %+v", n, st)
		}
		if meter.Throttles() != n {
			t.Errorf("%d throttles: the meter counted %d", n, meter.Throttles())
		}
		if got, want := meter.ThrottleWait(), time.Duration(n)*37*time.Millisecond; got != want {
			t.Errorf("%d throttles: the meter's ThrottleWait = %v, want %v", n, got, want)
		}
		if st.Region != "West US" || st.Host != e.host(t, "West US") {
			t.Errorf("%d throttles: Stats.Region %q Host %q, want West US", n, st.Region, st.Host)
		}
	}
}

func TestThrottleStormPastTheBudget(t *testing.T) {
	tests := []struct {
		name         string
		throttle     retry.ThrottleOptions
		retryAfter   time.Duration
		wantAttempts int
	}{
		// 30 s of waits allows six 5 s waits: the seventh answer is returned.
		{name: "default 30 s budget", retryAfter: 5 * time.Second, wantAttempts: 7},
		// 9 retries: ten attempts.
		{name: "default 9 retries", retryAfter: 10 * time.Millisecond, wantAttempts: 10},
		{name: "MaxRetries 2", throttle: retry.ThrottleOptions{MaxRetries: 2}, retryAfter: 10 * time.Millisecond, wantAttempts: 3},
		{name: "MaxWait 1 s", throttle: retry.ThrottleOptions{MaxWait: time.Second}, retryAfter: 400 * time.Millisecond, wantAttempts: 3},
		{name: "wait longer than the budget", retryAfter: 31 * time.Second, wantAttempts: 1},
		{name: "Disable", throttle: retry.ThrottleOptions{Disable: true}, retryAfter: 10 * time.Millisecond, wantAttempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			e := newEnv(t, envRegions{}, retry.Options{Clock: clock, Throttle: tt.throttle})
			e.s.InjectFault(throttle(tt.retryAfter, 0))
			err := e.read(context.Background())
			if !errors.Is(err, cosmoserr.ErrThrottled) {
				t.Fatalf("read = %v, want ErrThrottled", err)
			}
			var de *cosmoserr.Error
			if !errors.As(err, &de) {
				t.Fatalf("no *cosmoserr.Error in %v", err)
			}
			if de.StatusCode != http.StatusTooManyRequests || de.SubStatus != 3200 || de.ActivityID == "" ||
				de.RetryAfter != tt.retryAfter || de.Attempts != tt.wantAttempts {
				t.Errorf("error fields: status %d sub %d activity %q retry-after %v attempts %d; want 429/3200, an id, %v, %d",
					de.StatusCode, de.SubStatus, de.ActivityID, de.RetryAfter, de.Attempts, tt.retryAfter, tt.wantAttempts)
			}
			var re *azcore.ResponseError
			if !errors.As(err, &re) || re.StatusCode != http.StatusTooManyRequests {
				t.Errorf("no *azcore.ResponseError 429 in %v", err)
			}
			if got := e.s.Requests(docReads); got != tt.wantAttempts {
				t.Errorf("%d attempts reached the server, want %d (one retry layer)", got, tt.wantAttempts)
			}
			var waited time.Duration
			for _, w := range clock.waits() {
				if w != tt.retryAfter {
					t.Errorf("waited %v, want the header's %v", w, tt.retryAfter)
				}
				waited += w
			}
			max := tt.throttle.MaxWait
			if max <= 0 {
				max = retry.DefaultThrottleMaxWait
			}
			if waited > max {
				t.Errorf("waited %v in total, budget %v", waited, max)
			}
		})
	}
}

func TestThrottleRespectsTheDeadline(t *testing.T) {
	e := newEnv(t, envRegions{}, retry.Options{}) // the real clock
	e.s.InjectFault(throttle(time.Hour, 0))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := e.read(ctx)
	// The hint is past the deadline: no wait, the throttle comes back at once.
	if !errors.Is(err, cosmoserr.ErrThrottled) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("read = %v, want ErrThrottled without waiting for the deadline", err)
	}
	if got := e.s.Requests(docReads); got != 1 {
		t.Errorf("%d attempts, want 1", got)
	}
}

func TestThrottleWaitIsCutByCancellation(t *testing.T) {
	e := newEnv(t, envRegions{}, retry.Options{}) // the real clock
	e.s.InjectFault(throttle(20*time.Second, 0))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		for deadline := time.Now().Add(5 * time.Second); e.s.Requests(docReads) < 1 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}()
	err := e.read(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("read = %v, want context.Canceled", err)
	}
	if got := e.s.Requests(docReads); got != 1 {
		t.Errorf("%d attempts, want 1", got)
	}
}

func TestThrottleIsNotABreakerFailure(t *testing.T) {
	e := newEnv(t, envRegions{}, retry.Options{Clock: newFakeClock(), Breaker: retry.BreakerOptions{ReadFailureThreshold: 2}})
	e.s.InjectFault(throttle(time.Millisecond, 0))
	for range 5 {
		if err := e.read(context.Background()); !errors.Is(err, cosmoserr.ErrThrottled) {
			t.Fatalf("read = %v", err)
		}
	}
	for _, b := range e.p.Breakers() {
		if b.State != retry.StateClosed || b.ConsecutiveFailures != 0 {
			t.Errorf("breaker %s: %v after throttles, %d failures", b.Name, b.State, b.ConsecutiveFailures)
		}
	}
}

func TestEachWaitIsItsHeader(t *testing.T) {
	clock := newFakeClock()
	e := newEnv(t, envRegions{}, retry.Options{Clock: clock})
	want := []time.Duration{10 * time.Millisecond, 250 * time.Millisecond, 3 * time.Second, 1500 * time.Millisecond}
	for _, w := range want {
		e.s.InjectFault(throttle(w, 1))
	}
	if err := e.read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, clock.waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if got := e.s.Requests(docReads); got != len(want)+1 {
		t.Errorf("%d attempts, want %d", got, len(want)+1)
	}
}

func TestThrottledAccountRead(t *testing.T) {
	clock := newFakeClock()
	s := cosmostest.NewServer(t)
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadAccount, Status: http.StatusTooManyRequests, RetryAfter: 5 * time.Millisecond, Times: 2})
	co := s.ClientOptions()
	mustPolicy(t, retry.Options{Clock: clock}).Install(co)
	c, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), co)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReadAccount}); got != 3 {
		t.Errorf("%d account reads, want 3", got)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Millisecond, 5 * time.Millisecond}, clock.waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestHugeRetryAfterIsNotRetried(t *testing.T) {
	clock := newFakeClock()
	e := newEnv(t, envRegions{}, retry.Options{Clock: clock})
	e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
		Status: http.StatusTooManyRequests, Headers: http.Header{"Retry-After-Ms": {"100000000000000000000"}}}) // 1e20 ms: an exponent is not a number to azcore either
	if err := e.read(context.Background()); !errors.Is(err, cosmoserr.ErrThrottled) {
		t.Fatalf("read = %v", err)
	}
	if got := e.s.Requests(docReads); got != 1 || len(clock.waits()) != 0 {
		t.Errorf("%d attempts, waits %v; want 1 attempt and no wait", got, clock.waits())
	}
}
