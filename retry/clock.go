package retry

import (
	"context"
	"time"
)

// Clock is the time source of the package's waits. Tests inject one so that no test sleeps for
// the real retry-after; the zero value of every options struct uses the system clock.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits for d, or until ctx is done, in which case it returns ctx.Err().
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock: time.Now and a timer.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done, returning ctx.Err() in that case. A d of 0 or less
// returns at once (with ctx.Err() if ctx is already done).
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func clockOr(c Clock) Clock {
	if c == nil {
		return SystemClock{}
	}
	return c
}

// fitsDeadline reports whether waiting d from now still ends before ctx's deadline.
func fitsDeadline(ctx context.Context, c Clock, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	if !ok {
		return true
	}
	return dl.Sub(c.Now()) > d
}
