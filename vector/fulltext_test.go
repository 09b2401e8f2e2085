package vector_test

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// TestFullTextFilter: a vector search filtered by FullTextContainsAny (terms as parameters),
// across 4 physical partitions and in one, equals brute force over the documents holding a term.
func TestFullTextFilter(t *testing.T) {
	t.Parallel()
	const dims = 32
	props := vectorProps(azcosmos.VectorDistanceFunctionCosine, dims, azcosmos.VectorIndexTypeFlat)
	props.FullTextPolicy = &azcosmos.FullTextPolicy{DefaultLanguage: "en-US", FullTextPaths: []azcosmos.FullTextPath{{Path: "/text", Language: "en-US"}}}
	c := newContainer(t, 4, props)
	words := []string{"river", "stone", "cloud", "ember", "frost", "meadow"}
	docs := corpus(120, dims, 11)
	texts := map[string]string{}
	ctx := context.Background()
	for i := range docs {
		text := words[i%6] + " and " + words[(i/6)%6]
		texts[docs[i].ID] = text
		b, _ := json.Marshal(map[string]any{"id": docs[i].ID, "pk": docs[i].PK, "text": text, "embedding": docs[i].Embedding})
		if _, err := c.UpsertItem(ctx, azcosmos.NewPartitionKeyString(docs[i].PK), b, nil); err != nil {
			t.Fatal(err)
		}
	}
	s := newSearcher(t, c, vector.Options{})
	qv := corpus(1, dims, 12)[0].Embedding
	for _, scope := range [][]any{nil, {"p04"}} {
		res, err := s.Search(ctx, vector.Query{Vector: qv, K: 10, PartitionKey: partitionkey.Of(scope...), Fields: []string{"id", "text"},
			Where: "FullTextContainsAny(c.text, @w1, @w2)", Params: []azcosmos.QueryParameter{{Name: "@w1", Value: "Frost"}, {Name: "@w2", Value: "meadow"}}})
		if err != nil {
			t.Fatal(err)
		}
		want := bruteForce(docs, qv, azcosmos.VectorDistanceFunctionCosine, 10, func(d doc) bool {
			ws := vector.Words(texts[d.ID])
			return (slices.Contains(ws, "frost") || slices.Contains(ws, "meadow")) && (scope == nil || d.PK == scope[0])
		})
		if len(res.Hits) != len(want) || len(want) == 0 {
			t.Fatalf("scope %v: %d hits, want %d", scope, len(res.Hits), len(want))
		}
		for i, h := range res.Hits {
			var it struct{ ID string }
			_ = json.Unmarshal(h.Item, &it)
			if it.ID != want[i].id || math.Abs(h.Score-want[i].score) > 1e-6 {
				t.Fatalf("scope %v hit %d: %s %.9f, want %s %.9f", scope, i, it.ID, h.Score, want[i].id, want[i].score)
			}
		}
	}
}
