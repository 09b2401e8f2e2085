package retry

import (
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

// throttleState is the throttle budget spent by one request so far.
type throttleState struct {
	attempts   int           // HTTP attempts made by this policy
	retries    int           // retries after a 429
	waited     time.Duration // sum of the waits
	charge     float64       // request charge of every attempt
	retryAfter time.Duration // the last 429's retry hint
}

// sendThrottled sends req and retries it while it is answered with 429 and the budget allows:
// each wait is the server's retry hint, cut short by the request's context. When the budget is
// spent it returns a final *cosmoserr.Error matching ErrThrottled.
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
		if resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		wait := wire.RetryAfter(resp.Header, p.clock.Now)
		if wait <= 0 {
			wait = p.throttle.DefaultRetryAfter
		}
		st.retryAfter = wait
		if st.retries >= p.throttle.MaxRetries || wait > p.throttle.MaxWait-st.waited || !fitsDeadline(ctx, p.clock, wait) {
			return nil, p.throttled(resp, st)
		}
		if resp.Body != nil {
			resp.Body.Close()
		}
		if err := p.clock.Sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("cosmoskit: waiting %v to retry a throttled request: %w", wait, err)
		}
		opstate.AddThrottleWait(ctx, wait)
		st.waited += wait
		st.retries++
	}
}

// throttled builds the error for a request still throttled after the budget: a *cosmoserr.Error
// (matching ErrThrottled) with the status, sub-status, activity id and message of the last 429,
// the request charge and number of attempts of every try, and the last retry hint; it unwraps to
// the *azcore.ResponseError the SDK would have returned.
func (p *PipelinePolicy) throttled(resp *http.Response, st *throttleState) error {
	var de *cosmoserr.Error
	if !errors.As(cosmoserr.FromError("", newResponseError(resp)), &de) {
		de = &cosmoserr.Error{StatusCode: resp.StatusCode, Err: newResponseError(resp)}
	}
	de.Attempts = st.attempts
	de.RequestCharge = st.charge
	de.RetryAfter = st.retryAfter
	return &finalError{de}
}

// newResponseError is the error azcosmos returns for a failed response.
func newResponseError(resp *http.Response) error {
	return runtime.NewResponseErrorWithErrorCode(resp, resp.Status)
}
