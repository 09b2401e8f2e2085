package cosmoskit_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// observed is a cosmoskit.New client whose diagnostics record spans and metrics in memory.
type observed struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

func observe(t *testing.T, cfg *cosmoskit.Config) *observed {
	t.Helper()
	o := &observed{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(o.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(o.reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	cfg.Diagnostics.TracerProvider = tp
	cfg.Diagnostics.MeterProvider = mp
	return o
}

// span returns the one ended span named name.
func (o *observed) span(t *testing.T, name string) map[attribute.Key]attribute.Value {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range o.spans.Ended() {
		if s.Name() == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q, want 1", len(found), name)
	}
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range found[0].Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// counter sums the int64 counter name over the data points of operation op.
func (o *observed) counter(t *testing.T, name, op string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := o.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok {
				t.Fatalf("%s is a %T", name, m.Data)
			}
			for _, dp := range sum.DataPoints {
				if v, ok := dp.Attributes.Value("db.operation.name"); ok && v.AsString() == op {
					n += dp.Value
				}
			}
		}
	}
	return n
}

// TestDiagnosticsSeeEveryRetryAttempt checks the order of the per-retry policies New installs: the
// retry policy loops over 429s and regions by calling Next again, so the diagnostics attempt policy
// must sit below it to count each HTTP attempt.
func TestDiagnosticsSeeEveryRetryAttempt(t *testing.T) {
	const n = 3
	cfg := cosmoskit.Config{}
	o := observe(t, &cfg)
	s, _, cc := twoRegions(t, cfg)
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
		Status: http.StatusTooManyRequests, RetryAfter: time.Millisecond, Times: n})
	s.ResetRequests()
	ctx, m := diagnostics.WithMeter(context.Background())
	if _, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("a"), "1", nil); err != nil {
		t.Fatal(err)
	}
	if sent := s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReadItem}); sent != n+1 {
		t.Fatalf("server saw %d reads, want %d", sent, n+1)
	}
	a := o.span(t, "read_item c")
	if a["cosmoskit.attempts"] != attribute.IntValue(n+1) || a["cosmoskit.throttles"] != attribute.IntValue(n) {
		t.Errorf("span attempts %s throttles %s, want %d and %d", a["cosmoskit.attempts"].String(), a["cosmoskit.throttles"].String(), n+1, n)
	}
	if m.Throttles() != n || m.Requests() != 1 || m.Attempts() != n+1 {
		t.Errorf("meter: %d throttles, %d attempts in %d operations; want %d, %d in 1", m.Throttles(), m.Attempts(), m.Requests(), n, n+1)
	}
	if got := o.counter(t, diagnostics.MetricThrottles, "read_item"); got != n {
		t.Errorf("%s = %d, want %d", diagnostics.MetricThrottles, got, n)
	}
	if got := o.counter(t, diagnostics.MetricRetries, "read_item"); got != n {
		t.Errorf("%s = %d, want %d", diagnostics.MetricRetries, got, n)
	}
	if got, want := o.waited(t), float64(n)*time.Millisecond.Seconds(); got < want*0.999 || got > want*1.001 {
		t.Errorf("%s = %v s, want %v s (the retry hints)", diagnostics.MetricThrottleWait, got, want)
	}
}

// waited sums the throttle wait counter, in seconds.
func (o *observed) waited(t *testing.T) float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := o.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if d, ok := m.Data.(metricdata.Sum[float64]); ok && m.Name == diagnostics.MetricThrottleWait {
				for _, dp := range d.DataPoints {
					sum += dp.Value
				}
			}
		}
	}
	return sum
}

// TestDiagnosticsSeeEachRegionOfAFailover: a read the retry policy fails over from West US (503) to
// East US is one operation of two attempts in two regions.
func TestDiagnosticsSeeEachRegionOfAFailover(t *testing.T) {
	cfg := cosmoskit.Config{}
	o := observe(t, &cfg)
	s, _, cc := twoRegions(t, cfg)
	s.InjectFault(cosmostest.Fault{Region: "West US", Operation: cosmostest.OpReadItem,
		Status: http.StatusServiceUnavailable, Times: 1})
	ctx, m := diagnostics.WithMeter(context.Background())
	if w, e := readsInCtx(ctx, t, s, cc); w != 1 || e != 1 {
		t.Fatalf("West %d, East %d reads; want 1 and 1", w, e)
	}
	a := o.span(t, "read_item c")
	if a["cosmoskit.attempts"] != attribute.IntValue(2) || a["db.response.status_code"] != attribute.StringValue("200") {
		t.Errorf("span attempts %s status %s, want 2 and 200", a["cosmoskit.attempts"].String(), a["db.response.status_code"].String())
	}
	if got := a["azure.cosmosdb.operation.contacted_regions"].AsStringSlice(); len(got) != 2 {
		t.Errorf("contacted regions %q, want West US and East US", got)
	}
	if got := o.counter(t, diagnostics.MetricRetries, "read_item"); got != 1 {
		t.Errorf("%s = %d, want 1", diagnostics.MetricRetries, got)
	}
	if m.Requests() != 1 || m.Attempts() != 2 {
		t.Errorf("meter: %d attempts in %d operations, want 2 in 1", m.Attempts(), m.Requests())
	}
}

// readsInCtx reads the item once with ctx and returns how many reads each region served.
func readsInCtx(ctx context.Context, t *testing.T, s *cosmostest.Server, cc *azcosmos.ContainerClient) (west, east int) {
	t.Helper()
	s.ResetRequests()
	if _, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("a"), "1", nil); err != nil {
		t.Fatal(err)
	}
	f := cosmostest.RequestFilter{Operation: cosmostest.OpReadItem}
	f.Region = "West US"
	west = s.Requests(f)
	f.Region = "East US"
	east = s.Requests(f)
	return west, east
}
