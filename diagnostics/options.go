package diagnostics

import (
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Default thresholds, as in the .NET SDK's CosmosThresholdOptions.
const (
	// DefaultPointLatencyThreshold is the slow-call threshold of item point operations.
	DefaultPointLatencyThreshold = time.Second
	// DefaultNonPointLatencyThreshold is the slow-call threshold of every other operation.
	DefaultNonPointLatencyThreshold = 3 * time.Second
)

// Options configures [NewPolicy]. The zero value is valid: no spans, no metrics, no logs (only
// [Meter]s are fed), with the default thresholds.
//
// With none of TracerProvider, MeterProvider and Logger set, the policy does nothing for a request
// whose context carries no [Meter]: it records no [Stats] for it, so [StatsFromContext] returns
// false and the retry layer's throttle waits are not recorded. Set one of them, or call with a
// [WithMeter] context, to get Stats for every call.
type Options struct {
	// TracerProvider receives one client span per operation. If nil, no spans are created (pass
	// otel.GetTracerProvider() to use the global provider).
	TracerProvider trace.TracerProvider
	// MeterProvider receives the operation metrics. If nil, no metrics are recorded (pass
	// otel.GetMeterProvider() to use the global provider).
	MeterProvider metric.MeterProvider
	// Logger receives failed operations (once each), slow and expensive operations. If nil,
	// nothing is logged.
	Logger *slog.Logger

	// PointLatencyThreshold is the duration above which an item point operation (create, upsert,
	// read, replace, patch, delete) is logged as slow with its full diagnostics. If 0 or negative,
	// DefaultPointLatencyThreshold (1 s) is used; to log no slow operations, set DisableLatencyLog.
	PointLatencyThreshold time.Duration
	// NonPointLatencyThreshold is the same threshold for every other operation (query pages,
	// batches, change feed, metadata). If 0 or negative, DefaultNonPointLatencyThreshold (3 s) is
	// used.
	NonPointLatencyThreshold time.Duration
	// DisableLatencyLog turns off the slow-operation log records.
	DisableLatencyLog bool
	// RequestChargeThreshold is the request charge (RU) above which an operation is logged as
	// expensive with its full diagnostics. If 0 or negative, charges are not logged (the default).
	RequestChargeThreshold float64

	// CaptureQueryText records the query text of query operations as db.query.text on spans and
	// in log records. Parameter values are never captured. Off by default.
	CaptureQueryText bool

	// Scan configures the detection of query pages that retrieve many documents for few results
	// (see [ScanOptions]); the zero value is the default thresholds, on.
	Scan ScanOptions
}

func (o Options) pointThreshold() time.Duration {
	if o.PointLatencyThreshold > 0 {
		return o.PointLatencyThreshold
	}
	return DefaultPointLatencyThreshold
}

func (o Options) nonPointThreshold() time.Duration {
	if o.NonPointLatencyThreshold > 0 {
		return o.NonPointLatencyThreshold
	}
	return DefaultNonPointLatencyThreshold
}
