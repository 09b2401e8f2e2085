package diagnostics

import (
	"log/slog"
	"math"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"

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
// [Meter]s are fed), with the default thresholds. [Policy.Options] returns the options in effect.
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
	// read, replace, patch, delete) is logged as slow with its full diagnostics; time it waited for a
	// client-side throughput group's budget (package throughput) does not count. Default (0):
	// DefaultPointLatencyThreshold (1 s); negative is refused. To log no slow operations, set
	// DisableLatencyLog.
	PointLatencyThreshold time.Duration
	// NonPointLatencyThreshold is the same threshold for every other operation (query pages,
	// batches, change feed, metadata). Default (0): DefaultNonPointLatencyThreshold (3 s); negative
	// is refused.
	NonPointLatencyThreshold time.Duration
	// DisableLatencyLog turns off the slow-operation log records. Default: false.
	DisableLatencyLog bool
	// RequestChargeThreshold is the request charge (RU) above which an operation is logged as
	// expensive with its full diagnostics. Default (0): charges are not logged; negative or NaN is
	// refused.
	RequestChargeThreshold float64

	// CaptureQueryText records the query text of query operations as db.query.text on spans and
	// in log records. Parameter values are never captured. Off by default.
	CaptureQueryText bool

	// Scan configures the detection of query pages that retrieve many documents for few results
	// (see [ScanOptions]); the zero value is the default thresholds, on.
	Scan ScanOptions
	// Disable turns diagnostics off: cosmoskit.New installs neither policy (no spans, metrics,
	// logs, Stats or Meters), and a Policy built with it passes every request through untouched.
	// Default: false.
	Disable bool
}

// validate refuses values that are neither the zero default nor usable.
func (o Options) validate() error {
	bad := func(field, reason string) error {
		return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "Options." + field, Reason: reason}
	}
	switch {
	case o.PointLatencyThreshold < 0:
		return bad("PointLatencyThreshold", "must not be negative (0 means the default, 1s; DisableLatencyLog turns the log off)")
	case o.NonPointLatencyThreshold < 0:
		return bad("NonPointLatencyThreshold", "must not be negative (0 means the default, 3s; DisableLatencyLog turns the log off)")
	case o.RequestChargeThreshold < 0 || math.IsNaN(o.RequestChargeThreshold):
		return bad("RequestChargeThreshold", "must be a number, 0 or more (0 logs no charges)")
	case o.Scan.MinRetrieved < 0:
		return bad("Scan.MinRetrieved", "must not be negative (0 means the default, 100; Scan.Disable turns detection off)")
	case o.Scan.Ratio < 0 || math.IsNaN(o.Scan.Ratio):
		return bad("Scan.Ratio", "must be a number, 0 or more (0 means the default, 10)")
	case o.Scan.MaxShapes < 0:
		return bad("Scan.MaxShapes", "must not be negative (0 means the default, 1000)")
	}
	return nil
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
