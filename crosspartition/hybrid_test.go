package crosspartition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// hybridDoc is one document of the hybrid search corpus.
type hybridDoc struct {
	id, text string
	v        []float64
}

func hybridCorpus(n int) []hybridDoc {
	words := []string{"rocky", "trail", "boots", "tent", "river", "summit", "camp", "map", "lake", "pine"}
	r := rand.New(rand.NewPCG(7, 13))
	docs := make([]hybridDoc, n)
	for i := range docs {
		w := make([]string, 2+r.IntN(9))
		for j := range w {
			w[j] = words[r.IntN(len(words))]
		}
		docs[i] = hybridDoc{id: fmt.Sprintf("d%03d", i), text: strings.Join(w, " "), v: []float64{r.Float64()*2 - 1, r.Float64()*2 - 1, r.Float64()*2 - 1}}
	}
	return docs
}

// bm25 is the test's own BM25 (k1 1.2, b 0.75) of one-word terms over the whole corpus.
func bm25(docs []hybridDoc, terms []string) []float64 {
	total := 0
	hits := make([]float64, len(terms))
	for _, d := range docs {
		ws := strings.Fields(d.text)
		total += len(ws)
		for i, t := range terms {
			if slices.Contains(ws, t) {
				hits[i]++
			}
		}
	}
	n := float64(len(docs))
	avgdl := float64(total) / n
	out := make([]float64, len(docs))
	for di, d := range docs {
		ws := strings.Fields(d.text)
		for i, t := range terms {
			tf := 0.0
			for _, w := range ws {
				if w == t {
					tf++
				}
			}
			if tf > 0 {
				idf := math.Log(1 + (n-hits[i]+0.5)/(hits[i]+0.5))
				out[di] += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(len(ws))/avgdl))
			}
		}
	}
	return out
}

func cosine(a, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	return ab / math.Sqrt(aa*bb)
}

// denseRanks ranks scores (best first; reversed when asc), equal scores sharing a rank.
func denseRanks(scores []float64, asc bool) []int {
	distinct := slices.Clone(scores)
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	if !asc {
		slices.Reverse(distinct)
	}
	out := make([]int, len(scores))
	for i, s := range scores {
		out[i] = slices.Index(distinct, s) + 1
	}
	return out
}

