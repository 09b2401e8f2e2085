package vector_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// bm25Scores is the test's BM25 (k1 1.2, b 0.75) of one-word terms over texts.
func bm25Scores(texts []string, terms []string) []float64 {
	n, total := float64(len(texts)), 0
	hits := make([]float64, len(terms))
	for _, t := range texts {
		ws := vector.Words(t)
		total += len(ws)
		for i, term := range terms {
			if slices.Contains(ws, term) {
				hits[i]++
			}
		}
	}
	out := make([]float64, len(texts))
	for d, t := range texts {
		ws := vector.Words(t)
		for i, term := range terms {
			tf := float64(strings.Count(" "+strings.Join(ws, " ")+" ", " "+term+" "))
			if tf > 0 {
				idf := math.Log(1 + (n-hits[i]+0.5)/(hits[i]+0.5))
				out[d] += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(len(ws))*n/float64(total)))
			}
		}
	}
	return out
}

// dense ranks scores best first (lower first when asc), equal scores sharing a rank.
func dense(scores []float64, asc bool) []int {
	d := slices.Clone(scores)
	slices.Sort(d)
	d = slices.Compact(d)
	if !asc {
		slices.Reverse(d)
	}
	out := make([]int, len(scores))
	for i, s := range scores {
		out[i] = slices.Index(d, s) + 1
	}
	return out
}

// TestTextAndHybridSearch: across 4 physical partitions, Text returns the BM25 order and Hybrid
// the RRF of the test's own vector and BM25 rankings (scores compared, ties in any order).
func TestTextAndHybridSearch(t *testing.T) {
	t.Parallel()
	const dims = 16
	props := vectorProps(azcosmos.VectorDistanceFunctionCosine, dims, azcosmos.VectorIndexTypeFlat)
	props.FullTextPolicy = &azcosmos.FullTextPolicy{DefaultLanguage: "en-US", FullTextPaths: []azcosmos.FullTextPath{{Path: "/text", Language: "en-US"}}}
	props.IndexingPolicy.FullTextIndexes = []azcosmos.FullTextIndex{{Path: "/text"}}
	c := newContainer(t, 4, props)
	words := []string{"river", "stone", "cloud", "ember", "frost", "meadow", "pine"}
	docs := corpus(90, dims, 21)
	texts := make([]string, len(docs))
	ctx := context.Background()
	for i := range docs {
		var ws []string
		for j := 0; j < 2+i%5; j++ {
			ws = append(ws, words[(i*7+j*j*3+j)%len(words)])
		}
		texts[i] = strings.Join(ws, " ")
		b, _ := json.Marshal(map[string]any{"id": docs[i].ID, "pk": docs[i].PK, "text": texts[i], "embedding": docs[i].Embedding})
		if _, err := c.UpsertItem(ctx, azcosmos.NewPartitionKeyString(docs[i].PK), b, nil); err != nil {
			t.Fatal(err)
		}
	}
	s := newSearcher(t, c, vector.Options{})
	qv := corpus(1, dims, 22)[0].Embedding
	terms := []string{"frost", "pine"}
	text := bm25Scores(texts, terms)
	cos := make([]float64, len(docs))
	for _, e := range bruteForce(docs, qv, azcosmos.VectorDistanceFunctionCosine, len(docs), func(doc) bool { return true }) {
		cos[slices.IndexFunc(docs, func(d doc) bool { return d.ID == e.id })] = e.score
	}
	index := func(id string) int { return slices.IndexFunc(docs, func(d doc) bool { return d.ID == id }) }
	check := func(name string, res vector.Result[json.RawMessage], want []float64) {
		t.Helper()
		best := slices.Clone(want)
		slices.Sort(best)
		slices.Reverse(best)
		if len(res.Hits) != 10 || !res.CrossPartition {
			t.Fatalf("%s: %d hits, cross-partition %v", name, len(res.Hits), res.CrossPartition)
		}
		for i, h := range res.Hits {
			var it struct{ ID string }
			_ = json.Unmarshal(h.Item, &it)
			if got := want[index(it.ID)]; math.Abs(got-best[i]) > 1e-9 {
				t.Fatalf("%s hit %d: %s scores %v, want %v", name, i, it.ID, got, best[i])
			}
		}
	}
	res, err := s.Text(ctx, vector.Query{K: 10, Fields: []string{"id", "text"}}, vector.TextRank{Path: "/text", Terms: terms})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != vector.MethodFullText {
		t.Fatalf("Text method %q", res.Method)
	}
	check("Text", res, text)

	tr, vr := dense(text, false), dense(cos, false)
	fused := make([]float64, len(docs))
	for i := range docs {
		fused[i] = 1/float64(60+vr[i]) + 1/float64(60+tr[i])
	}
	res, err = s.Hybrid(ctx, vector.Query{Vector: qv, K: 10}, vector.TextRank{Path: "/text", Terms: terms})
	if err != nil {
		t.Fatal(err)
	}
	check("Hybrid", res, fused)
	for _, h := range res.Hits {
		var it struct{ ID string }
		_ = json.Unmarshal(h.Item, &it)
		if math.Abs(h.Score-cos[index(it.ID)]) > 1e-6 {
			t.Fatalf("Hybrid hit %s: score %v, want its cosine %v", it.ID, h.Score, cos[index(it.ID)])
		}
	}
	// Weights: the text ranking counts three times.
	for i := range docs {
		fused[i] = 1/float64(60+vr[i]) + 3/float64(60+tr[i])
	}
	res, err = s.Hybrid(ctx, vector.Query{Vector: qv, K: 10}, vector.TextRank{Path: "/text", Terms: terms, Weights: []float64{1, 3}})
	if err != nil {
		t.Fatal(err)
	}
	check("weighted Hybrid", res, fused)

	// Within one partition key: one query, hits of that partition only.
	res, err = s.Hybrid(ctx, vector.Query{Vector: qv, K: 3, PartitionKey: partitionkey.Of("p03"), Fields: []string{"id", "pk"}}, vector.TextRank{Path: "/text", Terms: terms})
	if err != nil || res.CrossPartition || len(res.Hits) != 3 {
		t.Fatalf("partition-scoped Hybrid: %+v, %v", res, err)
	}
	for _, h := range res.Hits {
		var it struct{ PK string }
		_ = json.Unmarshal(h.Item, &it)
		if it.PK != "p03" {
			t.Fatalf("partition-scoped Hybrid returned %s", h.Item)
		}
	}
}

