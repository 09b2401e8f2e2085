package crosspartition

import (
	"context"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestSpanNamesTheRangesContacted: the caller's span gets the ranges a page contacted and its charge.
func TestSpanNamesTheRangesContacted(t *testing.T) {
	_, c := newContainer(t, 4, nil)
	put(t, c, docs(40)...)
	x := mustNew(t, c)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, span := tp.Tracer("test").Start(context.Background(), "query")
	p := x.NewQueryItemsPager("SELECT VALUE c.id FROM c ORDER BY c.n", nil)
	if _, err := p.NextPage(ctx); err != nil {
		t.Fatal(err)
	}
	span.End()
	spans := exp.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	var ranges []string
	var charge float64
	for _, a := range spans[0].Attributes {
		switch a.Key {
		case attribute.Key("cosmoskit.crosspartition.ranges"):
			ranges = a.Value.AsStringSlice()
		case attribute.Key("cosmoskit.crosspartition.request_charge"):
			charge = a.Value.AsFloat64()
		}
	}
	if !slices.Equal(ranges, []string{"0", "1", "2", "3"}) || charge <= 0 {
		t.Fatalf("span attributes: ranges %v, charge %v", ranges, charge)
	}
}
