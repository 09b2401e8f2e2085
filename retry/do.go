package retry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Defaults of [Backoff].
const (
	// DefaultMaxAttempts is the number of calls [Do] makes at most when Backoff.MaxAttempts is 0.
	DefaultMaxAttempts = 5
	// DefaultInitialBackoff is the wait before the second call when Backoff.InitialBackoff is 0.
	DefaultInitialBackoff = 50 * time.Millisecond
	// DefaultMaxBackoff caps each wait when Backoff.MaxBackoff is 0.
	DefaultMaxBackoff = 2 * time.Second
	// DefaultJitter is the randomised fraction of each wait when Backoff.Jitter is 0.
	DefaultJitter = 0.5
)

// Backoff configures [Do] (application-level retries of a whole unit of work; the pipeline's own
// retries are [Options]). The zero value is valid: up to 5 calls, waits of 50 ms doubling up to
// 2 s with half of each wait randomised, retrying what [DefaultRetryable] accepts. Negative
// values, and a Jitter outside [0, 1], are refused (see [Backoff.Validate]);
// [Backoff.Options] reads back the values in effect.
type Backoff struct {
	// MaxAttempts is the number of calls of fn at most, the first included. If 0,
	// DefaultMaxAttempts (5) is used; 1 means no retry.
	MaxAttempts int
	// InitialBackoff is the wait before the second call; each later wait doubles, up to
	// MaxBackoff. If 0, DefaultInitialBackoff (50 ms) is used.
	InitialBackoff time.Duration
	// MaxBackoff caps each wait. If 0, DefaultMaxBackoff (2 s) is used.
	MaxBackoff time.Duration
	// Jitter is the fraction of each wait that is randomised, in [0, 1]: a wait w becomes a uniform
	// draw from [w×(1−Jitter), w], so that competing writers spread out. If 0, DefaultJitter (0.5)
	// is used. Set DisableJitter for exact waits.
	Jitter float64
	// DisableJitter makes every wait exactly the computed backoff.
	DisableJitter bool
	// Retryable reports whether an error returned by fn is worth another call. If nil,
	// DefaultRetryable is used. Context cancellation and deadline errors are never retried,
	// whatever Retryable says.
	Retryable func(error) bool
	// Clock is the time source of the waits. If nil, the system clock is used.
	Clock Clock
}

// Validate reports the first field of b that [Do] refuses, as a *cosmoserr.ValidationError naming
// it (for example "Backoff.MaxAttempts").
func (b Backoff) Validate() error {
	bad := func(field, reason string) error {
		return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "Backoff." + field, Reason: reason}
	}
	switch {
	case b.MaxAttempts < 0:
		return bad("MaxAttempts", "is negative; 0 means the default (5), 1 means no retry")
	case b.InitialBackoff < 0:
		return bad("InitialBackoff", "is negative; 0 means the default (50 ms)")
	case b.MaxBackoff < 0:
		return bad("MaxBackoff", "is negative; 0 means the default (2 s)")
	case math.IsNaN(b.Jitter) || b.Jitter < 0 || b.Jitter > 1:
		return bad("Jitter", "is outside [0, 1]; 0 means the default (0.5), DisableJitter makes waits exact")
	}
	return nil
}

// Options returns b as [Do] uses it, with every zero field replaced by its documented default. The
// defaults are MaxAttempts 5, InitialBackoff 50 ms, MaxBackoff 2 s, Jitter 0.5, or 0 with
// DisableJitter; Retryable DefaultRetryable; Clock SystemClock.
func (b Backoff) Options() Backoff {
	if b.MaxAttempts == 0 {
		b.MaxAttempts = DefaultMaxAttempts
	}
	if b.InitialBackoff == 0 {
		b.InitialBackoff = DefaultInitialBackoff
	}
	if b.MaxBackoff == 0 {
		b.MaxBackoff = DefaultMaxBackoff
	}
	if b.DisableJitter {
		b.Jitter = 0
	} else if b.Jitter == 0 {
		b.Jitter = DefaultJitter
	}
	if b.Retryable == nil {
		b.Retryable = DefaultRetryable
	}
	b.Clock = clockOr(b.Clock)
	return b
}

