package diagnostics

import (
	"context"
	"errors"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// StartOperation starts an internal span for a logical operation made of several Cosmos DB calls.
// Such an operation is a repository Update (read, replace, retry on 412), a change feed batch or
// a retry sequence; the span is named "<name> <container>" with db.system.name,
// db.operation.name=name, db.namespace and db.collection.name. The calls' own spans become its children. finish records err (nil for
// success) and the request units and number of calls made under the returned context
// (azure.cosmosdb.operation.request_charge, cosmoskit.requests), then ends the span; call it once.
//
// The tracer is p's Options.TracerProvider; with a nil p, the provider of the span already in ctx
// is used, so nothing is traced when ctx carries no span. Without a tracer, StartOperation returns
// ctx unchanged and a no-op finish.
func (p *Policy) StartOperation(ctx context.Context, name, database, container string) (context.Context, func(err error)) {
	var tracer trace.Tracer
	switch {
	case p != nil && p.tracer != nil:
		tracer = p.tracer
	case p == nil:
		if parent := trace.SpanFromContext(ctx); parent.SpanContext().IsValid() {
			tracer = parent.TracerProvider().Tracer(instrumentationName, trace.WithSchemaURL(semconv.SchemaURL))
		}
	}
	if tracer == nil {
		return ctx, func(error) {}
	}
	spanName := name
	if container != "" {
		spanName += " " + container
	} else if database != "" {
		spanName += " " + database
	}
	attrs := []attribute.KeyValue{
		attribute.String(keySystemName, valSystemName),
		attribute.String(keyOperation, name),
	}
	if database != "" {
		attrs = append(attrs, attribute.String(keyNamespace, database))
	}
	if container != "" {
		attrs = append(attrs, attribute.String(keyCollection, container))
	}
	ctx, span := tracer.Start(ctx, spanName, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	ctx, meter := WithMeter(ctx)
	return ctx, func(err error) {
		span.SetAttributes(
			attribute.Float64(keyRequestCharge, meter.RequestCharge()),
			attribute.Int("cosmoskit.requests", meter.Requests()),
		)
		if t := meter.Throttles(); t > 0 {
			span.SetAttributes(attribute.Int(keyThrottles, t))
		}
		if err != nil {
			var e *cosmoserr.Error
			expected := errors.Is(err, context.Canceled)
			if errors.As(err, &e) && e.StatusCode != 0 {
				out := outcome{status: e.StatusCode, sub: e.SubStatus}
				expected = out.expected()
				span.SetAttributes(attribute.String(keyStatusCode, out.statusString()),
					attribute.Int(keySubStatus, e.SubStatus),
					attribute.String(keyErrorType, out.statusString()))
			} else {
				span.SetAttributes(attribute.String(keyErrorType, "_OTHER"))
			}
			if !expected {
				span.SetStatus(codes.Error, err.Error())
			}
		}
		span.End()
	}
}
