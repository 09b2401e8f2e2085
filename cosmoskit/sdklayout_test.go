package cosmoskit_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/internal/sdklayout"
)

// TestSDKLayoutMismatchReported: building a client on an azcosmos whose unexported layouts cosmoskit
// cannot read (fed through internal/sdklayout's seams as structs of another shape) still builds the
// client, logs one warning per layout naming it and what degrades, and counts each on
// diagnostics.MetricSDKLayoutMismatches; on the linked azcosmos, neither happens. Not parallel:
// the seams are process-wide.
func TestSDKLayoutMismatchReported(t *testing.T) {
	type otherPK struct{ parts []string }
	type otherContainer struct{ databaseID string }
	build := func(t *testing.T) (logged string, counts map[string]int64) {
		t.Helper()
		var buf lockedBuffer
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		defer func() { _ = mp.Shutdown(context.Background()) }()
		cfg := cosmoskit.Config{
			Endpoint: "https://acct.example:443/", Key: "a2V5", PreferredRegions: []string{"West US"},
			Logger: slog.New(slog.NewTextHandler(&buf, nil)),
		}
		cfg.Diagnostics.MeterProvider = mp
		c, err := cosmoskit.NewIndependent(cfg)
		if err != nil {
			t.Fatalf("NewIndependent: %v", err)
		}
		defer c.Close()
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		counts = map[string]int64{}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name != diagnostics.MetricSDKLayoutMismatches {
					continue
				}
				for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
					l, _ := dp.Attributes.Value("cosmoskit.sdk_layout")
					if v, ok := dp.Attributes.Value("cosmoskit.azcosmos_version"); !ok || v.AsString() == "" {
						t.Errorf("data point without the azcosmos version: %v", dp.Attributes)
					}
					counts[l.AsString()] += dp.Value
				}
			}
		}
		return buf.String(), counts
	}

	logged, counts := build(t)
	if strings.Contains(logged, "layout") || len(counts) != 0 {
		t.Fatalf("on the linked azcosmos: logged %q, counted %v; want neither", logged, counts)
	}

	restore := sdklayout.ReplaceForTest(
		func(azcosmos.PartitionKey) any { return otherPK{parts: []string{"a"}} },
		func(*azcosmos.ContainerClient) any { return &otherContainer{databaseID: "db"} })
	logged, counts = build(t)
	restore()
	for _, l := range []sdklayout.Layout{sdklayout.PartitionKey, sdklayout.ContainerIdentity} {
		if counts[string(l)] != 1 {
			t.Errorf("%s counted %d times, want 1 (counts %v)", l, counts[string(l)], counts)
		}
		var line string
		for _, ln := range strings.Split(logged, "\n") {
			if strings.Contains(ln, "layout="+string(l)) {
				line = ln
			}
		}
		if !strings.Contains(line, "level=WARN") || !strings.Contains(line, l.Degraded()) {
			t.Errorf("no warning for %s saying what degrades; log:\n%s", l, logged)
		}
	}
}
