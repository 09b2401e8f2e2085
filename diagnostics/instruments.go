package diagnostics

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// durationBuckets are the bucket boundaries the conventions advise for db.client.operation.duration.
var durationBuckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10}

// chargeBuckets cover a 1 RU point read up to multi-thousand RU queries.
var chargeBuckets = []float64{1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 5000}

type instruments struct {
	duration     metric.Float64Histogram
	charge       metric.Float64Histogram
	throttles    metric.Int64Counter
	throttleWait metric.Float64Counter
	retries      metric.Int64Counter
	breaker      metric.Int64Counter
	query        queryInstruments // scan.go
}

func newInstruments(mp metric.MeterProvider) (*instruments, error) {
	m := mp.Meter(instrumentationName, metric.WithSchemaURL(semconv.SchemaURL))
	var in instruments
	var err, e error
	in.duration, e = m.Float64Histogram(MetricOperationDuration,
		metric.WithDescription("Duration of database client operations."),
		metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(durationBuckets...))
	err = errors.Join(err, e)
	in.charge, e = m.Float64Histogram(MetricRequestCharge,
		metric.WithDescription("Request units consumed by the operation."),
		metric.WithUnit("{request_unit}"), metric.WithExplicitBucketBoundaries(chargeBuckets...))
	err = errors.Join(err, e)
	in.throttles, e = m.Int64Counter(MetricThrottles,
		metric.WithDescription("Attempts answered with 429 (request rate too large), retried or not."),
		metric.WithUnit("{request}"))
	err = errors.Join(err, e)
	in.throttleWait, e = m.Float64Counter(MetricThrottleWait,
		metric.WithDescription("Time waited before retrying throttled attempts."),
		metric.WithUnit("s"))
	err = errors.Join(err, e)
	in.retries, e = m.Int64Counter(MetricRetries,
		metric.WithDescription("HTTP attempts beyond the first of each operation."),
		metric.WithUnit("{request}"))
	err = errors.Join(err, e)
	in.breaker, e = m.Int64Counter(MetricCircuitBreakerStateChanges,
		metric.WithDescription("Circuit breaker state changes."),
		metric.WithUnit("{change}"))
	err = errors.Join(err, e)
	in.query, e = newQueryInstruments(m)
	err = errors.Join(err, e)
	return &in, err
}

func (in *instruments) record(ctx context.Context, op wire.Operation, out *outcome, d time.Duration) {
	attrs := make([]attribute.KeyValue, 0, 10)
	attrs = append(attrs,
		attribute.String(keySystemName, valSystemName),
		attribute.String(keyOperation, op.Name),
		attribute.String(keyServerAddress, out.host),
	)
	if op.Database != "" {
		attrs = append(attrs, attribute.String(keyNamespace, op.Database))
	}
	if op.Container != "" {
		attrs = append(attrs, attribute.String(keyCollection, op.Container))
	}
	if out.consistency != "" {
		attrs = append(attrs, attribute.String(keyConsistency, out.consistency))
	}
	if out.port > 0 {
		attrs = append(attrs, attribute.Int(keyServerPort, out.port))
	}
	if len(out.regions) > 0 {
		attrs = append(attrs, attribute.StringSlice(keyContactedRegions, out.regions))
	}
	if out.status != 0 {
		attrs = append(attrs, attribute.String(keyStatusCode, out.statusString()),
			attribute.Int(keySubStatus, out.sub))
	}
	// Build the set without error.type first: attribute.NewSet may reorder its argument in place.
	if out.throttles > 0 || out.attempts > 1 || out.throttleWait > 0 {
		plain := metric.WithAttributeSet(attribute.NewSet(attrs...))
		if out.throttles > 0 {
			in.throttles.Add(ctx, int64(out.throttles), plain)
		}
		if out.throttleWait > 0 {
			in.throttleWait.Add(ctx, out.throttleWait.Seconds(), plain)
		}
		if out.attempts > 1 {
			in.retries.Add(ctx, int64(out.attempts-1), plain)
		}
	}
	if et := out.errorType(); et != "" {
		attrs = append(attrs, attribute.String(keyErrorType, et))
	}
	set := metric.WithAttributeSet(attribute.NewSet(attrs...))
	in.duration.Record(ctx, d.Seconds(), set)
	in.charge.Record(ctx, out.charge, set)
}
