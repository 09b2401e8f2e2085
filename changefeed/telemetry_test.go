package changefeed_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// Every batch is a span through diagnostics with its items and lag; the items counter adds up to
// the changes handled; the lag gauges report per lease.
func TestBatchSpansAndMetrics(t *testing.T) {
	e := newEnv(t, 2)
	writeConcurrently(t, e, 0, 120, 2)
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })

	tl := newTally()
	o := fast()
	diag, err := diagnostics.NewPolicy(diagnostics.Options{TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	o.Diagnostics = diag
	o.MeterProvider = mp
	p := newProc(t, e, "a", tl.handle, o)
	waitFor(t, "120 changes", 10*time.Second, func() bool { return tl.distinct() == 120 })

	est := p.Estimator()
	reg, err := est.RegisterGauge(mp, 0)
	if err != nil {
		t.Fatal(err)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	_ = reg.Unregister()
	stop(t, p)

	items, lagSeries, estSeries := int64(0), 0, 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch m.Name {
			case "cosmoskit.changefeed.items":
				for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
					items += dp.Value
				}
			case "cosmoskit.changefeed.lag":
				lagSeries = len(m.Data.(metricdata.Gauge[int64]).DataPoints)
			case "cosmoskit.changefeed.estimated_lag":
				estSeries = len(m.Data.(metricdata.Gauge[int64]).DataPoints)
			}
		}
	}
	if items != int64(tl.total) {
		t.Errorf("cosmoskit.changefeed.items = %d, want %d", items, tl.total)
	}
	if lagSeries != 2 || estSeries != 2 {
		t.Errorf("lag gauges: %d and %d series, want one per lease (2)", lagSeries, estSeries)
	}
	batchItems := int64(0)
	for _, s := range spans.Ended() {
		if s.Name() != "changefeed.batch items" {
			continue
		}
		for _, a := range s.Attributes() {
			if a.Key == attribute.Key("cosmoskit.changefeed.items") {
				batchItems += a.Value.AsInt64()
			}
		}
	}
	if batchItems != int64(tl.total) {
		t.Errorf("changefeed.batch spans carry %d items, want %d", batchItems, tl.total)
	}
}
