package crosspartition

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/internal/jsonorder"
)

// layoutCorpus is a corpus in which every document contains "rocky" (1 to 3 times, "summit" 0 to
// 2 times) and has its own length, so that BM25 scores, and cosine similarities, have no ties at
// the component cut-off.
func layoutCorpus(n int) []hybridDoc {
	r := rand.New(rand.NewPCG(3, 5))
	fill := []string{"trail", "boots", "tent", "river", "camp", "map", "lake", "pine"}
	docs := make([]hybridDoc, n)
	for i := range docs {
		var w []string
		for range 1 + i%3 {
			w = append(w, "rocky")
		}
		for range (i / 3) % 3 {
			w = append(w, "summit")
		}
		for len(w) < 4+i {
			w = append(w, fill[r.IntN(len(fill))])
		}
		docs[i] = hybridDoc{id: fmt.Sprintf("d%04d", i), text: strings.Join(w, " "), v: []float64{r.Float64()*2 - 1, r.Float64()*2 - 1, r.Float64()*2 - 1}}
	}
	return docs
}

// expectedRRF computes, from the test's own scores, what a client following the service's plan
// answers: each component's global top k (k = max(120, 2 × (skip + take))), the union of those
// candidates, dense ranks per component among them, RRF with k = 60 and the absolute weights
// (a negative weight ranks its component ascending), highest first. It returns the candidates'
// fused scores, sorted best first, and the fused score of every candidate by index.
func expectedRRF(t *testing.T, scores [][]float64, weights []float64, skip, take int) ([]float64, map[int]float64) {
	t.Helper()
	k := max(120, 2*(skip+take))
	cand := map[int]bool{}
	for c, col := range scores {
		idx := make([]int, len(col))
		for i := range idx {
			idx[i] = i
		}
		asc := weights[c] < 0
		slices.SortFunc(idx, func(a, b int) int {
			if asc {
				return jsonorder.CompareNumbers(col[a], col[b])
			}
			return jsonorder.CompareNumbers(col[b], col[a])
		})
		if len(idx) > k && col[idx[k-1]] == col[idx[k]] {
			t.Fatalf("component %d has a tie at its cut-off %d: pick another corpus", c, k)
		}
		for _, i := range idx[:min(k, len(idx))] {
			cand[i] = true
		}
	}
	members := slices.Sorted(func(yield func(int) bool) {
		for i := range cand {
			if !yield(i) {
				return
			}
		}
	})
	fused := map[int]float64{}
	for c, col := range scores {
		sub := make([]float64, len(members))
		for j, i := range members {
			sub[j] = col[i]
		}
		ranks := denseRanks(sub, weights[c] < 0)
		for j, i := range members {
			fused[i] += math.Abs(weights[c]) / float64(60+ranks[j])
		}
	}
	var sorted []float64
	for _, f := range fused {
		sorted = append(sorted, f)
	}
	slices.Sort(sorted)
	slices.Reverse(sorted)
	return sorted, fused
}

// TestHybridSearchIndependentOfLayout: on 1, 4 and 8 physical partitions, with 510 documents
// (more candidates than a component's TOP), ORDER BY RANK RRF and FullTextScore answer the same
// documents, and the RRF answers equal an RRF the test computes from the components' global TOPs
// (so a client must merge and cut each component across ranges before fusing).
func TestHybridSearchIndependentOfLayout(t *testing.T) {
	t.Parallel()
	docs := layoutCorpus(510)
	q := []float64{0.3, -0.5, 0.8}
	text := bm25(docs, []string{"rocky", "summit"})
	vec := make([]float64, len(docs))
	for i, d := range docs {
		vec[i] = cosine(d.v, q)
	}
	byID := map[string]int{}
	for i, d := range docs {
		byID[d.id] = i
	}
	params := []azcosmos.QueryParameter{{Name: "@q", Value: q}, {Name: "@a", Value: "rocky"}, {Name: "@b", Value: "summit"}}
	cases := []struct {
		name, query string
		weights     []float64
		skip, take  int
	}{
		{"RRF weights (1, 44)", `SELECT TOP 10 VALUE c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, @a, @b), VectorDistance(c.v, @q), [1, 44])`, []float64{1, 44}, 0, 10},
		{"RRF", `SELECT TOP 10 VALUE c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, @a, @b), VectorDistance(c.v, @q))`, []float64{1, 1}, 0, 10},
		{"RRF TOP 70", `SELECT TOP 70 VALUE c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, @a, @b), VectorDistance(c.v, @q), [2, 1])`, []float64{2, 1}, 0, 70},
		{"RRF OFFSET LIMIT", `SELECT VALUE c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, @a, @b), VectorDistance(c.v, @q), [1, -3]) OFFSET 40 LIMIT 30`, []float64{1, -3}, 40, 30},
		{"FullTextScore", `SELECT TOP 10 VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, @a, @b)`, nil, 0, 10},
		{"FullTextScore OFFSET LIMIT", `SELECT VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, @a, @b) OFFSET 130 LIMIT 20`, nil, 130, 20},
	}
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
	answers := map[string][]string{}
	for _, n := range []int{1, 4, 8} {
		_, cc := newContainer(t, n, props())
		for i, d := range docs {
			put(t, cc, map[string]any{"id": d.id, "pk": fmt.Sprint("p", i%41), "text": d.text, "v": d.v})
		}
		x := mustNew(t, cc)
		for _, tc := range cases {
			rows, err := readOnePager(t, x, tc.query, params, 25, nil)
			if err != nil {
				t.Fatalf("%d partitions, %s: %v", n, tc.name, err)
			}
			var ids []string
			for _, r := range rows {
				var id string
				_ = json.Unmarshal(r, &id)
				ids = append(ids, id)
			}
			if len(ids) != tc.take {
				t.Fatalf("%d partitions, %s: %d results, want %d", n, tc.name, len(ids), tc.take)
			}
			if prev, ok := answers[tc.name]; ok && !slices.Equal(prev, ids) {
				t.Errorf("%d partitions, %s: %v\ndiffers from 1 partition: %v", n, tc.name, ids, prev)
			}
			answers[tc.name] = ids
			// Against the test's own computation (ties, if any, may come in any order).
			var want []float64
			var got func(id string) float64
			if tc.weights == nil {
				want = slices.Clone(text)
				slices.Sort(want)
				slices.Reverse(want)
				got = func(id string) float64 { return text[byID[id]] }
			} else {
				sorted, fused := expectedRRF(t, [][]float64{text, vec}, tc.weights, tc.skip, tc.take)
				want = sorted
				got = func(id string) float64 {
					f, ok := fused[byID[id]]
					if !ok {
						return math.NaN() // not a candidate of either component's global TOP
					}
					return f
				}
			}
			for i, id := range ids {
				if g, w := got(id), want[tc.skip+i]; !(math.Abs(g-w) <= 1e-12) {
					t.Errorf("%d partitions, %s: result %d is %s scoring %v, want %v", n, tc.name, i, id, g, w)
					break
				}
			}
		}
	}
}
