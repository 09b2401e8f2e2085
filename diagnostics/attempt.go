package diagnostics

import (
	"context"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/cosmoskit/cosmoskit-go/internal/opstate"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Stats is what the attempt policy learned about the HTTP attempts of one operation.
type Stats struct {
	// Attempts is the number of HTTP attempts (1 when nothing was retried).
	Attempts int
	// Throttles is the number of attempts answered with 429.
	Throttles int
	// ThrottleWait is the time spent waiting before retrying throttled attempts, as reported by
	// the retry layer (azcore's own retry policy does not report it).
	ThrottleWait time.Duration
	// GroupWait is the time attempts waited for a client-side throughput group's budget (package
	// throughput) before they were sent.
	GroupWait time.Duration
	// RequestCharge is the sum of x-ms-request-charge over all attempts.
	RequestCharge float64
	// Host is the host[:port] of the last attempt (the region endpoint that answered).
	Host string
	// Region is the account's name for Host ("West US"), learnt by [Policy] from the account
	// metadata the SDK reads through it; "" when Host is not one of the account's region endpoints
	// as that metadata lists them, or no metadata has been read yet.
	Region string
}

// snapshot returns st's counts as Stats, with the region name of the last host.
func snapshot(st *opstate.State) Stats {
	c := st.Snapshot()
	s := Stats{Attempts: c.Attempts, Throttles: c.Throttles, ThrottleWait: c.ThrottleWait, GroupWait: c.GroupWait, RequestCharge: c.RequestCharge, Host: c.Host}
	if st.Names != nil {
		s.Region = st.Names.RegionName(c.Host)
	}
	return s
}

// StatsFromContext returns the attempt statistics of the operation whose request context is ctx,
// and false when ctx carries no operation started by [Policy]. ctx is the context a per-retry
// policy, or a per-call policy installed after [Policy], sees.
//
// [Policy] starts an operation only when it has work to do: when its Options set a TracerProvider,
// a MeterProvider (whose instruments it could create) or a Logger, or when the request's context
// carries a [Meter] (see [WithMeter]). Otherwise it passes the request on untouched, to stay free,
// and StatsFromContext returns false (and the retry layer's throttle waits are not recorded) for
// every call made with a zero Options and no Meter. The counts are complete only with
// [NewAttemptPolicy] installed below the policies that retry; without it Attempts stays 0.
func StatsFromContext(ctx context.Context) (Stats, bool) {
	st := opstate.From(ctx)
	if st == nil {
		return Stats{}, false
	}
	return snapshot(st), true
}

// NewAttemptPolicy returns the per-retry half of the diagnostics, which sees every HTTP attempt.
// Install it in azcosmos.ClientOptions.PerRetryPolicies below any policy of yours that retries by calling Next
// more than once (such as a throttling policy), so that it sees every HTTP attempt: those of
// azcore's retry policy, of the Cosmos region retry and of yours; and above any policy that
// rewrites the request's host (emulator host pinning), so that the hosts it records are the
// account's region endpoints, which it names. It counts attempts and 429s, sums
// their request charges and remembers the region endpoints contacted, for the [Policy] above it to
// report. On a throttled attempt it adds a "cosmoskit.throttled" event to the operation's span.
// Without [Policy] above it, it only passes the request on.
func NewAttemptPolicy() policy.Policy { return attemptPolicy{} }

type attemptPolicy struct{}

func (attemptPolicy) Do(req *policy.Request) (*http.Response, error) {
	ctx := req.Raw().Context()
	st := opstate.From(ctx)
	if st == nil {
		return req.Next()
	}
	resp, err := req.Next()
	host := req.Raw().URL.Host
	throttled := false
	var charge float64
	if resp != nil {
		throttled = resp.StatusCode == http.StatusTooManyRequests
		charge = wire.RequestCharge(resp.Header)
	}
	attempts := st.Attempt(host, charge, throttled)
	if throttled {
		if span := trace.SpanFromContext(ctx); span.IsRecording() {
			span.AddEvent("cosmoskit.throttled", trace.WithAttributes(
				attribute.Int(keySubStatus, wire.SubStatus(resp.Header)),
				attribute.Int64("cosmoskit.retry_after_ms", wire.RetryAfter(resp.Header, time.Now).Milliseconds()),
				attribute.String(keyServerAddress, host),
				attribute.Int("cosmoskit.attempt", attempts),
			))
		}
	}
	return resp, err
}
