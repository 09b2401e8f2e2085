package crosspartition

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// contacted runs one page of query and returns its rows and the ranges the page contacted.
func contacted(t *testing.T, x *Container, query string, params []azcosmos.QueryParameter) ([]json.RawMessage, []string) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, span := tp.Tracer("test").Start(context.Background(), "query")
	p := x.NewQueryItemsPager(query, &azcosmos.QueryOptions{QueryParameters: params, PageSizeHint: 1000})
	resp, err := p.NextPage(ctx)
	span.End()
	if err != nil {
		t.Fatal(err)
	}
	var rows []json.RawMessage
	for _, it := range resp.Items {
		rows = append(rows, it)
	}
	for _, a := range exp.GetSpans()[0].Attributes {
		if a.Key == attribute.Key("cosmoskit.crosspartition.ranges") {
			return rows, a.Value.AsStringSlice()
		}
	}
	return rows, nil
}

// TestQueriesGoOnlyToTheRangesTheyNeed: a query pinning the partition key contacts one physical
// partition; a hierarchical key's prefix only the ranges that hold it; the rest every range.
func TestQueriesGoOnlyToTheRangesTheyNeed(t *testing.T) {
	_, c := newContainer(t, 8, nil)
	put(t, c, docs(80)...)
	x := mustNew(t, c)
	rows, ranges := contacted(t, x, "SELECT VALUE c.n FROM c WHERE c.pk = @pk ORDER BY c.n", []azcosmos.QueryParameter{{Name: "@pk", Value: "p3"}})
	if len(ranges) != 1 || len(rows) != 6 {
		t.Fatalf("pinned key: %d rows from ranges %v", len(rows), ranges)
	}
	_, ranges = contacted(t, x, "SELECT VALUE c.n FROM c ORDER BY c.n", nil)
	if len(ranges) != 8 {
		t.Fatalf("whole container: ranges %v", ranges)
	}

	props := &azcosmos.ContainerProperties{PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{
		Paths: []string{"/tenant", "/user"}, Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2}}
	_, h := newContainer(t, 8, props)
	for i := range 60 {
		doc, _ := json.Marshal(map[string]any{"id": fmt.Sprint("d", i), "tenant": fmt.Sprint("t", i%3), "user": fmt.Sprint("u", i), "n": i})
		pk := azcosmos.NewPartitionKeyString(fmt.Sprint("t", i%3)).AppendString(fmt.Sprint("u", i))
		if _, err := h.UpsertItem(context.Background(), pk, doc, nil); err != nil {
			t.Fatal(err)
		}
	}
	hx := mustNew(t, h)
	rows, ranges = contacted(t, hx, "SELECT VALUE c.n FROM c WHERE c.tenant = @t ORDER BY c.n DESC", []azcosmos.QueryParameter{{Name: "@t", Value: "t1"}})
	var got []int
	for _, r := range rows {
		var n int
		_ = json.Unmarshal(r, &n)
		got = append(got, n)
	}
	var want []int
	for i := 59; i >= 0; i-- {
		if i%3 == 1 {
			want = append(want, i)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("prefix query: %v, want %v", got, want)
	}
	if len(ranges) == 0 || len(ranges) > 8 {
		t.Fatalf("prefix query contacted %v", ranges)
	}
	t.Logf("prefix t1 contacted ranges %v of 8", ranges)
}
