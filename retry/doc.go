// Package retry keeps Azure Cosmos DB calls working through throttling, replication lag and
// regional outages: 429 retries, circuit breakers, region routing and hedging. It is cosmoskit's
// resilience layer: it gives the azcosmos client what the .NET, Java and Python SDKs have and the
// Go SDK lacks, as one azcore pipeline policy ([PipelinePolicy]), plus an application-level retry
// helper ([Do]).
//
// # The pipeline policy
//
//	p, err := retry.NewPipelinePolicy(retry.Options{})
//	opts := &azcosmos.ClientOptions{PreferredRegions: []string{"East US", "West US"}}
//	p.Install(opts) // routes by opts.PreferredRegions; package cosmoskit does this for you
//	client, _ := azcosmos.NewClientWithKey(endpoint, cred, opts)
//
// What it does for every request:
//
//   - 429 retries ([ThrottleOptions]): up to 9 retries and 30 s of cumulative waiting per
//     operation, each wait exactly the server's x-ms-retry-after-ms, cut short by the context, and
//     no retry when the next wait would pass the budget or the deadline. Then an error matching
//     [cosmoserr.ErrThrottled]: a *cosmoserr.Error with status, sub-status, activity id, request charge,
//     last retry-after and attempts, which unwraps to the *azcore.ResponseError. Throttles and
//     waits are reported to package diagnostics.
//   - 404/1002 and 449 ([Options].SessionRetry, [Options].RetryWith, [BackoffOptions]): a read
//     whose region has not caught up with its session token goes to the write region at once, as
//     in the gateway-mode .NET and Java clients (with SessionRetry.MaxWait set, it is first
//     retried in its region with .NET's SessionTokenMismatchRetryPolicy backoff); a 449 RetryWith,
//     which nothing in azcosmos retries, is retried in the region, writes included (at once, then
//     10 ms ×2 up to 1 s, 30 s of waits), then returned as a final *cosmoserr.Error.
//   - Circuit breakers ([BreakerOptions]): per region endpoint, and per partition key range in a
//     region for requests that name their range ([WithPartitionKeyRange]); reads open after 10
//     consecutive failures, writes after 5; 5xx, 408 and transport errors are failures, other 4xx
//     are not, and 429, the caller's cancellation or deadline and requests that cannot be sent
//     are not counted. The breakers are github.com/sony/gobreaker/v2 TwoStepCircuitBreakers. An
//     open breaker takes its region (or range) out of routing for the open interval until a probe
//     succeeds; when every candidate is open, the request goes to the least recently opened one
//     without asking its breaker: the breakers order routes but never refuse the last one.
//   - Regions: the effective order is the preferred regions minus the client's excluded regions
//     ([PipelinePolicy.SetExcludedRegions], changeable at runtime) and the request's
//     ([WithExcludedRegions]); when everything is excluded, the write region. Reads fail over along
//     that order at once, with no sleeps.
//   - Hedging ([HedgingOptions], off by default, per request with [WithHedging]): with it on,
//     every document read of the client (point reads, query pages, so ReadMany and the
//     cross-partition, vector and text searches; not the change feed) with no final answer after a
//     threshold is sent again to the next region, from the transport Install wraps, so that the
//     requests of one read share no pipeline state; the first final answer wins and the others are
//     cancelled ([PipelinePolicy.HedgeStats] counts them). Writes are never hedged by the policy.
//     [Hedge] does the same for a caller's own operation, each attempt pinned to a region through
//     the context (writes only when asked, on multi-write accounts).
//
// azcosmos fixes its routing when the client is built, and keeping one client per account is
// the SDK's guidance. The policy therefore runs after the SDK's own region retry policy and
// rewrites only the request's host to the region it chose (the request signature does not cover
// the host), learning the account's regions and endpoints from the account metadata the SDK reads
// through the same pipeline. See [PipelinePolicy] for who retries what, so that there is one
// retry layer.
//
// # Application-level retries
//
// [Do] repeats a whole unit of work, such as read, modify, replace with If-Match, while it fails
// with a retryable error (412 and transient failures by default), with exponential backoff that
// honours the context and the server's retry hints.
//
// The package imports cosmoserr and none of cosmoskit's other packages (its tests use diagnostics).
package retry
