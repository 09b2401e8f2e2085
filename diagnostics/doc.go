// Package diagnostics makes every Azure Cosmos DB call made through azcosmos visible, as
// OpenTelemetry spans and metrics, slog records, and a request-unit [Meter]. It gives an
// OpenTelemetry span and metrics per operation with the current database semantic conventions
// (request charge, status, sub-status, region included), slog records for failed, slow and
// expensive calls carrying the SDK's diagnostics string, and a context-scoped request-unit
// [Meter]. The error model (the typed error, the sentinels, FromError, IsRetryable, IsTimeout)
// is package cosmoserr's.
//
// Install [NewPolicy] as a per-call policy and [NewAttemptPolicy] as a per-retry policy on
// azcosmos.ClientOptions (package cosmoskit does this for you):
//
//	p, err := diagnostics.NewPolicy(diagnostics.Options{TracerProvider: tp, MeterProvider: mp, Logger: slog.Default()})
//	opts := &azcosmos.ClientOptions{}
//	opts.PerCallPolicies = append(opts.PerCallPolicies, p)
//	opts.PerRetryPolicies = append(opts.PerRetryPolicies, diagnostics.NewAttemptPolicy())
//	opts.TracingProvider = diagnostics.TracingProvider(tp) // the SDK's HTTP spans join the same trace
//
// Then:
//   - [WithMeter] tells a unit of work (an HTTP handler, a job) how many request units and calls
//     it spent;
//   - [cosmoserr.FromError] turns what azcosmos returns into a [*cosmoserr.Error] that matches [cosmoserr.ErrNotFound],
//     [cosmoserr.ErrConflict], [cosmoserr.ErrPreconditionFailed], [cosmoserr.ErrThrottled] and the other sentinels with
//     errors.Is, still unwraps to *azcore.ResponseError, and carries the activity id, request
//     charge, retry-after and the SDK's diagnostics; [cosmoserr.IsRetryable] and
//     [cosmoserr.IsTimeout] classify any error;
//   - [Policy.StartOperation] spans a logical operation made of several calls.
//
// With no providers and no logger the policy only feeds [Meter]s and costs a few allocations per
// call: four with a meter in the context, none without (azcore's pipeline adds one per installed
// policy either way). Nothing is read from the global OpenTelemetry
// providers: pass otel.GetTracerProvider() and otel.GetMeterProvider() to use them. Nothing the
// package records or logs contains the account key, request headers or query parameter values;
// query text is recorded only with Options.CaptureQueryText.
//
// Of cosmoskit's packages it imports only cosmoserr (and internal ones).
package diagnostics
