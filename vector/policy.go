package vector

import (
	"context"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Method says how the service answers a search: through the container's vector index on the
// path (its type), or by brute force. Brute force is an exact search: Query.Exact, or no vector
// index on the path, in which case every document in scope is compared (expensive: use it only for
// small containers and recall checks).
type Method string

// The methods a search can rely on.
const (
	MethodFlat          Method = Method(azcosmos.VectorIndexTypeFlat)          // exact, up to 505 dimensions
	MethodQuantizedFlat Method = Method(azcosmos.VectorIndexTypeQuantizedFlat) // approximate (quantized), then re-scored
	MethodDiskANN       Method = Method(azcosmos.VectorIndexTypeDiskANN)       // approximate graph search
	MethodBruteForce    Method = "bruteForce"                                  // every document in scope, exact
)

// Index is what a Searcher read from the container's properties (once, then cached). It holds the
// vector embedding policy of its path, the vector index on that path, and the partition key paths.
type Index struct {
	Path              string                          // "/embedding"
	DataType          azcosmos.VectorDataType         // float32, float16, int8 or uint8
	DistanceFunction  azcosmos.VectorDistanceFunction // cosine, dotproduct or euclidean
	Dimensions        int                             // of every vector on Path
	IndexType         azcosmos.VectorIndexType        // "" when the path has no vector index
	PartitionKeyPaths []string                        // broadest first
	// FullTextPaths are the paths of the container's full-text policy; empty when it has none.
	// Text and Hybrid score other paths too (the service then works without the full-text index).
	FullTextPaths []string
}

// HigherIsCloser reports the direction of a score: true for cosine and dot product (a
// similarity: higher is closer), false for Euclidean (a distance: lower is closer). Results are
// always ordered closest first; the service picks the direction from the policy.
func (ix Index) HigherIsCloser() bool {
	return !strings.EqualFold(string(ix.DistanceFunction), string(azcosmos.VectorDistanceFunctionEuclidean))
}

// Method returns how a search with exact (Query.Exact) is answered.
func (ix Index) Method(exact bool) Method {
	if exact || ix.IndexType == "" {
		return MethodBruteForce
	}
	return Method(ix.IndexType)
}

// indexFrom picks the embedding at path (or the only one when path is "") from props.
func indexFrom(props *azcosmos.ContainerProperties, path string) (Index, error) {
	if props.VectorEmbeddingPolicy == nil || len(props.VectorEmbeddingPolicy.VectorEmbeddings) == 0 {
		return Index{}, invalid(cosmoserr.ErrNoPolicy, "Path", "container %q has no vector embedding policy", props.ID)
	}
	embs := props.VectorEmbeddingPolicy.VectorEmbeddings
	var e *azcosmos.VectorEmbedding
	switch {
	case path == "" && len(embs) == 1:
		e = &embs[0]
	case path == "":
		return Index{}, invalid(cosmoserr.ErrNoPolicy, "Path", "container %q has %d vector embeddings: set Options.Path", props.ID, len(embs))
	default:
		for i := range embs {
			if embs[i].Path == path {
				e = &embs[i]
			}
		}
		if e == nil {
			return Index{}, invalid(cosmoserr.ErrNoPolicy, "Path", "%q is not in the vector embedding policy of container %q", path, props.ID)
		}
	}
	if _, err := sqlPath(e.Path); err != nil {
		return Index{}, err
	}
	ix := Index{Path: e.Path, DataType: e.DataType, DistanceFunction: e.DistanceFunction, Dimensions: int(e.Dimensions),
		PartitionKeyPaths: props.PartitionKeyDefinition.Paths}
	if ix.DataType == "" {
		ix.DataType = azcosmos.VectorDataTypeFloat32
	}
	if ix.DistanceFunction == "" {
		ix.DistanceFunction = azcosmos.VectorDistanceFunctionCosine
	}
	if props.IndexingPolicy != nil {
		for _, vi := range props.IndexingPolicy.VectorIndexes {
			if vi.Path == e.Path {
				ix.IndexType = vi.Type
			}
		}
	}
	return ix, nil
}

// readIndex reads the container's properties. Without a vector embedding policy for path it
// returns the partition key and full-text paths with the policy error as vecErr (a Text search
// needs only the full-text policy); err is a failed read.
func readIndex(ctx context.Context, c *azcosmos.ContainerClient, path string) (ix Index, vecErr, err error) {
	resp, err := c.Read(ctx, nil)
	if err != nil {
		return Index{}, nil, cosmoserr.FromError(cosmoserr.OpReadContainer, err)
	}
	props := resp.ContainerProperties
	if props == nil {
		return Index{}, nil, invalid(cosmoserr.ErrNoPolicy, "Path", "the container's properties were not returned")
	}
	ix, vecErr = indexFrom(props, path)
	if vecErr != nil {
		ix = Index{PartitionKeyPaths: props.PartitionKeyDefinition.Paths}
	}
	if props.FullTextPolicy != nil {
		for _, p := range props.FullTextPolicy.FullTextPaths {
			ix.FullTextPaths = append(ix.FullTextPaths, p.Path)
		}
	}
	return ix, vecErr, nil
}
