package retry

import (
	"context"
	"math"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Defaults of [Options].
const (
	// DefaultThrottleMaxRetries is the number of retries of a throttled (429) request when
	// ThrottleOptions.MaxRetries is 0, as in the .NET, Java and Python SDKs.
	DefaultThrottleMaxRetries = 9
	// DefaultThrottleMaxWait is the cumulative wait for throttled retries of one request when
	// ThrottleOptions.MaxWait is 0, as in the other SDKs.
	DefaultThrottleMaxWait = 30 * time.Second
	// DefaultThrottleRetryAfter is the wait before retrying a 429 that carries no
	// x-ms-retry-after-ms, when ThrottleOptions.DefaultRetryAfter is 0.
	DefaultThrottleRetryAfter = 100 * time.Millisecond

	// DefaultReadFailureThreshold is the number of consecutive failed reads that opens a breaker
	// when BreakerOptions.ReadFailureThreshold is 0 (the SDKs' partition circuit breaker value).
	DefaultReadFailureThreshold = 10
	// DefaultWriteFailureThreshold is the same for writes, when WriteFailureThreshold is 0.
	DefaultWriteFailureThreshold = 5
	// DefaultOpenInterval is how long a breaker stays open before letting a probe through, when
	// BreakerOptions.OpenInterval is 0.
	DefaultOpenInterval = 30 * time.Second

	// DefaultHedgeThreshold is the wait before a read is sent to the next region, when
	// HedgingOptions.Threshold is 0 (the Python SDK's default).
	DefaultHedgeThreshold = 500 * time.Millisecond
	// DefaultHedgeStep is the wait between further hedges, when HedgingOptions.Step is 0.
	DefaultHedgeStep = 100 * time.Millisecond

	// Options.SessionRetry: by default a 404/1002 (the region has not caught up with the
	// request's session token) goes to the write region at once, as in the gateway-mode .NET and
	// Java clients: behind the gateway, which has already waited for its replicas before answering
	// 404/1002, they skip the Direct-mode SessionTokenMismatchRetryPolicy and let ClientRetryPolicy
	// retry in the write region. Set SessionRetry.MaxWait to wait in the region first, with the
	// backoff of .NET's SessionTokenMismatchRetryPolicy (azure-cosmos-dotnet-v3,
	// Microsoft.Azure.Cosmos/src/direct/SessionTokenMismatchRetryPolicy.cs:
	// defaultInitialBackoffTimeInMilliSeconds 5, defaultMaximumBackoffTimeInMilliseconds 500,
	// backoffMultiplier 5, no delay before the first retry): 500 ms is Java's
	// CosmosSessionRetryOptions minimum in-region time, 5 s .NET's Direct-mode window.

	// DefaultSessionRetryInitialBackoff is the wait before the second in-region retry of a
	// 404/1002 (the first is immediate), when SessionRetry.InitialBackoff is 0.
	DefaultSessionRetryInitialBackoff = 5 * time.Millisecond
	// DefaultSessionRetryMaxBackoff caps each wait, when SessionRetry.MaxBackoff is 0.
	DefaultSessionRetryMaxBackoff = 500 * time.Millisecond
	// DefaultSessionRetryMultiplier grows each wait, when SessionRetry.Multiplier is 0.
	DefaultSessionRetryMultiplier = 5

	// Defaults of Options.RetryWith: the RetryWith branch of the .NET SDK's
	// GoneAndRetryWithRequestRetryPolicy (azure-cosmos-dotnet-v3,
	// Microsoft.Azure.Cosmos/src/direct/GoneAndRetryWithRequestRetryPolicy.cs:
	// defaultInitialBackoffTimeForRetryWithInMilliseconds 10,
	// defaultMaximumBackoffTimeForRetryWithInMilliseconds 1000, backoffMultiplier 2,
	// defaultWaitTimeInMilliSeconds 30000, no delay before the first retry; it adds a random salt
	// of up to 5 ms, which this policy does not). Java's GoneAndRetryWithRetryPolicy uses the same
	// numbers (RetryPoliciesOverview.md: 449, 30 s window, 10 ms initial, ×2, 1 s maximum).

	// DefaultRetryWithMaxWait is the most time one operation waits to retry 449 responses, when
	// RetryWith.MaxWait is 0.
	DefaultRetryWithMaxWait = 30 * time.Second
	// DefaultRetryWithInitialBackoff is the wait before the second retry of a 449 (the first is
	// immediate), when RetryWith.InitialBackoff is 0.
	DefaultRetryWithInitialBackoff = 10 * time.Millisecond
	// DefaultRetryWithMaxBackoff caps each wait, when RetryWith.MaxBackoff is 0.
	DefaultRetryWithMaxBackoff = time.Second
	// DefaultRetryWithMultiplier grows each wait, when RetryWith.Multiplier is 0.
	DefaultRetryWithMultiplier = 2
)

// Options configures [NewPipelinePolicy]. The zero value is valid: 429s retried 9 times within 30 s,
// 404/1002 sent to the write region at once, 449 retried for up to 30 s, circuit breakers at 10
// failed reads / 5 failed writes, no hedging. Regions are not options of the policy: it routes
// by the azcosmos.ClientOptions.PreferredRegions it is installed with ([PipelinePolicy.Install];
// empty: the account's region order) minus the excluded regions ([PipelinePolicy.SetExcludedRegions],
// none until set; per request, [WithExcludedRegions]). package cosmoskit sets both from its Config. Negative durations and counts are refused (see [Options.Validate]): "off" is
// spelled Disable in each feature's options.
type Options struct {
	// Disable turns the whole policy off: package cosmoskit does not install it (the SDK's own
	// retries apply unchanged), and a PipelinePolicy built with it passes every request on
	// unchanged and Install leaves the client options as they are. Default: false.
	Disable bool
	// Throttle configures the 429 retries.
	Throttle ThrottleOptions
	// SessionRetry configures in-region retries of requests answered 404 with sub-status 1002
	// (read session not available: the region's replica has not caught up with the request's
	// session token yet). Off by default (MaxWait 0): the 404/1002 goes back to azcosmos at once,
	// whose own policy retries once in the write region (single-write accounts; every region on
	// multi-write accounts), as the gateway-mode .NET and Java clients do; if that fails too the
	// caller gets an error matching cosmoserr.ErrSessionNotAvailable. With MaxWait > 0 the request
	// is first retried in its region (at once, then InitialBackoff 5 ms, ×5, capped at MaxBackoff
	// 500 ms, the last wait cut to what is left of MaxWait), as .NET's Direct-mode
	// SessionTokenMismatchRetryPolicy does before its ClientRetryPolicy: a region a little behind
	// answers locally, one far behind costs MaxWait. The budget is per operation: the write-region
	// attempts do not wait again. Measured with two regions and 300 ms of lag, 40 write-then-read
	// pairs take a few round trips each by default, about 500 ms each with MaxWait 500 ms
	// (docs/resilience.md).
	SessionRetry BackoffOptions
	// RetryWith configures the retries of requests answered 449 (RetryWith: the write conflicted
	// with a concurrent operation and was not applied), which nothing in azcosmos retries. Writes
	// are retried too: a 449 means the write was not applied. In the same region; when the budget
	// is spent the caller gets the last 449 as a *cosmoserr.Error (Retryable, with Attempts).
	// Defaults: the DefaultRetryWith constants (30 s, 10 ms, 1 s, ×2).
	RetryWith BackoffOptions
	// Breaker configures the circuit breakers.
	Breaker BreakerOptions
	// Hedging configures cross-region hedging of the client's reads (and of the operations run
	// through Hedge); off unless Hedging.Enable is set.
	Hedging HedgingOptions
	// Reporter receives every circuit breaker state change, e.g. the *diagnostics.Policy of the
	// client (which records a metric and a log record). If nil, changes are not reported.
	Reporter StateReporter
	// Clock is the time source of the throttle, session and RetryWith waits. If nil, the system
	// clock is used. (The breakers' open interval and hedge thresholds run on the system clock.)
	Clock Clock
}

// ThrottleOptions configures the retries of requests answered with 429 (request rate too large).
// Each wait is exactly the server's x-ms-retry-after-ms, cut short by the caller's context; a
// request is not retried when the next wait would pass MaxWait (counting the waits already made)
// or the context's deadline. After that the caller gets an error matching cosmoserr.ErrThrottled.
type ThrottleOptions struct {
	// MaxRetries is the number of retries after the first 429. If 0, DefaultThrottleMaxRetries (9)
	// is used. Negative values are refused: for no retries, set Disable.
	MaxRetries int
	// MaxWait is the most time spent waiting for throttled retries of one request, summed. If 0,
	// DefaultThrottleMaxWait (30 s) is used. Negative values are refused.
	MaxWait time.Duration
	// DefaultRetryAfter is the wait when a 429 carries no retry hint. If 0,
	// DefaultThrottleRetryAfter (100 ms) is used. Negative values are refused.
	DefaultRetryAfter time.Duration
	// Disable returns throttled requests to the caller at once (as cosmoserr.ErrThrottled). Default: false.
	Disable bool
}

func (o ThrottleOptions) withDefaults() ThrottleOptions {
	switch {
	case o.Disable:
		o.MaxRetries = 0
	case o.MaxRetries == 0:
		o.MaxRetries = DefaultThrottleMaxRetries
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultThrottleMaxWait
	}
	if o.DefaultRetryAfter <= 0 {
		o.DefaultRetryAfter = DefaultThrottleRetryAfter
	}
	return o
}

// BreakerOptions configures the circuit breakers, each separately for reads and writes. There is
// one per region endpoint, and one per (region, container, partition key range) for requests that
// name their range (the x-ms-documentdb-partitionkeyrangeid header).
//
// Failures are 5xx, 408, and transport errors and timeouts that are not the caller's own
// cancellation or deadline. A 4xx other than 408 and 429 is a success (404, 409, 412, 413 and the
// others show a healthy service). Nothing that says nothing about a region's health counts either
// way: 429 (throttling), the caller's cancellation or deadline, and a request that cannot be sent
// at all (a header no HTTP request may carry, such as a continuation token with a newline; it
// fails at once with an error matching cosmoserr.ErrBadRequest). A breaker opens after
// the threshold of consecutive failures; while it is open its region (or its range in that region)
// is left out of routing; after OpenInterval (wall time: the breakers are
// github.com/sony/gobreaker/v2 TwoStepCircuitBreakers, which read time.Now) it lets probe requests
// through (half-open), and closes again when they succeed. The breakers order routes and never
// refuse the last one: when every region a request may go to is open, the request is sent at once
// to the one whose breaker opened least recently, without asking its breaker (so its outcome is
// not counted; a read that fails there is final, and that route goes to the back of the order, so
// the next request tries another). An account with one region, or writes to the single write
// region, are never failed fast.
type BreakerOptions struct {
	// ReadFailureThreshold is the number of consecutive failed reads that opens a breaker. If 0,
	// DefaultReadFailureThreshold (10) is used (to turn breakers off, set Disable).
	ReadFailureThreshold int
	// WriteFailureThreshold is the same for writes. If 0, DefaultWriteFailureThreshold (5).
	WriteFailureThreshold int
	// OpenInterval is how long a breaker stays open before it lets probes through. If 0,
	// DefaultOpenInterval (30 s) is used.
	OpenInterval time.Duration
	// HalfOpenProbes is the number of requests let through while half-open; that many successes
	// close the breaker, one failure opens it again. If 0, 1 is used.
	HalfOpenProbes int
	// Disable turns the circuit breakers off. Default: false.
	Disable bool
}

func (o BreakerOptions) withDefaults() BreakerOptions {
	if o.ReadFailureThreshold <= 0 {
		o.ReadFailureThreshold = DefaultReadFailureThreshold
	}
	if o.WriteFailureThreshold <= 0 {
		o.WriteFailureThreshold = DefaultWriteFailureThreshold
	}
	if o.OpenInterval <= 0 {
		o.OpenInterval = DefaultOpenInterval
	}
	if o.HalfOpenProbes <= 0 {
		o.HalfOpenProbes = 1
	}
	return o
}

// HedgingOptions configures cross-region hedging (the other SDKs' availability strategy). With
// Enable, the policy hedges every document read of the client by itself, as .NET's availability
// strategy does: point reads, queries (so ReadMany, cross-partition pages, vector and text
// searches) and read-all pages. When a read has no final answer after Threshold, the same request
// is sent to the next region of the effective order (regions with an open breaker left out), then
// to the one after every Step, and at once after a request that failed transiently; the first
// final answer wins (a success, or a response that is not transient: statuses below 500 except
// 408, 404/1002, 410, 429 and 449) and the other requests are cancelled before the read returns.
// The hedges are sent from the transport Install wraps (see [PipelinePolicy.HedgeStats]). Change
// feed reads, metadata and writes are never hedged by the policy. [Hedge] runs a caller's own
// operation with the same options, each attempt a whole operation pinned to its region (and runs
// document writes, on multi-write accounts, only with Writes). Per request, [WithHedging] and
// [WithoutHedging] override the options. Hedging needs at least two regions to go to.
type HedgingOptions struct {
	// Enable turns hedging on. Off by default.
	Enable bool
	// Threshold is the wait before the first hedge. If 0, DefaultHedgeThreshold (500 ms).
	Threshold time.Duration
	// Step is the wait between further hedges. If 0, DefaultHedgeStep (100 ms).
	Step time.Duration
	// Writes lets Hedge run document writes, on multi-write accounts only (expect extra 409s and
	// 412s). Otherwise a write passed to Hedge fails before anything is sent.
	Writes bool
}

func (o HedgingOptions) withDefaults() HedgingOptions {
	if o.Threshold <= 0 {
		o.Threshold = DefaultHedgeThreshold
	}
	if o.Step <= 0 {
		o.Step = DefaultHedgeStep
	}
	return o
}

// StateReporter receives circuit breaker state changes. *diagnostics.Policy implements it.
type StateReporter interface {
	// CircuitBreakerStateChanged is called when the breaker named name moved from one state to
	// another ("closed", "half-open", "open").
	CircuitBreakerStateChanged(ctx context.Context, name, from, to string)
}

// BackoffOptions configures retries with exponential backoff in the same region. The first retry is
// immediate, the second waits InitialBackoff, and each later wait is the previous one times
// Multiplier, capped at MaxBackoff. Retrying stops when the next wait would take the waits of the
// operation so far past MaxWait, or past the context's deadline. MaxWait sums the waits (on
// Options.Clock) rather than measuring wall time as the .NET SDK does, so that tests can drive it.
type BackoffOptions struct {
	// MaxWait is the most time spent waiting, summed over the retries of one operation. If 0, the
	// field's documented default. Negative values are refused (for no retries, set Disable).
	MaxWait time.Duration
	// InitialBackoff is the wait before the second retry. If 0, the default.
	InitialBackoff time.Duration
	// MaxBackoff caps each wait. If 0, the default.
	MaxBackoff time.Duration
	// Multiplier grows the waits: 0 means the default, otherwise at least 1.
	Multiplier float64
	// Disable turns these retries off: the response goes back as it came. Default: false.
	Disable bool
}

func (o BackoffOptions) withDefaults(maxWait, initial, maxBackoff time.Duration, multiplier float64) BackoffOptions {
	if o.MaxWait == 0 {
		o.MaxWait = maxWait
	}
	if o.InitialBackoff <= 0 {
		o.InitialBackoff = initial
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = maxBackoff
	}
	if o.Multiplier < 1 {
		o.Multiplier = multiplier
	}
	return o
}

// Validate reports the first field of o that [NewPipelinePolicy] refuses, as a
// *cosmoserr.ValidationError naming it (for example "Options.Throttle.MaxWait"): negative counts
// and durations, a backoff Multiplier below 1 other than 0. A disabled
// feature's fields are still checked.
func (o Options) Validate() error {
	bad := func(field, reason string) error {
		return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "Options." + field, Reason: reason}
	}
	negative := "is negative; 0 means the default"
	type check struct {
		field string
		v     int64
	}
	for _, c := range []check{
		{"Throttle.MaxRetries", int64(o.Throttle.MaxRetries)},
		{"Throttle.MaxWait", int64(o.Throttle.MaxWait)},
		{"Throttle.DefaultRetryAfter", int64(o.Throttle.DefaultRetryAfter)},
		{"Breaker.ReadFailureThreshold", int64(o.Breaker.ReadFailureThreshold)},
		{"Breaker.WriteFailureThreshold", int64(o.Breaker.WriteFailureThreshold)},
		{"Breaker.OpenInterval", int64(o.Breaker.OpenInterval)},
		{"Breaker.HalfOpenProbes", int64(o.Breaker.HalfOpenProbes)},
		{"Hedging.Threshold", int64(o.Hedging.Threshold)},
		{"Hedging.Step", int64(o.Hedging.Step)},
	} {
		if c.v < 0 {
			return bad(c.field, negative)
		}
	}
	for _, b := range []struct {
		name string
		o    BackoffOptions
	}{{"SessionRetry", o.SessionRetry}, {"RetryWith", o.RetryWith}} {
		switch {
		case b.o.MaxWait < 0:
			return bad(b.name+".MaxWait", negative+"; set Disable for no retries")
		case b.o.InitialBackoff < 0:
			return bad(b.name+".InitialBackoff", negative)
		case b.o.MaxBackoff < 0:
			return bad(b.name+".MaxBackoff", negative)
		case math.IsNaN(b.o.Multiplier) || math.IsInf(b.o.Multiplier, 0) || (b.o.Multiplier != 0 && b.o.Multiplier < 1):
			return bad(b.name+".Multiplier", "is below 1 or not a number; 0 means the default")
		}
	}
	return nil
}
