package vector_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// newContainer starts a cosmostest server with n physical partitions and creates container "c"
// of database "db" with props (ID set here).
func newContainer(t testing.TB, n int, props azcosmos.ContainerProperties) *azcosmos.ContainerClient {
	t.Helper()
	_, c := newServerContainer(t, n, props)
	return c
}

// newServerContainer is newContainer that also returns the server.
func newServerContainer(t testing.TB, n int, props azcosmos.ContainerProperties) (*cosmostest.Server, *azcosmos.ContainerClient) {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(n))
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != http.StatusConflict {
			t.Fatal(err)
		}
	}
	db, _ := client.NewDatabase("db")
	props.ID = "c"
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	return s, c
}

// vectorProps is a container keyed on /pk with one embedding at /embedding.
func vectorProps(fn azcosmos.VectorDistanceFunction, dims int, idx azcosmos.VectorIndexType) azcosmos.ContainerProperties {
	return azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2},
		VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{
			{Path: "/embedding", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: fn, Dimensions: int32(dims)},
		}},
		IndexingPolicy: &azcosmos.IndexingPolicy{
			Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
			ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/embedding/*"}},
			VectorIndexes: []azcosmos.VectorIndex{{Path: "/embedding", Type: idx}},
		},
	}
}

// doc is a test document.
type doc struct {
	ID        string    `json:"id"`
	PK        string    `json:"pk"`
	Cat       string    `json:"cat"`
	Embedding []float32 `json:"embedding"`
	e64       []float64 // Embedding as the service reads its JSON (see jsonFloat)
}

// corpus returns n documents of dims random unit vectors over 20 partition keys and 3 categories.
func corpus(n, dims int, seed uint64) []doc {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]doc, n)
	for i := range out {
		v := make([]float32, dims)
		var s float64
		for j := range v {
			v[j] = float32(r.NormFloat64())
			s += float64(v[j]) * float64(v[j])
		}
		e := make([]float64, dims)
		for j := range v {
			v[j] = float32(float64(v[j]) / math.Sqrt(s))
			e[j] = jsonFloat(v[j])
		}
		out[i] = doc{ID: fmt.Sprintf("d%05d", i), PK: fmt.Sprintf("p%02d", i%20), Cat: []string{"a", "b", "c"}[i%3], Embedding: v, e64: e}
	}
	return out
}

func load(t testing.TB, c *azcosmos.ContainerClient, docs []doc, extra map[string]any) {
	t.Helper()
	ctx := context.Background()
	for _, d := range docs {
		m := map[string]any{"id": d.ID, "pk": d.PK, "cat": d.Cat, "embedding": d.Embedding}
		for k, v := range extra {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		if _, err := c.UpsertItem(ctx, azcosmos.NewPartitionKeyString(d.PK), b, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// exact is one brute-force hit.
type exact struct {
	id    string
	score float64
}

// bruteForce scores docs that pass keep against q with fn, in float64 from the float32 values
// (as the service parses their JSON), and returns the k closest.
func bruteForce(docs []doc, q []float32, fn azcosmos.VectorDistanceFunction, k int, keep func(doc) bool) []exact {
	q64 := make([]float64, len(q))
	for i, f := range q {
		q64[i] = jsonFloat(f)
	}
	var all []exact
	for _, d := range docs {
		if !keep(d) {
			continue
		}
		var dot, na, nb, sq float64
		for i := range q {
			x, y := d.e64[i], q64[i]
			dot += x * y
			na += x * x
			nb += y * y
			sq += (x - y) * (x - y)
		}
		var s float64
		switch fn {
		case azcosmos.VectorDistanceFunctionCosine:
			s = dot / (math.Sqrt(na) * math.Sqrt(nb))
		case azcosmos.VectorDistanceFunctionDotProduct:
			s = dot
		default:
			s = math.Sqrt(sq)
		}
		all = append(all, exact{d.ID, s})
	}
	slices.SortStableFunc(all, func(a, b exact) int {
		if fn == azcosmos.VectorDistanceFunctionEuclidean {
			return cmp.Compare(a.score, b.score)
		}
		return cmp.Compare(b.score, a.score)
	})
	return all[:min(k, len(all))]
}

// jsonFloat is the float64 the service reads for a float32 sent as JSON (encoding/json writes
// the shortest decimal that round-trips the float32).
func jsonFloat(f float32) float64 {
	x, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	return x
}

// newSearcher returns a Searcher over c with o, failing the test on a refusal.
func newSearcher(t testing.TB, c *azcosmos.ContainerClient, o vector.Options) *vector.Searcher {
	t.Helper()
	s, err := vector.New(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
