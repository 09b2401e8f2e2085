package vector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// TestSearchEqualsBruteForce: on 1, 4 and 8 physical partitions, for each distance function,
// with and without a filter, scoped to a partition key and not, the top 10 equals the exact top
// 10 computed here (same order, scores within 1e-6).
func TestSearchEqualsBruteForce(t *testing.T) {
	t.Parallel()
	const dims, n, k = 16, 400, 10
	docs := corpus(n, dims, 1)
	queries := corpus(3, dims, 99)
	for _, parts := range []int{1, 4, 8} {
		for _, fn := range []azcosmos.VectorDistanceFunction{azcosmos.VectorDistanceFunctionCosine, azcosmos.VectorDistanceFunctionDotProduct, azcosmos.VectorDistanceFunctionEuclidean} {
			t.Run(fmt.Sprintf("%dparts/%s", parts, fn), func(t *testing.T) {
				t.Parallel()
				c := newContainer(t, parts, vectorProps(fn, dims, azcosmos.VectorIndexTypeQuantizedFlat))
				load(t, c, docs, nil)
				s := newSearcher(t, c, vector.Options{})
				for qi, qd := range queries {
					for _, filtered := range []bool{false, true} {
						for _, scoped := range []bool{false, true} {
							q := vector.Query{Vector: qd.Embedding, K: k, Fields: []string{"id", "pk", "cat"}}
							keep := func(d doc) bool { return true }
							if filtered {
								q.Where, q.Params = "c.cat = @cat", []azcosmos.QueryParameter{{Name: "@cat", Value: "b"}}
								keep = func(d doc) bool { return d.Cat == "b" }
							}
							if scoped {
								q.PartitionKey = partitionkey.Of("p07")
								k0 := keep
								keep = func(d doc) bool { return k0(d) && d.PK == "p07" }
							}
							res, err := s.Search(context.Background(), q)
							if err != nil {
								t.Fatalf("query %d filtered=%v scoped=%v: %v", qi, filtered, scoped, err)
							}
							want := bruteForce(docs, qd.Embedding, fn, k, keep)
							if len(res.Hits) != len(want) {
								t.Fatalf("query %d filtered=%v scoped=%v: %d hits, want %d", qi, filtered, scoped, len(res.Hits), len(want))
							}
							for i, h := range res.Hits {
								var it struct {
									ID        string `json:"id"`
									PK, Cat   string
									Embedding []float32 `json:"embedding"`
								}
								if err := json.Unmarshal(h.Item, &it); err != nil {
									t.Fatal(err)
								}
								if it.ID != want[i].id || math.Abs(h.Score-want[i].score) > 1e-6 {
									t.Fatalf("query %d filtered=%v scoped=%v hit %d: %s %.9f, want %s %.9f", qi, filtered, scoped, i, it.ID, h.Score, want[i].id, want[i].score)
								}
								if it.Embedding != nil {
									t.Fatalf("hit %d carries the embedding", i)
								}
							}
							if res.CrossPartition == scoped || res.RequestCharge <= 0 || res.Method != vector.MethodQuantizedFlat {
								t.Fatalf("result %+v", res)
							}
						}
					}
				}
			})
		}
	}
}
