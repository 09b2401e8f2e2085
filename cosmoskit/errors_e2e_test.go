package cosmoskit_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// TestErrorsThroughNew checks what a caller of a New client's containers gets back: a throttle
// storm is ErrThrottled with its attempts and retry hint and still an *azcore.ResponseError; a
// deadline shorter than the retry hint is not waited for; the caller's cancellation is
// context.Canceled, not retryable, and no breaker failure.
func TestErrorsThroughNew(t *testing.T) {
	s, c, cc := twoRegions(t, cosmoskit.Config{Retry: retry.Options{Breaker: retry.BreakerOptions{ReadFailureThreshold: 1, OpenInterval: time.Hour}}})
	pk := azcosmos.NewPartitionKeyString("a")
	reads := cosmostest.RequestFilter{Operation: cosmostest.OpReadItem}

	t.Run("throttled past the budget", func(t *testing.T) {
		h := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
			Status: http.StatusTooManyRequests, RetryAfter: time.Millisecond})
		defer h.Remove()
		s.ResetRequests()
		_, err := cc.ReadItem(context.Background(), pk, "1", nil)
		var ke *cosmoserr.Error
		var re *azcore.ResponseError
		if !errors.Is(err, cosmoserr.ErrThrottled) || !errors.As(err, &ke) || !errors.As(err, &re) || re.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("read = %v, want ErrThrottled as a *cosmoserr.Error over a 429 *azcore.ResponseError", err)
		}
		if ke.Attempts != retry.DefaultThrottleMaxRetries+1 || ke.RetryAfter != time.Millisecond || ke.SubStatus != 3200 || ke.ActivityID == "" {
			t.Errorf("attempts %d retry-after %v sub-status %d activity %q; want %d, 1ms, 3200, an id",
				ke.Attempts, ke.RetryAfter, ke.SubStatus, ke.ActivityID, retry.DefaultThrottleMaxRetries+1)
		}
		if !cosmoserr.IsRetryable(err) || cosmoserr.IsTimeout(err) {
			t.Errorf("IsRetryable %v IsTimeout %v, want true, false", cosmoserr.IsRetryable(err), cosmoserr.IsTimeout(err))
		}
		if again := cosmoserr.FromError(cosmoserr.OpReadItem, err); !errors.As(again, &ke) || ke.Attempts != retry.DefaultThrottleMaxRetries+1 {
			t.Errorf("FromError lost the attempts: %v", again)
		}
		if n := s.Requests(reads); n != retry.DefaultThrottleMaxRetries+1 {
			t.Errorf("%d attempts reached the server", n)
		}
	})

	t.Run("retry hint past the deadline", func(t *testing.T) {
		h := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
			Status: http.StatusTooManyRequests, RetryAfter: time.Minute})
		defer h.Remove()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		start := time.Now()
		_, err := cc.ReadItem(ctx, pk, "1", nil)
		if !errors.Is(err, cosmoserr.ErrThrottled) || time.Since(start) > 4*time.Second {
			t.Fatalf("read = %v after %v, want ErrThrottled at once", err, time.Since(start))
		}
	})

	t.Run("caller cancels", func(t *testing.T) {
		h := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Delay: time.Minute})
		defer h.Remove()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		_, err := cc.ReadItem(ctx, pk, "1", nil)
		if !errors.Is(err, context.Canceled) || cosmoserr.IsRetryable(err) {
			t.Fatalf("read = %v (retryable %v), want context.Canceled, not retryable", err, cosmoserr.IsRetryable(err))
		}
		for _, b := range c.Retry().Breakers() {
			if b.ConsecutiveFailures != 0 || b.State != retry.StateClosed {
				t.Errorf("breaker %s: %d failures, %s after the caller's cancellation", b.Name, b.ConsecutiveFailures, b.State)
			}
		}
		// The next read is served: nothing was opened by the cancellation.
		h.Remove()
		if _, err := cc.ReadItem(context.Background(), pk, "1", nil); err != nil {
			t.Fatalf("read after a cancellation: %v", err)
		}
	})
}
