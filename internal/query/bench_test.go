package query

import (
	"fmt"
	"testing"
)

func benchDocs(n int) []Document {
	docs := make([]Document, n)
	for i := range docs {
		id := fmt.Sprintf("doc%07d", i)
		docs[i] = Document{Key: id, Value: map[string]any{
			"id":       id,
			"pk":       "p",
			"category": fmt.Sprintf("cat%d", i%10),
			"price":    float64((i * 7919) % 100000),
			"status":   "active",
			"tags":     []any{"a", "b"},
		}}
	}
	return docs
}

// BenchmarkOrderedFilter100k runs the first page (100 results) and a later page of a filtered,
// ordered query over 100,000 documents of one partition. Without an index every page evaluates the
// filter on every document and selects the next 100 rows with a bounded heap; with an Index on the
// ORDER BY path a page walks the index from its position and stops when full. index-build is the
// cost of building that index once.
func BenchmarkOrderedFilter100k(b *testing.B) {
	docs := benchDocs(100_000)
	q := mustParse(b, "SELECT c.id, c.price FROM c WHERE c.category = @cat AND c.price > @min ORDER BY c.price DESC")
	params := map[string]any{"@cat": "cat3", "@min": 1000}
	first := mustExecute(b, q, docs, Options{Params: params})
	if len(first.Results) != 100 || first.Continuation == "" {
		b.Fatalf("first page: %d results", len(first.Results))
	}
	b.Run("first-page", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mustExecute(b, q, docs, Options{Params: params})
		}
	})
	b.Run("next-page", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mustExecute(b, q, docs, Options{Params: params, Continuation: first.Continuation})
		}
	})
	paths := []IndexPath{{Path: "/price", Descending: true}}
	ix := NewIndex(docs, paths)
	if got := mustExecute(b, q, docs, Options{Params: params, Index: ix}); joinRaw(got.Results) != joinRaw(first.Results) || got.Continuation == "" {
		b.Fatal("indexed first page differs from the scan")
	}
	b.Run("indexed-first-page", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mustExecute(b, q, docs, Options{Params: params, Index: ix})
		}
	})
	b.Run("indexed-next-page", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mustExecute(b, q, docs, Options{Params: params, Continuation: first.Continuation, Index: ix})
		}
	})
	b.Run("index-build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			NewIndex(docs, paths)
		}
	})
}

// BenchmarkStreamingFilter100k is the same filter without ORDER BY: a page stops as soon as it is full.
func BenchmarkStreamingFilter100k(b *testing.B) {
	docs := benchDocs(100_000)
	q := mustParse(b, "SELECT c.id, c.price FROM c WHERE c.category = @cat AND c.price > @min")
	params := map[string]any{"@cat": "cat3", "@min": 1000}
	b.ReportAllocs()
	for b.Loop() {
		mustExecute(b, q, docs, Options{Params: params})
	}
}

// BenchmarkCount100k is an aggregate over 100,000 documents.
func BenchmarkCount100k(b *testing.B) {
	docs := benchDocs(100_000)
	q := mustParse(b, "SELECT VALUE COUNT(1) FROM c WHERE c.category = 'cat3'")
	b.ReportAllocs()
	for b.Loop() {
		mustExecute(b, q, docs, Options{})
	}
}

// BenchmarkPlan measures a query plan (what cosmostest answers a query plan request with) for an
// ORDER BY with TOP and a filter, a GROUP BY with aggregates, and a VALUE aggregate, after Parse.
func BenchmarkPlan(b *testing.B) {
	for name, text := range map[string]string{
		"order-by-top": "SELECT TOP 100 c.id, c.price FROM c WHERE c.category = @cat AND c.price > 10 ORDER BY c.price DESC",
		"group-by":     "SELECT c.category, COUNT(1) AS n, AVG(c.price) AS avg, MIN(c.price) AS lo FROM c GROUP BY c.category",
		"value-count":  "SELECT VALUE COUNT(1) FROM c WHERE c.status = 'active'",
	} {
		q := mustParse(b, text)
		opts := PlanOptions{Params: map[string]any{"@cat": "cat3"}}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := q.Plan(opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
