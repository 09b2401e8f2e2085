package cosmoskit

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/internal/sdklayout"
)

// meterScope is the meter scope of the metrics package cosmoskit records itself.
const meterScope = "github.com/cosmoskit/cosmoskit-go/cosmoskit"

// checkSDKLayout reports, when a client is built, each unexported azcosmos layout the library reads
// (internal/sdklayout) that the linked azcosmos does not have: a warning on the client's Logger
// naming the layout, the azcosmos version and what degrades, and a count on
// diagnostics.MetricSDKLayoutMismatches (on Diagnostics.MeterProvider, unless diagnostics are
// disabled). The client is still built: only those checks degrade, as the warning says.
func checkSDKLayout(r *resolved, c *azcosmos.Client) {
	bad := sdklayout.Check(c)
	if len(bad) == 0 {
		return
	}
	var counter metric.Int64Counter
	if mp := r.cfg.Diagnostics.MeterProvider; mp != nil && !r.cfg.Diagnostics.Disable {
		counter, _ = mp.Meter(meterScope).Int64Counter(diagnostics.MetricSDKLayoutMismatches,
			metric.WithDescription("Unexported azcosmos layouts cosmoskit could not read when a client was built (an unsupported azcosmos version)."),
			metric.WithUnit("{layout}"))
	}
	for _, l := range bad {
		sdklayout.Warn(r.logger, l)
		if counter != nil {
			counter.Add(context.Background(), 1, metric.WithAttributes(
				attribute.String("cosmoskit.sdk_layout", string(l)),
				attribute.String("cosmoskit.azcosmos_version", sdklayout.SDKVersion())))
		}
	}
}
