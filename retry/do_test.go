package retry_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/google/go-cmp/cmp"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

func cosmosErr(status int, retryAfter time.Duration) error {
	return &cosmoserr.Error{
		Operation:  cosmoserr.OpReplaceItem,
		StatusCode: status,
		RetryAfter: retryAfter,
		Err:        &azcore.ResponseError{StatusCode: status, ErrorCode: http.StatusText(status)},
	}
}

func TestDo(t *testing.T) {
	errNotFound := cosmosErr(http.StatusNotFound, 0)
	errPrecondition := cosmosErr(http.StatusPreconditionFailed, 0)
	errUnavailable := cosmosErr(http.StatusServiceUnavailable, 0)
	errThrottled := cosmosErr(http.StatusTooManyRequests, 300*time.Millisecond)

	tests := []struct {
		name      string
		policy    retry.Backoff
		results   []error // what fn returns on each call; the last one repeats
		wantCalls int
		wantWaits []time.Duration
		wantIs    error // nil: Do succeeds
	}{
		{
			name:      "success at once",
			results:   []error{nil},
			wantCalls: 1,
		},
		{
			name:      "412 twice then success",
			policy:    retry.Backoff{DisableJitter: true},
			results:   []error{errPrecondition, errPrecondition, nil},
			wantCalls: 3,
			wantWaits: []time.Duration{50 * time.Millisecond, 100 * time.Millisecond},
		},
		{
			name:      "not retryable",
			results:   []error{errNotFound},
			wantCalls: 1,
			wantIs:    cosmoserr.ErrNotFound,
		},
		{
			name:      "default attempts exhausted, backoff capped",
			policy:    retry.Backoff{DisableJitter: true, InitialBackoff: time.Second, MaxBackoff: 3 * time.Second},
			results:   []error{errUnavailable},
			wantCalls: retry.DefaultMaxAttempts,
			wantWaits: []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second},
			wantIs:    cosmoserr.ErrUnavailable,
		},
		{
			name:      "MaxAttempts 1 means no retry",
			policy:    retry.Backoff{MaxAttempts: 1},
			results:   []error{errUnavailable},
			wantCalls: 1,
			wantIs:    cosmoserr.ErrUnavailable,
		},
		{
			name:      "server retry hint is the minimum wait",
			policy:    retry.Backoff{DisableJitter: true, MaxAttempts: 2},
			results:   []error{errThrottled, nil},
			wantCalls: 2,
			wantWaits: []time.Duration{300 * time.Millisecond},
		},
		{
			name:      "custom Retryable",
			policy:    retry.Backoff{DisableJitter: true, Retryable: func(err error) bool { return errors.Is(err, cosmoserr.ErrNotFound) }},
			results:   []error{errNotFound, errPrecondition},
			wantCalls: 2,
			wantWaits: []time.Duration{50 * time.Millisecond},
			wantIs:    cosmoserr.ErrPreconditionFailed,
		},
		{
			name:      "context errors are never retried",
			policy:    retry.Backoff{Retryable: func(error) bool { return true }},
			results:   []error{fmt.Errorf("read: %w", context.DeadlineExceeded)},
			wantCalls: 1,
			wantIs:    context.DeadlineExceeded,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			tt.policy.Clock = clock
			calls := 0
			err := retry.Do(context.Background(), tt.policy, func(context.Context) error {
				r := tt.results[min(calls, len(tt.results)-1)]
				calls++
				return r
			})
			if calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", calls, tt.wantCalls)
			}
			if diff := cmp.Diff(tt.wantWaits, clock.waits()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if tt.wantIs == nil {
				if err != nil {
					t.Fatalf("Do = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tt.wantIs) {
				t.Fatalf("Do = %v, want errors.Is %v", err, tt.wantIs)
			}
			var ae *retry.AttemptsError
			if !errors.As(err, &ae) || ae.Attempts != tt.wantCalls {
				t.Fatalf("Do = %v, want *AttemptsError with %d attempts", err, tt.wantCalls)
			}
			want := fmt.Sprintf("cosmoskit: giving up after %d attempt(s): ", tt.wantCalls)
			if got := err.Error(); len(got) < len(want) || got[:len(want)] != want {
				t.Errorf("message %q, want prefix %q", got, want)
			}
		})
	}
}

