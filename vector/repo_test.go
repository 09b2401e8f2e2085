package vector_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

type article struct {
	ID        string    `json:"id"`
	Tenant    string    `json:"tenant"`
	User      string    `json:"user"`
	Cat       string    `json:"cat"`
	Embedding []float32 `json:"embedding,omitempty"`
}

// TestRepoSearch: a typed search over a repository on a hierarchical key (tenant, user), with the
// repository's filter, scoped to a full key, a prefix and nothing, equals brute force; items are
// decoded as T without the embedding unless asked; Exact reports brute force.
func TestRepoSearch(t *testing.T) {
	t.Parallel()
	const dims = 8
	props := vectorProps(azcosmos.VectorDistanceFunctionCosine, dims, azcosmos.VectorIndexTypeDiskANN)
	props.PartitionKeyDefinition = azcosmos.PartitionKeyDefinition{Paths: []string{"/tenant", "/user"}, Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2}
	c := newContainer(t, 4, props)
	repo, err := repository.New(c, repository.Options[article]{Type: "article", PartitionKeyPaths: []string{"/tenant", "/user"},
		Key: func(a article) (string, azcosmos.PartitionKey) {
			return a.ID, azcosmos.NewPartitionKeyString(a.Tenant).AppendString(a.User)
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	docs := corpus(240, dims, 3)
	byID := map[string]article{}
	for i, d := range docs {
		a := article{ID: d.ID, Tenant: fmt.Sprintf("t%d", i%3), User: fmt.Sprintf("u%d", i%5), Cat: d.Cat, Embedding: d.Embedding}
		byID[a.ID] = a
		if _, err := repo.Upsert(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	// A document of another type in the same container is never a hit.
	b := []byte(`{"id":"other","tenant":"t1","user":"u1","type":"note","embedding":[1,0,0,0,0,0,0,0]}`)
	if _, err := c.UpsertItem(ctx, azcosmos.NewPartitionKeyString("t1").AppendString("u1"), b, nil); err != nil {
		t.Fatal(err)
	}
	s, err := vector.ForRepository(repo, vector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	qv := corpus(1, dims, 42)[0].Embedding
	// A filter carries no scope: one scoped with Partition or CrossPartition is refused rather than
	// silently searching every tenant.
	for _, f := range []*repository.Query{
		repository.NewQuery().Where("cat", repository.Ne, "a").Partition(partitionkey.Of("t1")),
		repository.NewQuery().CrossPartition(),
	} {
		if _, err := s.Search(ctx, vector.Query{Vector: qv, K: 10}, f); !errors.Is(err, cosmoserr.ErrValidation) {
			t.Fatalf("scoped filter: %v, want ErrValidation", err)
		}
	}
	for _, scope := range [][]any{nil, {"t1"}, {"t1", "u1"}} {
		for _, exact := range []bool{false, true} {
			res, err := s.Search(ctx, vector.Query{Vector: qv, K: 10, PartitionKey: partitionkey.Of(scope...), Exact: exact}, repository.NewQuery().Where("cat", repository.Ne, "a"))
			if err != nil {
				t.Fatalf("scope %v: %v", scope, err)
			}
			want := bruteForce(docs, qv, azcosmos.VectorDistanceFunctionCosine, 10, func(d doc) bool {
				a := byID[d.ID]
				return d.Cat != "a" && (len(scope) < 1 || a.Tenant == scope[0]) && (len(scope) < 2 || a.User == scope[1])
			})
			if len(res.Hits) != len(want) {
				t.Fatalf("scope %v: %d hits, want %d", scope, len(res.Hits), len(want))
			}
			for i, h := range res.Hits {
				if h.Item.ID != want[i].id || math.Abs(h.Score-want[i].score) > 1e-6 || h.Item.Embedding != nil || h.Item.Tenant == "" {
					t.Fatalf("scope %v hit %d: %+v %.9f, want %s %.9f", scope, i, h.Item, h.Score, want[i].id, want[i].score)
				}
			}
			wantMethod := vector.MethodDiskANN
			if exact {
				wantMethod = vector.MethodBruteForce
			}
			if res.Method != wantMethod || res.CrossPartition != (len(scope) < 2) {
				t.Fatalf("scope %v exact %v: method %s cross %v", scope, exact, res.Method, res.CrossPartition)
			}
		}
	}
	res, err := s.Search(ctx, vector.Query{Vector: qv, K: 3, IncludeEmbedding: true}, nil)
	if err != nil || len(res.Hits) != 3 || len(res.Hits[0].Item.Embedding) != dims {
		t.Fatalf("IncludeEmbedding: %+v %v", res.Hits, err)
	}
	res, err = s.Search(ctx, vector.Query{Vector: qv, K: 3, Fields: []string{"cat"}}, nil)
	if err != nil || len(res.Hits) != 3 || res.Hits[0].Item.Cat == "" || res.Hits[0].Item.Tenant != "" || res.Hits[0].Item.ID == "" {
		t.Fatalf("Fields: %+v %v", res.Hits, err)
	}
	_, err = s.Search(ctx, vector.Query{Vector: qv, K: 3}, repository.NewQuery().OrderBy("cat", repository.Asc))
	if !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("a filter with OrderBy: %v", err)
	}
}
