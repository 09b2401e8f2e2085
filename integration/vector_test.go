package integration

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// scenarioVector provisions a container with a vector embedding policy, stores 40 documents
// embedded with the deterministic vector.HashEmbedder and checks a cross-partition and a
// single-partition vector search against the exact top 5 computed here.
func scenarioVector(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient, lenient bool) {
	const dims = 64
	props := azcosmos.ContainerProperties{
		ID:                     "vectors",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/tenant"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2},
		VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{
			{Path: "/embedding", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionCosine, Dimensions: dims}}},
		IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/embedding/*"}},
			VectorIndexes: []azcosmos.VectorIndex{{Path: "/embedding", Type: azcosmos.VectorIndexTypeFlat}}},
	}
	_, err := db.CreateContainer(ctx, props, nil)
	skipIfNotImplemented(t, lenient, "container with a vector policy", err)
	c, err := db.NewContainer("vectors")
	if err != nil {
		t.Fatal(err)
	}
	e := vector.HashEmbedder{Dims: dims}
	type item struct {
		ID        string    `json:"id"`
		Tenant    string    `json:"tenant"`
		Embedding []float32 `json:"embedding"`
	}
	var items []item
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"}
	for i := range 40 {
		v, err := e.Embed(ctx, fmt.Sprintf("%s %s %s doc%d", words[i%7], words[(i/7)%7], words[(i*3)%7], i))
		if err != nil {
			t.Fatal(err)
		}
		it := item{ID: fmt.Sprintf("v%02d", i), Tenant: fmt.Sprintf("t%d", i%4), Embedding: v}
		items = append(items, it)
		if _, err := c.UpsertItem(ctx, azcosmos.NewPartitionKeyString(it.Tenant), docJSON(t, it), nil); err != nil {
			t.Fatalf("upsert: %v", err)
		}
	}
	q, _ := e.Embed(ctx, "alpha bravo delta")
	s, err := vector.New(c, vector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, scope := range [][]any{nil, {"t2"}} {
		res, err := s.Search(ctx, vector.Query{Vector: q, K: 5, PartitionKey: partitionkey.Of(scope...)})
		skipIfNotImplemented(t, lenient, "vector search", err)
		type scored struct {
			id    string
			score float64
		}
		var want []scored
		for _, it := range items {
			if scope != nil && it.Tenant != scope[0] {
				continue
			}
			var dot, na, nb float64
			for i := range q {
				dot += float64(q[i]) * float64(it.Embedding[i])
				na += float64(q[i]) * float64(q[i])
				nb += float64(it.Embedding[i]) * float64(it.Embedding[i])
			}
			want = append(want, scored{it.ID, dot / math.Sqrt(na*nb)})
		}
		slices.SortStableFunc(want, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
		if len(res.Hits) != 5 {
			t.Fatalf("scope %v: %d hits", scope, len(res.Hits))
		}
		for i, h := range res.Hits {
			// Ties (documents sharing the same words) may come in either order: compare scores.
			if math.Abs(h.Score-want[i].score) > 1e-5 {
				t.Errorf("scope %v hit %d: %s score %.6f, want %.6f (%s)", scope, i, h.Item, h.Score, want[i].score, want[i].id)
			}
		}
	}
}

func docJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
