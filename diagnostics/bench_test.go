package diagnostics_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// BenchmarkReadItem measures a point read through the real SDK against cosmostest:
//   - off: no diagnostics policies installed;
//   - cheap: both policies installed with zero Options (no providers, no logger);
//   - meter: cheap, with a Meter in the context;
//   - on: spans (SDK tracer provider, always sampled, no exporter), metrics (manual reader),
//     a logger (discarded; nothing is slow), the azotel bridge for the SDK's HTTP spans.
func BenchmarkReadItem(b *testing.B) {
	s := cosmostest.NewServer(b)
	ctx := context.Background()
	{
		admin, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := admin.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db1"}, nil); err != nil {
			b.Fatal(err)
		}
		db, _ := admin.NewDatabase("db1")
		if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c1",
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
			b.Fatal(err)
		}
		c, _ := admin.NewContainer("db1", "c1")
		if _, err := c.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p1"), []byte(`{"id":"a","pk":"p1","n":1}`), nil); err != nil {
			b.Fatal(err)
		}
	}
	tp := sdktrace.NewTracerProvider()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(ctx)
		_ = mp.Shutdown(ctx)
	})
	cases := []struct {
		name    string
		install bool
		opts    diagnostics.Options
		meter   bool
		bridge  bool
	}{
		{name: "off"},
		{name: "cheap", install: true},
		{name: "meter", install: true, meter: true},
		{name: "on", install: true, bridge: true, meter: true, opts: diagnostics.Options{
			TracerProvider: tp, MeterProvider: mp, Logger: slog.New(slog.DiscardHandler)}},
	}
	pk := azcosmos.NewPartitionKeyString("p1")
	for _, bc := range cases {
		b.Run("diagnostics="+bc.name, func(b *testing.B) {
			copts := s.ClientOptions()
			if bc.install {
				copts.PerCallPolicies = append(copts.PerCallPolicies, mustPolicy(b, bc.opts))
				copts.PerRetryPolicies = append(copts.PerRetryPolicies, diagnostics.NewAttemptPolicy())
			}
			if bc.bridge {
				copts.TracingProvider = diagnostics.TracingProvider(tp)
			}
			cred, _ := azcosmos.NewKeyCredential(s.Key())
			client, err := azcosmos.NewClientWithKey(s.Endpoint(), cred, copts)
			if err != nil {
				b.Fatal(err)
			}
			c, _ := client.NewContainer("db1", "c1")
			rctx := ctx
			if bc.meter {
				rctx, _ = diagnostics.WithMeter(ctx)
			}
			if _, err := c.ReadItem(rctx, pk, "a", nil); err != nil { // warm up: account read
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := c.ReadItem(rctx, pk, "a", nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
