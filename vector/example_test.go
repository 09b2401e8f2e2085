package vector_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// Product is a document with an embedding of its description.
type Product struct {
	ID          string    `json:"id"`
	Category    string    `json:"category"`
	Description string    `json:"description"`
	Embedding   []float32 `json:"embedding,omitempty"`
}

// Semantic search over a repository's items on an in-process cosmostest server with two
// physical partitions: the closest products to a text across every category, and then within
// one. HashEmbedder stands in for a real model.
func ExampleForRepository() {
	s, err := cosmostest.Start(cosmostest.WithPartitionCount(2))
	if err != nil {
		panic(err)
	}
	defer s.Close()
	client, _ := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil); err != nil {
		panic(err)
	}
	db, _ := client.NewDatabase("shop")
	const dims = 64
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "products",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/category"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2},
		VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{{Path: "/embedding",
			DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionCosine, Dimensions: dims}}},
		IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/embedding/*"}},
			VectorIndexes: []azcosmos.VectorIndex{{Path: "/embedding", Type: azcosmos.VectorIndexTypeFlat}}},
	}, nil); err != nil {
		panic(err)
	}
	container, _ := db.NewContainer("products")
	products, err := repository.New(container, repository.Options[Product]{Type: "product",
		Key: func(p Product) (string, azcosmos.PartitionKey) {
			return p.ID, azcosmos.NewPartitionKeyString(p.Category)
		}})
	if err != nil {
		panic(err)
	}

	embedder := vector.HashEmbedder{Dims: dims} // a real model plugs in here (vector.Embedder)
	for _, p := range []Product{
		{ID: "boots", Category: "shoes", Description: "waterproof hiking boots"},
		{ID: "sandals", Category: "shoes", Description: "light beach sandals"},
		{ID: "jacket", Category: "clothing", Description: "waterproof rain jacket"},
		{ID: "kettle", Category: "kitchen", Description: "electric kettle for tea"},
	} {
		if p.Embedding, err = embedder.Embed(ctx, p.Description); err != nil {
			panic(err)
		}
		if _, err := products.Create(ctx, p); err != nil {
			panic(err)
		}
	}

	search, err := vector.ForRepository(products, vector.Options{}) // keep one per container: it caches the policy
	if err != nil {
		panic(err)
	}
	q, _ := embedder.Embed(ctx, "waterproof boots for hiking")
	res, err := search.Search(ctx, vector.Query{Vector: q, K: 2}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("every category:", res.CrossPartition, res.Method)
	for _, h := range res.Hits {
		fmt.Printf("  %s %.2f\n", h.Item.ID, h.Score)
	}
	res, err = search.Search(ctx, vector.Query{Vector: q, K: 2, PartitionKey: partitionkey.Of("shoes")}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("shoes only:", res.CrossPartition)
	for _, h := range res.Hits {
		fmt.Printf("  %s %.2f\n", h.Item.ID, h.Score)
	}

	// A query vector of the wrong size is refused before anything is sent.
	_, err = search.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: 2}, nil)
	var ve *cosmoserr.ValidationError
	fmt.Println(errors.As(err, &ve), errors.Is(err, cosmoserr.ErrInvalidVector), ve.Field)
	// Output:
	// every category: true flat
	//   boots 0.87
	//   jacket 0.29
	// shoes only: false
	//   boots 0.87
	//   sandals 0.00
	// true true Vector
}

// Normalize embeddings for cosine search; CheckUnit tells a vector that is not of unit length.
func ExampleNormalize() {
	v, err := vector.Normalize([]float32{3, 4})
	fmt.Println(v, err)
	fmt.Println(vector.CheckUnit(v), errors.Is(vector.CheckUnit([]float32{3, 4}), cosmoserr.ErrNotUnit))

	_, err = vector.Normalize([]float32{0, 0})
	fmt.Println(errors.Is(err, cosmoserr.ErrInvalidVector))
	// Output:
	// [0.6 0.8] <nil>
	// <nil> true
	// true
}
