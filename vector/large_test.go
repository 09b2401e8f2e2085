package vector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"golang.org/x/sync/errgroup"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// The data set: 20,000 documents of 256 dimensions.
const largeDocs, largeDims = 20_000, 256

// The three embeddings of every large document (the same vector), one per distance function,
// each with another index type.
var largePaths = []struct {
	path string
	fn   azcosmos.VectorDistanceFunction
	idx  azcosmos.VectorIndexType
}{
	{"/cos", azcosmos.VectorDistanceFunctionCosine, azcosmos.VectorIndexTypeQuantizedFlat},
	{"/dot", azcosmos.VectorDistanceFunctionDotProduct, azcosmos.VectorIndexTypeDiskANN},
	{"/euc", azcosmos.VectorDistanceFunctionEuclidean, azcosmos.VectorIndexTypeFlat},
}

var (
	largeMu      sync.Mutex
	largeC       = map[int]*azcosmos.ContainerClient{}
	largeServers []*cosmostest.Server // closed by TestMain
	largeData    = sync.OnceValue(func() []doc { return corpus(largeDocs, largeDims, 2026) })
)

// largeContainer returns a container with parts physical partitions holding the large data set;
// it lives for the whole run.
func largeContainer(tb testing.TB, parts int) *azcosmos.ContainerClient {
	tb.Helper()
	largeMu.Lock()
	defer largeMu.Unlock()
	if c, ok := largeC[parts]; ok {
		return c
	}
	s, err := cosmostest.Start(cosmostest.WithPartitionCount(parts), cosmostest.WithHTTP())
	if err != nil {
		tb.Fatal(err)
	}
	largeServers = append(largeServers, s)
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		tb.Fatal(err)
	}
	c := loadLarge(tb, client, parts)
	largeC[parts] = c
	return c
}

// loadLarge creates database db and container c (vector policy and indexes for largePaths) through
// client and loads the large data set into it.
func loadLarge(tb testing.TB, client *azcosmos.Client, parts int) *azcosmos.ContainerClient {
	tb.Helper()
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		tb.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	props := azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2},
		VectorEmbeddingPolicy:  &azcosmos.VectorEmbeddingPolicy{},
		IndexingPolicy:         &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent, IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}},
	}
	for _, p := range largePaths {
		props.VectorEmbeddingPolicy.VectorEmbeddings = append(props.VectorEmbeddingPolicy.VectorEmbeddings,
			azcosmos.VectorEmbedding{Path: p.path, DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: p.fn, Dimensions: largeDims})
		props.IndexingPolicy.ExcludedPaths = append(props.IndexingPolicy.ExcludedPaths, azcosmos.ExcludedPath{Path: p.path + "/*"})
		props.IndexingPolicy.VectorIndexes = append(props.IndexingPolicy.VectorIndexes, azcosmos.VectorIndex{Path: p.path, Type: p.idx})
	}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		tb.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	start := time.Now()
	defer func() { tb.Logf("loaded %d documents on %d partitions in %v", largeDocs, parts, time.Since(start)) }()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, d := range largeData() {
		g.Go(func() error {
			b, _ := json.Marshal(map[string]any{"id": d.ID, "pk": d.PK, "cat": d.Cat, "cos": d.Embedding, "dot": d.Embedding, "euc": d.Embedding})
			_, err := c.UpsertItem(gctx, azcosmos.NewPartitionKeyString(d.PK), b, nil)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestLargeSearchEqualsBruteForce is the acceptance run: 20,000 documents of 256
// dimensions on 1, 4 and 8 physical partitions; for each distance function, with and without a
// filter, scoped to a partition key and not, the top 10 equals the exact top 10 (same order,
// scores within 1e-6). It loads 60,000 documents (about 45 s per container on an idle machine):
// skipped with -short and under -race (make test), where TestSearchEqualsBruteForce checks the
// same cases on 400 documents of 16 dimensions. Run it with go test -run Large ./vector/.
func TestLargeSearchEqualsBruteForce(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("-short or -race: 60,000 documents to load; run without -race")
	}
	docs := largeData()
	queries := corpus(2, largeDims, 77)
	ctx := context.Background()
	for _, parts := range []int{1, 4, 8} {
		c := largeContainer(t, parts)
		start := time.Now()
		for _, p := range largePaths {
			s := newSearcher(t, c, vector.Options{Path: p.path})
			for qi, qd := range queries {
				for _, filtered := range []bool{false, true} {
					for _, scoped := range []bool{false, true} {
						q := vector.Query{Vector: qd.Embedding, K: 10}
						keep := func(d doc) bool { return true }
						if filtered {
							q.Where, q.Params = "c.cat IN (@x, @y)", []azcosmos.QueryParameter{{Name: "@x", Value: "a"}, {Name: "@y", Value: "c"}}
							keep = func(d doc) bool { return d.Cat != "b" }
						}
						if scoped {
							q.PartitionKey = partitionkey.Of("p13")
							k0 := keep
							keep = func(d doc) bool { return k0(d) && d.PK == "p13" }
						}
						res, err := s.Search(ctx, q)
						if err != nil {
							t.Fatal(err)
						}
						want := bruteForce(docs, qd.Embedding, p.fn, 10, keep)
						name := fmt.Sprintf("%d partitions %s query %d filtered=%v scoped=%v", parts, p.fn, qi, filtered, scoped)
						if len(res.Hits) != 10 {
							t.Fatalf("%s: %d hits", name, len(res.Hits))
						}
						for i, h := range res.Hits {
							var it struct{ ID string }
							_ = json.Unmarshal(h.Item, &it)
							if it.ID != want[i].id || math.Abs(h.Score-want[i].score) > 1e-6 {
								t.Fatalf("%s: hit %d %s %.9f, want %s %.9f", name, i, it.ID, h.Score, want[i].id, want[i].score)
							}
						}
					}
				}
			}
		}
		t.Logf("%d partitions: 48 searches checked in %v", parts, time.Since(start))
	}
}

// BenchmarkSearchTop10 is a cross-partition top-10 cosine search over the 20,000 documents on 8
// physical partitions against the same search on 1 (goal: at most 1.5x). allocs/hit counts the
// allocations of the whole process (client, engine and the in-process server) per returned hit.
func BenchmarkSearchTop10(b *testing.B) {
	q := corpus(1, largeDims, 5)[0].Embedding
	for _, parts := range []int{1, 8} {
		c := largeContainer(b, parts)
		s := newSearcher(b, c, vector.Options{Path: "/cos"})
		b.Run(fmt.Sprintf("partitions=%d", parts), func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			hits := 0
			for b.Loop() {
				res, err := s.Search(ctx, vector.Query{Vector: q, K: 10})
				if err != nil {
					b.Fatal(err)
				}
				hits += len(res.Hits)
			}
			if hits == 0 {
				b.Fatal("no hits")
			}
		})
	}
}