func TestTextAndHybridValidation(t *testing.T) {
	t.Parallel()
	props := vectorProps(azcosmos.VectorDistanceFunctionCosine, 4, azcosmos.VectorIndexTypeFlat)
	c := newContainer(t, 1, props)
	s := newSearcher(t, c, vector.Options{})
	ctx := context.Background()
	v := []float32{1, 0, 0, 0}
	ft := vector.TextRank{Path: "/text", Terms: []string{"a"}}
	for name, call := range map[string]func() error{
		"text with a vector": func() error { _, err := s.Text(ctx, vector.Query{K: 1, Vector: v}, ft); return err },
		"no terms":           func() error { _, err := s.Text(ctx, vector.Query{K: 1}, vector.TextRank{Path: "/text"}); return err },
		"empty term": func() error {
			_, err := s.Text(ctx, vector.Query{K: 1}, vector.TextRank{Path: "/text", Terms: []string{" !"}})
			return err
		},
		"bad path": func() error {
			_, err := s.Text(ctx, vector.Query{K: 1}, vector.TextRank{Path: "text", Terms: []string{"a"}})
			return err
		},
		"k zero": func() error { _, err := s.Hybrid(ctx, vector.Query{Vector: v}, ft); return err },
		"one weight": func() error {
			_, err := s.Hybrid(ctx, vector.Query{K: 1, Vector: v}, vector.TextRank{Path: "/text", Terms: []string{"a"}, Weights: []float64{1}})
			return err
		},
		"NaN weight": func() error {
			_, err := s.Hybrid(ctx, vector.Query{K: 1, Vector: v}, vector.TextRank{Path: "/text", Terms: []string{"a"}, Weights: []float64{1, math.NaN()}})
			return err
		},
		"reserved parameter": func() error {
			_, err := s.Text(ctx, vector.Query{K: 1, Where: "c.x = @t0", Params: []azcosmos.QueryParameter{{Name: "@t0", Value: 1}}}, ft)
			return err
		},
		"wrong dimensions": func() error { _, err := s.Hybrid(ctx, vector.Query{K: 1, Vector: v[:2]}, ft); return err },
		"weights with Text": func() error {
			_, err := s.Text(ctx, vector.Query{K: 1}, vector.TextRank{Path: "/text", Terms: []string{"a"}, Weights: []float64{1, 1}})
			return err
		},
	} {
		if err := call(); !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("%s: %v, want ErrValidation", name, err)
		}
	}
}
