// Package diagnostics makes every Azure Cosmos DB call made through azcosmos visible: an
// OpenTelemetry span and metrics per operation with the current database semantic conventions,
// slog records for failed, slow and expensive calls carrying the SDK's diagnostics string, a
// context-scoped request-unit [Meter], and the typed [Error] that every cosmoskit package returns.
//
// Install [NewPolicy] as a per-call policy and [NewAttemptPolicy] as a per-retry policy on
// azcosmos.ClientOptions (package cosmoskit does this for you):
//
//	p := diagnostics.NewPolicy(diagnostics.Options{TracerProvider: tp, MeterProvider: mp, Logger: slog.Default()})
//	opts := &azcosmos.ClientOptions{}
//	opts.PerCallPolicies = append(opts.PerCallPolicies, p)
//	opts.PerRetryPolicies = append(opts.PerRetryPolicies, diagnostics.NewAttemptPolicy())
//	opts.TracingProvider = diagnostics.TracingProvider(tp) // the SDK's HTTP spans join the same trace
//
// With no providers and no logger the policy only feeds [Meter]s and costs a few allocations per call.
// The package imports none of cosmoskit's other packages.
package diagnostics
