package cosmostest

import "strings"

// Vector index limits the service enforces when a container is created: a flat index holds
// vectors of at most 505 dimensions, quantizedFlat and diskANN at most 4,096.
const (
	maxFlatDimensions   = 505
	maxVectorDimensions = 4096
)

// validateVectorPolicy checks a container's vectorEmbeddingPolicy against its indexing policy's
// vectorIndexes as the service does at create: every embedding has a path, a known data type and
// distance function and positive dimensions; every vector index names a path of the embedding
// policy, a known type within its dimension limit, and a path excluded from the range index
// (excludedPaths "<path>/*" or "<path>/?"). The messages are cosmostest's own wording (the status
// and the rule are the service's; its exact text is not documented).
func validateVectorPolicy(props map[string]any) error {
	dims := map[string]float64{}
	if vep, ok := props["vectorEmbeddingPolicy"].(map[string]any); ok {
		embs, _ := vep["vectorEmbeddings"].([]any)
		for _, e := range embs {
			m, _ := e.(map[string]any)
			path, _ := m["path"].(string)
			if !strings.HasPrefix(path, "/") || len(path) < 2 {
				return badRequest("The Vector Embedding Policy has an invalid path %q.", path)
			}
			if _, dup := dims[path]; dup {
				return badRequest("The Vector Embedding Policy has the path %q more than once.", path)
			}
			switch dt, _ := m["dataType"].(string); strings.ToLower(dt) {
			case "float32", "float16", "uint8", "int8":
			default:
				return badRequest("The Vector Embedding Policy's path %q has an invalid dataType %q.", path, dt)
			}
			switch df, _ := m["distanceFunction"].(string); strings.ToLower(df) {
			case "cosine", "dotproduct", "euclidean":
			default:
				return badRequest("The Vector Embedding Policy's path %q has an invalid distanceFunction %q.", path, df)
			}
			d, _ := m["dimensions"].(float64)
			if d < 1 || d != float64(int64(d)) {
				return badRequest("The Vector Embedding Policy's path %q must have positive integer dimensions.", path)
			}
			dims[path] = d
		}
	}
	ip, _ := props["indexingPolicy"].(map[string]any)
	vis, _ := ip["vectorIndexes"].([]any)
	excluded := map[string]bool{}
	if eps, ok := ip["excludedPaths"].([]any); ok {
		for _, e := range eps {
			if m, ok := e.(map[string]any); ok {
				if p, ok := m["path"].(string); ok {
					excluded[p] = true
				}
			}
		}
	}
	for _, v := range vis {
		m, _ := v.(map[string]any)
		path, _ := m["path"].(string)
		d, ok := dims[path]
		if !ok {
			return badRequest("The Vector Indexing Policy's path %q is not present in the Vector Embedding Policy.", path)
		}
		if !excluded[path+"/*"] && !excluded[path+"/?"] && !excluded["/*"] {
			return badRequest("The Vector Indexing Policy's path %q must be excluded from the indexing policy's excludedPaths (%q).", path, path+"/*")
		}
		switch t, _ := m["type"].(string); strings.ToLower(t) {
		case "flat":
			if d > maxFlatDimensions {
				return badRequest("The Vector Indexing Policy's path %q has %d dimensions: a flat index supports at most %d.", path, int64(d), maxFlatDimensions)
			}
		case "quantizedflat", "diskann":
			if d > maxVectorDimensions {
				return badRequest("The Vector Indexing Policy's path %q has %d dimensions: a %s index supports at most %d.", path, int64(d), t, maxVectorDimensions)
			}
		default:
			return badRequest("The Vector Indexing Policy's path %q has an invalid type %q.", path, t)
		}
	}
	return nil
}
