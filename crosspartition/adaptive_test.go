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

// fetchCounts runs query to the end in one pager under a recorded span and returns its rows and
// the span's per-query totals: rows fetched from the ranges and requests sent.
func fetchCounts(t *testing.T, x *Container, query string, size int32) (items []string, rows, requests int) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	p := x.NewQueryItemsPager(query, &azcosmos.QueryOptions{PageSizeHint: size})
	for p.More() {
		ctx, span := tp.Tracer("test").Start(context.Background(), "page")
		resp, err := p.NextPage(ctx)
		span.End()
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range resp.Items {
			items = append(items, string(it))
		}
	}
	for _, s := range exp.GetSpans() {
		for _, a := range s.Attributes {
			switch a.Key {
			case attribute.Key("cosmoskit.crosspartition.requests"):
				requests += int(a.Value.AsInt64())
			case attribute.Key("cosmoskit.crosspartition.query.rows_fetched"):
				rows = int(a.Value.AsInt64()) // cumulative: the last page's value
			}
		}
	}
	return items, rows, requests
}

// TestOrderByTopFetchesAShare: ORDER BY … TOP 100 over 8 physical partitions fetches at most
// twice the rows one partition would (100), in one request per range on uniform data, and on
// data skewed so that one range holds the whole top 100, at most one extra request, for that
// range. The answers are those of one partition.
func TestOrderByTopFetchesAShare(t *testing.T) {
	t.Parallel() // independent: its own servers
	const k = 100
	var ds []map[string]any
	for i := range 1600 {
		ds = append(ds, map[string]any{"id": fmt.Sprint("u", i), "pk": fmt.Sprint("p", i%200), "n": (i * 7919) % 1600})
	}
	for i := range 150 { // skewed: one logical partition, hence one range, holds the largest m
		ds = append(ds, map[string]any{"id": fmt.Sprint("h", i), "pk": "hot", "n": 0, "m": 10000 + i})
	}
	for i := range 800 {
		ds[i]["m"] = i
	}
	answers := map[int]map[string][]string{}
	for _, n := range []int{1, 8} {
		_, c := newContainer(t, n, nil)
		put(t, c, ds...)
		x := mustNew(t, c)
		answers[n] = map[string][]string{}
		for _, tc := range []struct {
			name, query string
			maxRequests int // on 8 partitions
		}{
			{"uniform", fmt.Sprintf("SELECT TOP %d c.id, c.n FROM c ORDER BY c.n DESC", k), 8},
			{"skewed", fmt.Sprintf("SELECT TOP %d c.id, c.m FROM c WHERE IS_DEFINED(c.m) ORDER BY c.m DESC", k), 9},
			{"offset", fmt.Sprintf("SELECT c.id, c.n FROM c ORDER BY c.n OFFSET 20 LIMIT %d", k-20), 12},
		} {
			items, rows, requests := fetchCounts(t, x, tc.query, 1000)
			if len(items) != k && tc.name != "offset" || tc.name == "offset" && len(items) != k-20 {
				t.Fatalf("%d partitions, %s: %d rows", n, tc.name, len(items))
			}
			answers[n][tc.name] = items
			t.Logf("%d partitions, %s: %d rows fetched in %d requests", n, tc.name, rows, requests)
			if n == 1 {
				continue
			}
			if !slices.Equal(items, answers[1][tc.name]) {
				t.Fatalf("%s: the answer on 8 partitions differs from that on 1", tc.name)
			}
			if tc.name == "uniform" && rows > 2*k {
				t.Errorf("%s: %d rows fetched, want at most %d", tc.name, rows, 2*k)
			}
			if requests > tc.maxRequests {
				t.Errorf("%s: %d requests, want at most %d", tc.name, requests, tc.maxRequests)
			}
		}
	}
}

