package diagnostics_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// cannedTransport answers every request with a 200 point-read response, so that
// BenchmarkPolicy measures the policies alone, without a server or network in the numbers.
type cannedTransport struct{}

func (cannedTransport) Do(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Status: "200 OK", Request: r, Body: io.NopCloser(strings.NewReader("{}")),
		Header: http.Header{
			"X-Ms-Request-Charge": {"1"},
			"X-Ms-Activity-Id":    {"8b4b3bd2-0000-0000-0000-000000000001"},
			"X-Ms-Substatus":      {"0"},
		}}, nil
}

// BenchmarkPolicy measures the cost of the diagnostics policies on one pipeline call with a canned
// transport (same cases as BenchmarkReadItem).
func BenchmarkPolicy(b *testing.B) {
	ctx := context.Background()
	tp := sdktrace.NewTracerProvider()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(ctx)
		_ = mp.Shutdown(ctx)
	})
	cases := []struct {
		name    string
		install bool
		meter   bool
		opts    diagnostics.Options
	}{
		{name: "off"},
		{name: "cheap", install: true},
		{name: "meter", install: true, meter: true},
		{name: "on", install: true, meter: true, opts: diagnostics.Options{
			TracerProvider: tp, MeterProvider: mp, Logger: slog.New(slog.DiscardHandler)}},
	}
	for _, bc := range cases {
		b.Run("diagnostics="+bc.name, func(b *testing.B) {
			o := &policy.ClientOptions{Transport: cannedTransport{}}
			o.Telemetry.Disabled = true
			if bc.install {
				o.PerCallPolicies = []policy.Policy{mustPolicy(b, bc.opts)}
				o.PerRetryPolicies = []policy.Policy{diagnostics.NewAttemptPolicy()}
			}
			pl := runtime.NewPipeline("bench", "v0", runtime.PipelineOptions{}, o)
			rctx := ctx
			if bc.meter {
				rctx, _ = diagnostics.WithMeter(ctx)
			}
			b.ReportAllocs()
			for b.Loop() {
				req, err := runtime.NewRequest(rctx, http.MethodGet, "https://127.0.0.1:8081/dbs/db1/colls/c1/docs/a")
				if err != nil {
					b.Fatal(err)
				}
				resp, err := pl.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_ = resp.Body.Close()
			}
		})
	}
}