// DefaultRetryable is the Retryable of a zero [Backoff]: transient Cosmos DB failures and 412
// Precondition Failed. Transient failures are those of [cosmoserr.IsRetryable]: 408, 410, 429, 449,
// 5xx, transport errors; 412 is the outcome that makes an ETag read-modify-write start over.
func DefaultRetryable(err error) bool {
	return errors.Is(err, cosmoserr.ErrPreconditionFailed) || cosmoserr.IsRetryable(err)
}

// AttemptsError is the error [Do] returns when it stops. It wraps the last error fn returned (and
// the context's error when the context ended a wait), so errors.Is and errors.As see through it.
// Its message is "cosmoskit: giving up after N attempt(s): <last error>".
type AttemptsError struct {
	// Attempts is the number of calls of fn that were made.
	Attempts int
	// Err is the last error fn returned.
	Err error
	// Cause is the context's error when the context ended the wait for the next call, else nil.
	Cause error
}

// Error returns "cosmoskit: giving up after N attempt(s): <last error>".
func (e *AttemptsError) Error() string {
	return fmt.Sprintf("cosmoskit: giving up after %d attempt(s): %v", e.Attempts, e.Err)
}

// Unwrap returns the last error of fn and, when the context ended the retries, its error.
func (e *AttemptsError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

// Do calls fn until it returns nil, returns an error that b.Retryable rejects, or b.MaxAttempts
// calls were made, waiting with exponential backoff in between. A wait is at least the server's
// retry hint when the error carries one (a [cosmoserr.Error] with RetryAfter, as after
// throttling). Waits honour ctx: Do stops when ctx is done, and does not start a wait that would
// end after ctx's deadline. Context errors are never retried.
//
// Do returns nil on success; otherwise an [*AttemptsError] wrapping fn's last error, so
// errors.Is(err, cosmoserr.ErrPreconditionFailed) and errors.As(err, new(*cosmoserr.Error)) keep working.
// Use it for work that must be repeated as a whole, such as read, modify, replace with If-Match;
// single requests are already retried by the pipeline policy. An invalid b (see [Backoff.Validate])
// is refused before fn is called.
func Do(ctx context.Context, b Backoff, fn func(ctx context.Context) error) error {
	if err := b.Validate(); err != nil {
		return err
	}
	b = b.Options()
	max, retryable, clock := b.MaxAttempts, b.Retryable, b.Clock
	for attempt := 1; ; attempt++ {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		giveUp := &AttemptsError{Attempts: attempt, Err: err}
		if attempt >= max || isContextErr(err) || ctx.Err() != nil || !retryable(err) {
			giveUp.Cause = ctx.Err()
			return giveUp
		}
		wait := b.backoff(attempt)
		var de *cosmoserr.Error
		if errors.As(err, &de) && de.RetryAfter > wait {
			wait = de.RetryAfter
		}
		if !fitsDeadline(ctx, clock, wait) {
			return giveUp
		}
		if cerr := clock.Sleep(ctx, wait); cerr != nil {
			giveUp.Cause = cerr
			return giveUp
		}
	}
}

// backoff returns the wait after the given (1-based) failed attempt, for a b with defaults.
func (b Backoff) backoff(attempt int) time.Duration {
	w := b.InitialBackoff
	for i := 1; i < attempt && w < b.MaxBackoff; i++ {
		w *= 2
	}
	w = min(w, b.MaxBackoff)
	if b.Jitter == 0 {
		return w
	}
	low := float64(w) * (1 - b.Jitter)
	return time.Duration(low + rand.Float64()*(float64(w)-low))
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
