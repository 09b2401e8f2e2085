package cosmostest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestVectorIndexLimits: the service's limits on vector indexes at container create: flat up to
// 505 dimensions, quantizedFlat and diskANN up to 4,096; a vector index path must be in the
// embedding policy and excluded from the range index; otherwise 400.
func TestVectorIndexLimits(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t)
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	props := func(dims int32, typ azcosmos.VectorIndexType, indexPath, excluded string) azcosmos.ContainerProperties {
		p := azcosmos.ContainerProperties{
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
			VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{
				{Path: "/v", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionCosine, Dimensions: dims}}},
			IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
				IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
				VectorIndexes: []azcosmos.VectorIndex{{Path: indexPath, Type: typ}}},
		}
		if excluded != "" {
			p.IndexingPolicy.ExcludedPaths = []azcosmos.ExcludedPath{{Path: excluded}}
		}
		return p
	}
	cases := []struct {
		name string
		p    azcosmos.ContainerProperties
		ok   bool
	}{
		{"flat505", props(505, azcosmos.VectorIndexTypeFlat, "/v", "/v/*"), true},
		{"flat506", props(506, azcosmos.VectorIndexTypeFlat, "/v", "/v/*"), false},
		{"quantized4096", props(4096, azcosmos.VectorIndexTypeQuantizedFlat, "/v", "/v/*"), true},
		{"quantized4097", props(4097, azcosmos.VectorIndexTypeQuantizedFlat, "/v", "/v/*"), false},
		{"diskann4096", props(4096, azcosmos.VectorIndexTypeDiskANN, "/v", "/v/*"), true},
		{"diskann4097", props(4097, azcosmos.VectorIndexTypeDiskANN, "/v", "/v/*"), false},
		{"notInPolicy", props(8, azcosmos.VectorIndexTypeFlat, "/w", "/w/*"), false},
		{"notExcluded", props(8, azcosmos.VectorIndexTypeFlat, "/v", ""), false},
	}
	for i, tc := range cases {
		tc.p.ID = "c" + tc.name
		_, err := db.CreateContainer(ctx, tc.p, nil)
		var re *azcore.ResponseError
		switch {
		case tc.ok && err != nil:
			t.Errorf("%d %s: %v", i, tc.name, err)
		case !tc.ok && (!errors.As(err, &re) || re.StatusCode != http.StatusBadRequest):
			t.Errorf("%d %s: %v, want 400", i, tc.name, err)
		}
	}
}