// TestOrderByTopSmallPagesResume: adaptive sizes with pages smaller than a range's share, each
// page resumed from its token by a new pager, return the rows of one pager.
func TestOrderByTopSmallPagesResume(t *testing.T) {
	_, c := newContainer(t, 8, nil)
	var ds []map[string]any
	for i := range 400 {
		ds = append(ds, map[string]any{"id": fmt.Sprint("d", i), "pk": fmt.Sprint("p", i%40), "n": i % 37})
	}
	put(t, c, ds...)
	x := mustNew(t, c)
	q := "SELECT TOP 90 c.id, c.n FROM c ORDER BY c.n DESC"
	want, err := readOnePager(t, x, q, nil, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int32{7, 30} {
		got, err := readAll(t, x, q, nil, size, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 90 || len(got) != len(want) {
			t.Fatalf("page size %d: %d rows, want 90", size, len(got))
		}
		for i := range got {
			if string(got[i]) != string(want[i]) {
				t.Fatalf("page size %d: row %d differs", size, i)
			}
		}
	}
}

// TestOrderByTopPagesSmallerThanTop: TOP 400 in pages of 50 over 8 physical partitions. A caller
// that reads one page and resumes from its token in a new pager (a web API handing the token to
// its client) pays for about one page per request, not for the whole TOP: each range is asked for
// its share of a page (and re-reads what it had consumed of the page its token points into), at
// most 5× the page's rows and two requests per range per page, and over the whole query at most
// half of what asking every range for a page costs (8 × 50 rows per page). A caller that reads on
// through one pager is served with larger requests once the first page is out: at most 1.5× the
// 400 rows fetched and 3 requests per range. Both answers are those of one partition.
func TestOrderByTopPagesSmallerThanTop(t *testing.T) {
	t.Parallel() // independent: its own servers
	const k, size = 400, 50
	var ds []map[string]any
	for i := range 1600 {
		ds = append(ds, map[string]any{"id": fmt.Sprint("u", i), "pk": fmt.Sprint("p", i%200), "n": (i * 7919) % 1600})
	}
	q := fmt.Sprintf("SELECT TOP %d c.id, c.n FROM c ORDER BY c.n DESC", k)
	_, c1 := newContainer(t, 1, nil)
	put(t, c1, ds...)
	want, err := readOnePager(t, mustNew(t, c1), q, nil, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, c8 := newContainer(t, 8, nil)
	put(t, c8, ds...)
	x := mustNew(t, c8)

	items, rows, requests := fetchCounts(t, x, q, size)
	t.Logf("one pager: %d rows fetched in %d requests", rows, requests)
	if !slices.Equal(items, rawStrings(want)) {
		t.Fatal("one pager: the answer on 8 partitions differs from that on 1")
	}
	if rows > k*3/2 || requests > 3*8 {
		t.Errorf("one pager: %d rows fetched in %d requests, want at most %d rows and %d requests", rows, requests, k*3/2, 3*8)
	}

	var got []string
	var tok *string
	total, pages := 0, 0
	for page := 0; ; page++ {
		exp := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		ctx, span := tp.Tracer("test").Start(context.Background(), "page")
		resp, err := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{PageSizeHint: size, ContinuationToken: tok}).NextPage(ctx)
		span.End()
		spans := exp.GetSpans()
		_ = tp.Shutdown(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range resp.Items {
			got = append(got, string(it))
		}
		pageRows, pageRequests := 0, 0
		for _, a := range spans[0].Attributes {
			switch a.Key {
			case "cosmoskit.crosspartition.rows_fetched":
				pageRows = int(a.Value.AsInt64())
			case "cosmoskit.crosspartition.requests":
				pageRequests = int(a.Value.AsInt64())
			}
		}
		t.Logf("resumed page %d: %d rows fetched in %d requests", page, pageRows, pageRequests)
		if pageRows > 5*size || pageRequests > 2*8 {
			t.Errorf("resumed page %d: %d rows fetched in %d requests, want at most %d rows and %d requests", page, pageRows, pageRequests, 5*size, 2*8)
		}
		total += pageRows
		pages++
		if resp.ContinuationToken == nil {
			break
		}
		tok = resp.ContinuationToken
	}
	if !slices.Equal(got, rawStrings(want)) {
		t.Fatal("resumed pages: the answer on 8 partitions differs from that on 1")
	}
	if total > pages*8*size/2 {
		t.Errorf("resumed pages: %d rows fetched over %d pages, want at most %d", total, pages, pages*8*size/2)
	}
}

func rawStrings(rs []json.RawMessage) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}
