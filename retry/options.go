package retry

import (
	"context"
	"time"
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

	// Defaults of Options.SessionRetry: the backoff of the .NET SDK's
	// SessionTokenMismatchRetryPolicy (azure-cosmos-dotnet-v3,
	// Microsoft.Azure.Cosmos/src/direct/SessionTokenMismatchRetryPolicy.cs:
	// defaultInitialBackoffTimeInMilliSeconds 5, defaultMaximumBackoffTimeInMilliseconds 500,
	// backoffMultiplier 5, no delay before the first retry) within a shorter window: .NET's 5 s
	// window (defaultWaitTimeInMilliSeconds 5000; Java's the same, RetryPoliciesOverview.md) belongs
	// to Direct mode, where the SDK talks to replicas. In Gateway mode, the only mode azcosmos has,
	// the gateway has already waited for its replicas before answering 404/1002, and the .NET and
	// Java clients go straight to ClientRetryPolicy (the write region). cosmoskit waits in the
	// region for at most 500 ms (Java's CosmosSessionRetryOptions minimum in-region time before
	// switching regions) so that a region a little behind still answers locally, and one far
	// behind costs half a second before the write region answers. Set SessionRetry.MaxWait to 5 s
	// for .NET's Direct-mode window, or SessionRetry.Disable for the gateway-mode SDKs' behaviour.

	// DefaultSessionRetryMaxWait is the most time one operation waits in a region for it to catch
	// up with its session token (404/1002), when SessionRetry.MaxWait is 0.
	DefaultSessionRetryMaxWait = 500 * time.Millisecond
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
// 404/1002 retried in the region for up to 500 ms, 449 retried for up to 30 s, circuit breakers at 10
// failed reads / 5 failed writes, no excluded regions, no hedging, reads routed in the account's
// region order.
type Options struct {
	// PreferredRegions is the order in which reads (and writes, on a multi-write account) try
	// the account's regions; pass the same list as azcosmos.ClientOptions.PreferredRegions.
	// Names are compared like the SDK does (case and spaces ignored); names the account does not
	// have are skipped. If empty, the account's readable regions in the account's order are used
	// (the SDK itself, without PreferredRegions, reads from the first region only).
	PreferredRegions []string
	// ExcludedRegions are kept out of routing for every request. Change them at runtime with
	// (*PipelinePolicy).SetExcludedRegions; per request, see WithExcludedRegions.
	ExcludedRegions []string
	// Throttle configures the 429 retries.
	Throttle ThrottleOptions
	// SessionRetry configures the in-region retries of requests answered 404 with sub-status
	// 1002 (read session not available: the region's replica has not caught up with the request's
	// session token yet). They come first, as in the .NET and Java SDKs, where
	// SessionTokenMismatchRetryPolicy waits in the region before ClientRetryPolicy moves on: when
	// this budget is spent the 404/1002 goes back to azcosmos, whose own policy retries once in
	// the write region (single-write accounts; every region on multi-write accounts), and if that
	// fails too the caller gets an error matching cosmoserr.ErrSessionNotAvailable. The budget is
	// per operation: the write-region attempts do not wait again. Defaults: the
	// DefaultSessionRetry constants (500 ms, 5 ms, 500 ms, ×5; the last wait is cut to
	// what is left of MaxWait).
	SessionRetry BackoffOptions
	// RetryWith configures the retries of requests answered 449 (RetryWith: the write conflicted
	// with a concurrent operation and was not applied), which nothing in azcosmos retries. Writes
	// are retried too: a 449 means the write was not applied. In the same region; when the budget
	// is spent the caller gets the last 449 as a *cosmoserr.Error (Retryable, with Attempts).
	// Defaults: the DefaultRetryWith constants (30 s, 10 ms, 1 s, ×2).
	RetryWith BackoffOptions
	// Breaker configures the circuit breakers.
	Breaker BreakerOptions
	// Hedging configures cross-region hedging of the operations run through Hedge; off unless
	// Hedging.Enable is set.
	Hedging HedgingOptions
	// Reporter receives every circuit breaker state change, e.g. the *diagnostics.Policy of the
	// client (which records a metric and a log record). If nil, changes are not reported.
	Reporter StateReporter
	// Clock is the time source of the throttle waits and of the circuit breakers' open interval.
	// If nil, the system clock is used. (Hedge thresholds always run on the system clock.)
	Clock Clock
	// Disable turns the whole policy off: cosmoskit.New installs none (azcore's own retries,
	// 429s included, apply unchanged, and excluded regions are only recorded), Install adds
	// nothing, and a PipelinePolicy built with it passes every request through. Default: false.
	Disable bool
}

// ThrottleOptions configures the retries of requests answered with 429 (request rate too large).
// Each wait is exactly the server's x-ms-retry-after-ms, cut short by the caller's context; a
// request is not retried when the next wait would pass MaxWait (counting the waits already made)
// or the context's deadline. After that the caller gets an error matching ErrThrottled.
type ThrottleOptions struct {
	// MaxRetries is the number of retries after the first 429. If 0, DefaultThrottleMaxRetries (9)
	// is used. A negative value means no retries, as azcore's RetryOptions.MaxRetries -1 does; say
	// so with DisableRetries instead.
	MaxRetries int
	// MaxWait is the most time spent waiting for throttled retries of one request, summed. If 0,
	// DefaultThrottleMaxWait (30 s) is used; a negative budget allows no waiting, so no retries.
	MaxWait time.Duration
	// DefaultRetryAfter is the wait when a 429 carries no retry hint. If 0 or negative,
	// DefaultThrottleRetryAfter (100 ms) is used.
	DefaultRetryAfter time.Duration
	// DisableRetries returns throttled requests to the caller at once (as ErrThrottled).
	DisableRetries bool
}

func (o ThrottleOptions) withDefaults() ThrottleOptions {
	switch {
	case o.DisableRetries, o.MaxRetries < 0, o.MaxWait < 0:
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

// BreakerOptions configures the circuit breakers: one per region endpoint, and one per
// (region, container, partition key range) for requests that name their range (the
// x-ms-documentdb-partitionkeyrangeid header), each separately for reads and writes.
//
// Failures are 5xx, 408, and transport errors and timeouts that are not the caller's own
// cancellation or deadline. A 4xx other than 408 and 429 is a success (404, 409, 412, 413 and the
// others show a healthy service). Nothing that says nothing about a region's health counts either
// way: 429 (throttling), the caller's cancellation or deadline, and a request that cannot be sent
// at all (a header no HTTP request may carry, such as a continuation token with a newline; it
// fails at once with an error matching diagnostics.ErrBadRequest). A breaker opens after
// the threshold of consecutive failures; while it is open its region (or its range in that region)
// is left out of routing; after OpenInterval (on Options.Clock) it lets probe requests through
// (half-open), and closes again when they succeed. The breakers never refuse every route: when
// every region a request may go to is open, the one whose breaker opened first is tried at once,
// half-open (a read that fails there is final; the next request tries the next one), so an account
// with one region, or writes to the single write region, are never failed fast.
type BreakerOptions struct {
	// ReadFailureThreshold is the number of consecutive failed reads that opens a breaker. If 0 or
	// negative, DefaultReadFailureThreshold (10) is used (to turn breakers off, set Disable).
	ReadFailureThreshold int
	// WriteFailureThreshold is the same for writes. If 0 or negative, DefaultWriteFailureThreshold (5).
	WriteFailureThreshold int
	// OpenInterval is how long a breaker stays open before it lets probes through. If 0 or
	// negative, DefaultOpenInterval (30 s) is used.
	OpenInterval time.Duration
	// HalfOpenProbes is the number of requests let through while half-open; that many successes
	// close the breaker, one failure opens it again. If 0 or negative, 1 is used.
	HalfOpenProbes int
	// Disable turns the circuit breakers off.
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

// HedgingOptions configures cross-region hedging (the other SDKs' availability strategy) of the
// operations run through [Hedge]: when a read has no final answer after Threshold, the same read is
// run again pinned to the next region in the effective order, then to the one after every Step.
// The first final answer wins (a success, or an error diagnostics.IsRetryable rejects: statuses
// below 500 except 408, 404/1002, 410, 429 and 449, as in .NET's hedging) and the other attempts are
// cancelled. A hedged attempt does not fail over on its own; an attempt that fails transiently
// makes the next hedge start at once. Hedging needs at least two regions to go to. Requests sent
// without Hedge are never hedged.
type HedgingOptions struct {
	// Enable turns hedging on. Off by default.
	Enable bool
	// Threshold is the wait before the first hedge. If 0 or negative, DefaultHedgeThreshold (500 ms).
	Threshold time.Duration
	// Step is the wait between further hedges. If 0 or negative, DefaultHedgeStep (100 ms).
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

// BackoffOptions configures retries with exponential backoff in the same region: the first retry
// is immediate, the second waits InitialBackoff, and each later wait is the previous one times
// Multiplier, capped at MaxBackoff. Retrying stops when the next wait would take the waits of the
// operation so far past MaxWait, or past the context's deadline. MaxWait sums the waits (on
// Options.Clock) rather than measuring wall time as the .NET SDK does, so that tests can drive it.
type BackoffOptions struct {
	// MaxWait is the most time spent waiting, summed over the retries of one operation. If 0, the
	// field's documented default; a negative value allows no retry at all.
	MaxWait time.Duration
	// InitialBackoff is the wait before the second retry. If 0 or negative, the default.
	InitialBackoff time.Duration
	// MaxBackoff caps each wait. If 0 or negative, the default.
	MaxBackoff time.Duration
	// Multiplier grows the waits. If below 1, the default.
	Multiplier float64
	// Disable turns these retries off: the response goes back as it came.
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