// TestHybridSearchDifferential: on 4 physical partitions, ORDER BY RANK RRF(FullTextScore,
// VectorDistance) returns the top results of an RRF the test computes from its own BM25 ranking
// and cosine ranking of the whole corpus; FullTextScore alone returns the BM25 order.
func TestHybridSearchDifferential(t *testing.T) {
	t.Parallel()
	props := &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2},
		VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{
			{Path: "/v", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionCosine, Dimensions: 3},
		}},
		FullTextPolicy: &azcosmos.FullTextPolicy{DefaultLanguage: "en-US", FullTextPaths: []azcosmos.FullTextPath{{Path: "/text", Language: "en-US"}}},
		IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent, IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, FullTextIndexes: []azcosmos.FullTextIndex{{Path: "/text"}}},
	}
	_, cc := newContainer(t, 4, props)
	docs := hybridCorpus(80)
	for i, d := range docs {
		put(t, cc, map[string]any{"id": d.id, "pk": fmt.Sprint("p", i%13), "text": d.text, "v": d.v})
	}
	x := mustNew(t, cc)
	q := []float64{0.3, -0.5, 0.8}
	terms := []string{"rocky", "summit"}
	text := bm25(docs, terms)
	vec := make([]float64, len(docs))
	for i, d := range docs {
		vec[i] = cosine(d.v, q)
	}
	params := []azcosmos.QueryParameter{{Name: "@q", Value: q}, {Name: "@a", Value: "rocky"}, {Name: "@b", Value: "summit"}}
	byID := map[string]int{}
	for i, d := range docs {
		byID[d.id] = i
	}
	// check compares the scores (by the test's computation) of the ids returned with the k best
	// scores: ties may come in any order, nothing else may differ.
	check := func(name, query string, score []float64, k int) {
		t.Helper()
		rows, err := readOnePager(t, x, query, params, 4, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := slices.Clone(score)
		slices.Sort(want)
		slices.Reverse(want)
		want = want[:k]
		if len(rows) != k {
			t.Fatalf("%s: %d results, want %d", name, len(rows), k)
		}
		seen := map[string]bool{}
		for i, r := range rows {
			var id string
			if err := json.Unmarshal(r, &id); err != nil {
				t.Fatal(err)
			}
			if seen[id] {
				t.Fatalf("%s: %s twice", name, id)
			}
			seen[id] = true
			if got := score[byID[id]]; math.Abs(got-want[i]) > 1e-9 {
				t.Fatalf("%s: result %d is %s with score %v, want score %v", name, i, id, got, want[i])
			}
		}
	}
	tr, vr := denseRanks(text, false), denseRanks(vec, false)
	fused := make([]float64, len(docs))
	for i := range docs {
		fused[i] = 1/float64(60+tr[i]) + 1/float64(60+vr[i])
	}
	check("RRF", `SELECT TOP 10 VALUE c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, @a, @b), VectorDistance(c.v, @q))`, fused, 10)
	check("FullTextScore", `SELECT TOP 10 VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, @a, @b)`, text, 10)

	// Weights, a negative one reversing its component, and OFFSET/LIMIT.
	tr, vr = denseRanks(text, false), denseRanks(vec, true)
	for i := range docs {
		fused[i] = 3/float64(60+tr[i]) + 0.5/float64(60+vr[i])
	}
	sorted := slices.Clone(fused)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	rows, err := readOnePager(t, x, `SELECT VALUE c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, @a, @b), VectorDistance(c.v, @q), [3, -0.5]) OFFSET 5 LIMIT 7`, params, 100, nil)
	if err != nil || len(rows) != 7 {
		t.Fatalf("weighted RRF with OFFSET/LIMIT: %d rows, %v", len(rows), err)
	}
	for i, r := range rows {
		var id string
		_ = json.Unmarshal(r, &id)
		if math.Abs(fused[byID[id]]-sorted[5+i]) > 1e-9 {
			t.Fatalf("weighted RRF result %d: %s scores %v, want %v", i, id, fused[byID[id]], sorted[5+i])
		}
	}

	// Without TOP or LIMIT the candidates are unbounded: refused, as for ORDER BY VectorDistance.
	_, err = readOnePager(t, x, `SELECT VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, @a)`, params, 10, nil)
	if !errors.Is(err, cosmoserr.ErrUnsupported) {
		t.Fatalf("ORDER BY RANK without TOP: %v, want cosmoserr.ErrUnsupported", err)
	}
	// A page's token cannot resume the query in a new pager.
	p := x.NewQueryItemsPager(`SELECT TOP 10 VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, @a)`, &azcosmos.QueryOptions{QueryParameters: params, PageSizeHint: 3})
	resp, err := p.NextPage(context.Background())
	if err != nil || resp.ContinuationToken == nil {
		t.Fatalf("first page: %v", err)
	}
	p = x.NewQueryItemsPager(`SELECT TOP 10 VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, @a)`, &azcosmos.QueryOptions{QueryParameters: params, PageSizeHint: 3, ContinuationToken: resp.ContinuationToken})
	if _, err := p.NextPage(context.Background()); !errors.Is(err, cosmoserr.ErrNotResumable) {
		t.Fatalf("resuming hybrid search: %v, want cosmoserr.ErrNotResumable", err)
	}
}

// BenchmarkHybridSearch is TOP 10 ORDER BY RANK RRF(FullTextScore, VectorDistance) over the same
// 400 documents on 1 and 4 physical partitions (global statistics, two component queries per
// range, fusion).
func BenchmarkHybridSearch(b *testing.B) {
	props := func() *azcosmos.ContainerProperties {
		return &azcosmos.ContainerProperties{
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2},
			VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{
				{Path: "/v", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionCosine, Dimensions: 3},
			}},
			FullTextPolicy: &azcosmos.FullTextPolicy{DefaultLanguage: "en-US", FullTextPaths: []azcosmos.FullTextPath{{Path: "/text", Language: "en-US"}}},
			IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent, IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, FullTextIndexes: []azcosmos.FullTextIndex{{Path: "/text"}}},
		}
	}
	docs := hybridCorpus(400)
	params := []azcosmos.QueryParameter{{Name: "@q", Value: []float64{0.3, -0.5, 0.8}}, {Name: "@a", Value: "rocky"}, {Name: "@b", Value: "summit"}}
	const q = `SELECT TOP 10 VALUE c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, @a, @b), VectorDistance(c.v, @q))`
	for _, n := range []int{1, 4} {
		b.Run(fmt.Sprintf("partitions=%d", n), func(b *testing.B) {
			_, cc := newContainer(b, n, props())
			for i, d := range docs {
				put(b, cc, map[string]any{"id": d.id, "pk": fmt.Sprint("p", i%37), "text": d.text, "v": d.v})
			}
			x := mustNew(b, cc)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{QueryParameters: params})
				resp, err := p.NextPage(context.Background())
				if err != nil || len(resp.Items) != 10 {
					b.Fatalf("%d items, %v", len(resp.Items), err)
				}
			}
		})
	}
}
