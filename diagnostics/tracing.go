package diagnostics

import (
	"context"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"
	"github.com/Azure/azure-sdk-for-go/sdk/tracing/azotel"
	"go.opentelemetry.io/otel/trace"
)

// TracingProvider returns the value for azcosmos.ClientOptions.TracingProvider that joins the SDK's
// own spans to the trace of [Policy]. azcore's per-attempt "HTTP <METHOD>" spans (method, URL,
// status, regional host) go to tp through the azotel bridge and become children of the operation
// span the policy starts. The SDK's operation spans ("read_item c1" with the old db.system=cosmosdb
// attributes and no status or region) are dropped, because the policy's span replaces them with the
// current conventions; to keep them as well, use azotel.NewTracingProvider(tp, nil) directly. A nil
// tp returns the zero Provider (tracing off).
func TracingProvider(tp trace.TracerProvider) tracing.Provider {
	if tp == nil {
		return tracing.Provider{}
	}
	inner := azotel.NewTracingProvider(tp, nil)
	return tracing.NewProvider(func(name, version string) tracing.Tracer {
		t := inner.NewTracer(name, version)
		return tracing.NewTracer(func(ctx context.Context, spanName string, o *tracing.SpanOptions) (context.Context, tracing.Span) {
			if strings.HasPrefix(spanName, "HTTP ") {
				return t.Start(ctx, spanName, o)
			}
			return ctx, tracing.Span{}
		}, &tracing.TracerOptions{
			// The SDK sets its request charge on SpanFromContext(ctx) of the caller's context,
			// which would otherwise be the caller's own span.
			SpanFromContext: func(context.Context) tracing.Span { return tracing.Span{} },
		})
	}, nil)
}
