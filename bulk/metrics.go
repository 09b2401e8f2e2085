package bulk

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// metrics are the OpenTelemetry instruments of an Executor.
type metrics struct {
	ops    metric.Int64Counter
	charge metric.Float64Counter
}

var (
	outcomeOK     = metric.WithAttributeSet(attribute.NewSet(attribute.String("outcome", "success")))
	outcomeFailed = metric.WithAttributeSet(attribute.NewSet(attribute.String("outcome", "failure")))
)

func newMetrics(mp metric.MeterProvider) (*metrics, error) {
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter("github.com/cosmoskit/cosmoskit-go/bulk")
	ops, err := m.Int64Counter("cosmoskit.bulk.operations", metric.WithUnit("{operation}"),
		metric.WithDescription("Bulk operations completed, by outcome (success, failure)."))
	if err != nil {
		return nil, err
	}
	charge, err := m.Float64Counter("cosmoskit.bulk.request_charge", metric.WithUnit("{RU}"),
		metric.WithDescription("Request units consumed by bulk operations."))
	if err != nil {
		return nil, err
	}
	return &metrics{ops: ops, charge: charge}, nil
}

func (m *metrics) operation(ctx context.Context, res Result) {
	ctx = context.WithoutCancel(ctx)
	if res.Err == nil {
		m.ops.Add(ctx, 1, outcomeOK)
	} else {
		m.ops.Add(ctx, 1, outcomeFailed)
	}
	if res.RequestCharge > 0 {
		m.charge.Add(ctx, res.RequestCharge)
	}
}
