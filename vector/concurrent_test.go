package vector_test

import (
	"context"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// TestSearcherShared: one Searcher serves many goroutines (run under -race); the container's
// properties are read once for all of them, and every goroutine gets the same top k.
func TestSearcherShared(t *testing.T) {
	t.Parallel()
	srv, c := newServerContainer(t, 4, vectorProps(azcosmos.VectorDistanceFunctionEuclidean, 8, azcosmos.VectorIndexTypeFlat))
	docs := corpus(80, 8, 5)
	load(t, c, docs, nil)
	s := newSearcher(t, c, vector.Options{})
	q := corpus(1, 8, 6)[0].Embedding
	want := bruteForce(docs, q, azcosmos.VectorDistanceFunctionEuclidean, 5, func(doc) bool { return true })
	srv.ResetRequests()
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for g := range 16 {
		wg.Go(func() {
			qq := vector.Query{Vector: q, K: 5}
			if g%2 == 1 {
				qq.PartitionKey = partitionkey.Of("p03")
			}
			res, err := s.Search(context.Background(), qq)
			if err != nil {
				errs <- err.Error()
				return
			}
			if g%2 == 0 && (len(res.Hits) != 5 || string(res.Hits[0].Item) != `{"id":"`+want[0].id+`","pk":"`+docOf(docs, want[0].id).PK+`"}`) {
				errs <- "wrong hits: " + string(res.Hits[0].Item)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := srv.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReadContainer}); n != 1 {
		t.Fatalf("the container's properties were read %d times, want 1", n)
	}
}

func docOf(docs []doc, id string) doc {
	for _, d := range docs {
		if d.ID == id {
			return d
		}
	}
	return doc{}
}
