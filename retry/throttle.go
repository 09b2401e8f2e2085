package retry

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/cosmoskit/cosmoskit-go/diagnostics"
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
// spent it returns a final *diagnostics.Error matching ErrThrottled.
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
		st.charge += headerFloat(resp.Header, hdrRequestCharge)
		if resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		wait := retryAfter(resp.Header)
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
		diagnostics.AddThrottleWait(ctx, wait)
		st.waited += wait
		st.retries++
	}
}

// throttled builds the error for a request still throttled after the budget: a *diagnostics.Error
// (matching ErrThrottled) with the status, sub-status, activity id and message of the last 429,
// the request charge and number of attempts of every try, and the last retry hint; it unwraps to
// the *azcore.ResponseError the SDK would have returned.
func (p *PipelinePolicy) throttled(resp *http.Response, st *throttleState) error {
	var de *diagnostics.Error
	if !errors.As(diagnostics.FromError("", newResponseError(resp)), &de) {
		de = &diagnostics.Error{StatusCode: resp.StatusCode, Err: newResponseError(resp)}
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

func headerFloat(h http.Header, k string) float64 {
	v := h.Get(k)
	if v == "" {
		return 0
	}
	f, _ := strconv.ParseFloat(v, 64)
	return f
}

// retryAfter reads the retry hint like azcore does: Retry-After-Ms, x-ms-retry-after-ms (both in
// milliseconds), then Retry-After in seconds.
func retryAfter(h http.Header) time.Duration {
	for _, k := range [...]string{"Retry-After-Ms", "X-Ms-Retry-After-Ms"} {
		if v := h.Get(k); v != "" {
			if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
				if ms >= float64(math.MaxInt64/int64(time.Millisecond)) {
					return time.Duration(math.MaxInt64) // longer than any budget: not retried
				}
				return time.Duration(ms * float64(time.Millisecond))
			}
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s > 0 {
			if int64(s) >= math.MaxInt64/int64(time.Second) {
				return time.Duration(math.MaxInt64)
			}
			return time.Duration(s) * time.Second
		}
	}
	return 0
}
