package retry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/opstate"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// throttleState is the retry budget spent by one request so far: throttling, and the in-region
// backoff retries of 404/1002 and 449.
type throttleState struct {
	attempts   int           // HTTP attempts made by this policy
	retries    int           // retries after a 429
	waited     time.Duration // sum of the waits
	charge     float64       // request charge of every attempt
	retryAfter time.Duration // the last 429's retry hint
	session    backoffState  // 404/1002
	retryWith  backoffState  // 449
}

// backoffState is what one kind of backoff retry has spent.
type backoffState struct {
	retries int
	next    time.Duration // the wait before the next retry after the immediate first one
	waited  time.Duration
}

// wait returns the wait before the next retry, and false when o's budget does not allow one. The
// last wait is cut to what is left of the budget, as the SDKs' backoff policies do
// (min(backoff, remaining)), so the whole window is used.
func (b *backoffState) wait(ctx context.Context, o BackoffOptions, clock Clock) (time.Duration, bool) {
	var d time.Duration
	switch {
	case b.retries == 0:
		// The first retry is immediate ("don't penalize first retry with delay", in both SDKs).
	case b.next == 0:
		d = min(o.InitialBackoff, o.MaxBackoff)
	default:
		d = b.next
	}
	if d > 0 {
		left := o.MaxWait - b.waited
		if left <= 0 {
			return 0, false
		}
		d = min(d, left)
		if !fitsDeadline(ctx, clock, d) {
			return 0, false
		}
	}
	if b.retries == 0 && o.MaxWait < 0 {
		return 0, false
	}
	if d > 0 {
		b.next = min(time.Duration(float64(d)*o.Multiplier), o.MaxBackoff)
	}
	b.retries++
	b.waited += d
	return d, true
}

// sendThrottled sends req and retries it while it is answered with 429 and the budget allows:
// each wait is the server's retry hint, cut short by the request's context. When the budget is
// spent it returns a final *cosmoserr.Error matching cosmoserr.ErrThrottled. It also retries 404/1002 and
// 449 with backoff (Options.SessionRetry, Options.RetryWith): a 404/1002 past its budget goes back
// as it came, for the SDK's write-region retry; a 449 past its budget is a final *cosmoserr.Error.
func (p *PipelinePolicy) sendThrottled(req *policy.Request, st *throttleState) (*http.Response, error) {
	ctx := req.Raw().Context()
	for {
		if err := req.RewindBody(); err != nil {
			return nil, err
		}
		resp, err := req.Next()
		st.attempts++
		if err != nil {
			return nil, err
		}
		st.charge += wire.RequestCharge(resp.Header)
		var wait time.Duration
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			wait = wire.RetryAfter(resp.Header, p.clock.Now)
			if wait <= 0 {
				wait = p.throttle.DefaultRetryAfter
			}
			st.retryAfter = wait
			if st.retries >= p.throttle.MaxRetries || wait > p.throttle.MaxWait-st.waited || !fitsDeadline(ctx, p.clock, wait) {
				return nil, p.spent(resp, st)
			}
		case resp.StatusCode == wire.StatusRetryWith && !p.retryWith.Disable:
			var ok bool
			if wait, ok = st.retryWith.wait(ctx, p.retryWith, p.clock); !ok {
				return nil, p.spent(resp, st)
			}
		case resp.StatusCode == http.StatusNotFound && !p.session.Disable && p.session.MaxWait > 0 &&
			wire.SubStatus(resp.Header) == wire.SubStatusReadSessionNotAvailable:
			var ok bool
			if wait, ok = st.session.wait(ctx, p.session, p.clock); !ok {
				return resp, nil // the SDK's turn: it retries in the write region
			}
		default:
			return resp, nil
		}
		if resp.Body != nil {
			resp.Body.Close()
		}
		if wait > 0 {
			if err := p.clock.Sleep(ctx, wait); err != nil {
				return nil, fmt.Errorf("cosmoskit: waiting %v to retry a request answered %d: %w", wait, resp.StatusCode, err)
			}
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			opstate.AddThrottleWait(ctx, wait)
			st.waited += wait
			st.retries++
		}
	}
}

// spent builds the error for a request still answered with 429 or 449 after its budget: a
// *cosmoserr.Error (matching cosmoserr.ErrThrottled for a 429) with the status, sub-status, activity id and
// message of the last response, the request charge and number of attempts of every try, and for
// a 429 the last retry hint; it unwraps to the *azcore.ResponseError the SDK would have returned.
func (p *PipelinePolicy) spent(resp *http.Response, st *throttleState) error {
	var de *cosmoserr.Error
	if !errors.As(cosmoserr.FromError("", newResponseError(resp)), &de) {
		de = &cosmoserr.Error{StatusCode: resp.StatusCode, Err: newResponseError(resp)}
	}
	de.Attempts = st.attempts
	de.RequestCharge = st.charge
	if resp.StatusCode == http.StatusTooManyRequests {
		de.RetryAfter = st.retryAfter
	}
	return &finalError{de}
}

// newResponseError is the error azcosmos returns for a failed response.
func newResponseError(resp *http.Response) error {
	return runtime.NewResponseErrorWithErrorCode(resp, resp.Status)
}