func TestDoKeepsTypedErrors(t *testing.T) {
	err := retry.Do(context.Background(), retry.Backoff{MaxAttempts: 2, Clock: newFakeClock()}, func(context.Context) error {
		return cosmosErr(http.StatusServiceUnavailable, 0)
	})
	var de *cosmoserr.Error
	if !errors.As(err, &de) || de.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("errors.As *cosmoserr.Error failed on %v", err)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("errors.As *azcore.ResponseError failed on %v", err)
	}
}

func TestDoStopsWhenContextEndsDuringWait(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	done := make(chan error, 1)
	go func() {
		done <- retry.Do(ctx, retry.Backoff{InitialBackoff: time.Hour}, func(context.Context) error {
			calls++
			return cosmosErr(http.StatusServiceUnavailable, 0)
		})
	}()
	// The wait is an hour; cancelling must end it.
	time.Sleep(10 * time.Millisecond)
	cancel()
	err := <-done
	if calls != 1 {
		t.Errorf("calls = %d, want 1", calls)
	}
	if !errors.Is(err, context.Canceled) || !errors.Is(err, cosmoserr.ErrUnavailable) {
		t.Fatalf("Do = %v, want both context.Canceled and ErrUnavailable", err)
	}
}

func TestDoDoesNotWaitPastTheDeadline(t *testing.T) {
	clock := newFakeClock()
	ctx, cancel := context.WithDeadline(context.Background(), clock.Now().Add(time.Second))
	defer cancel()
	calls := 0
	err := retry.Do(ctx, retry.Backoff{InitialBackoff: 2 * time.Second, DisableJitter: true, Clock: clock}, func(context.Context) error {
		calls++
		return cosmosErr(http.StatusPreconditionFailed, 0)
	})
	if calls != 1 || len(clock.waits()) != 0 {
		t.Fatalf("calls = %d, waits = %v; want 1 call and no wait", calls, clock.waits())
	}
	if !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
		t.Fatalf("Do = %v", err)
	}
}

func TestDoJitterStaysInRange(t *testing.T) {
	clock := newFakeClock()
	_ = retry.Do(context.Background(), retry.Backoff{MaxAttempts: 50, InitialBackoff: 100 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, Clock: clock},
		func(context.Context) error { return cosmosErr(http.StatusPreconditionFailed, 0) })
	waits := clock.waits()
	if len(waits) != 49 {
		t.Fatalf("%d waits, want 49", len(waits))
	}
	distinct := map[time.Duration]bool{}
	for _, w := range waits {
		if w < 50*time.Millisecond || w > 100*time.Millisecond {
			t.Errorf("wait %v outside [50ms, 100ms]", w)
		}
		distinct[w] = true
	}
	if len(distinct) < 2 {
		t.Errorf("jitter produced a single value %v", waits[0])
	}
}

// A read-modify-write loop: replace with If-Match until no other writer got in between.
func ExampleDo() {
	conflicts := 2 // pretend two other writers win first
	err := retry.Do(context.Background(), retry.Backoff{InitialBackoff: time.Millisecond}, func(ctx context.Context) error {
		// read the item, change it, replace it with IfMatchEtag set to the ETag read ...
		if conflicts > 0 {
			conflicts--
			return &cosmoserr.Error{StatusCode: http.StatusPreconditionFailed}
		}
		return nil
	})
	fmt.Println(err)
	// Output: <nil>
}

// TestDoRefusesBadBackoff: negative values and a Jitter outside [0, 1] used to be turned into
// defaults silently; Do now refuses them before calling fn, naming the field.
func TestDoRefusesBadBackoff(t *testing.T) {
	for field, b := range map[string]retry.Backoff{
		"Backoff.MaxAttempts":    {MaxAttempts: -1},
		"Backoff.InitialBackoff": {InitialBackoff: -1},
		"Backoff.MaxBackoff":     {MaxBackoff: -1},
		"Backoff.Jitter":         {Jitter: 1.5},
	} {
		calls := 0
		err := retry.Do(context.Background(), b, func(context.Context) error { calls++; return nil })
		var ve *cosmoserr.ValidationError
		if calls != 0 || !errors.As(err, &ve) || ve.Field != field {
			t.Errorf("%s: Do = %v after %d calls; want a *cosmoserr.ValidationError naming the field", field, err, calls)
		}
	}
	got := retry.Backoff{DisableJitter: true}.Options()
	if got.MaxAttempts != retry.DefaultMaxAttempts || got.InitialBackoff != retry.DefaultInitialBackoff ||
		got.MaxBackoff != retry.DefaultMaxBackoff || got.Jitter != 0 || got.Retryable == nil || got.Clock == nil {
		t.Errorf("WithDefaults = %+v", got)
	}
}
