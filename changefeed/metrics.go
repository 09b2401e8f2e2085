package changefeed

import (
	"context"
	"maps"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// metrics are the processor's OpenTelemetry instruments; the zero value (no MeterProvider)
// records nothing.
type metrics struct {
	items  metric.Int64Counter
	charge metric.Float64Counter
	reg    metric.Registration
	base   attribute.KeyValue
}

func newMetrics(p *Processor) (*metrics, error) {
	m := &metrics{base: attribute.String("cosmoskit.changefeed.processor", p.name)}
	if p.opts.MeterProvider == nil {
		return m, nil
	}
	meter := p.opts.MeterProvider.Meter("github.com/cosmoskit/cosmoskit-go/changefeed")
	var err error
	if m.items, err = meter.Int64Counter("cosmoskit.changefeed.items", metric.WithUnit("{change}"),
		metric.WithDescription("Changes handled successfully.")); err != nil {
		return nil, err
	}
	if m.charge, err = meter.Float64Counter("cosmoskit.changefeed.request_charge", metric.WithUnit("{request_unit}"),
		metric.WithDescription("Request units of the change feed reads of handled batches.")); err != nil {
		return nil, err
	}
	lag, err := meter.Int64ObservableGauge("cosmoskit.changefeed.lag", metric.WithUnit("{change}"),
		metric.WithDescription("Estimated changes not yet read, per lease held, as of its last read."))
	if err != nil {
		return nil, err
	}
	m.reg, err = meter.RegisterCallback(func(_ context.Context, obs metric.Observer) error {
		p.mu.Lock()
		held := slices.Collect(maps.Values(p.owned))
		p.mu.Unlock()
		for _, o := range held {
			obs.ObserveInt64(lag, o.lag.Load(), metric.WithAttributes(m.base, attribute.String("cosmoskit.changefeed.lease", o.tok)))
		}
		return nil
	}, lag)
	return m, err
}

func (m *metrics) batch(ctx context.Context, token string, items int, charge float32) {
	if m == nil || m.items == nil {
		return
	}
	attrs := metric.WithAttributes(m.base, attribute.String("cosmoskit.changefeed.lease", token))
	m.items.Add(ctx, int64(items), attrs)
	m.charge.Add(ctx, float64(charge), attrs)
}

func (m *metrics) close() {
	if m != nil && m.reg != nil {
		_ = m.reg.Unregister()
	}
}
