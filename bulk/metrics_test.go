package bulk_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/cosmoskit/cosmoskit-go/bulk"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// TestMetrics: operations by outcome and their request charge reach the meter provider.
func TestMetrics(t *testing.T) {
	e := newEnv(t, 0)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	x := e.executor(t, bulk.Options{MeterProvider: mp})
	ops := append(upserts(20, 3, 0), bulk.UpsertOp(partitionkey.Of("k0"), []byte(`{"pk":"k0"}`))) // one refused
	var charge float64
	for r, err := range x.Execute(context.Background(), slices.Values(ops)) {
		if err != nil && r.Index != 20 {
			t.Errorf("op %d: %v", r.Index, err)
		}
		charge += r.RequestCharge
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	var ru float64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch m.Name {
			case "cosmoskit.bulk.operations":
				for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
					v, _ := dp.Attributes.Value(attribute.Key("outcome"))
					got[v.AsString()] += dp.Value
				}
			case "cosmoskit.bulk.request_charge":
				for _, dp := range m.Data.(metricdata.Sum[float64]).DataPoints {
					ru += dp.Value
				}
			}
		}
	}
	if got["success"] != 20 || got["failure"] != 1 {
		t.Errorf("operations by outcome %v, want 20 success and 1 failure", got)
	}
	if math.Abs(ru-charge) > 0.01 || ru <= 0 {
		t.Errorf("request charge metric %v, results %v", ru, charge)
	}
}
