// Package vector runs vector similarity searches (Cosmos DB's VectorDistance) on a container
// with a vector embedding policy. It searches typed over a repository.Repository[T]
// (ForRepository) or raw over a plain *azcosmos.ContainerClient (New).
//
//	s, err := vector.ForRepository(products, vector.Options{}) // keep one per container
//	q, _ := embedder.Embed(ctx, "waterproof hiking boots")
//	res, err := s.Search(ctx, vector.Query{Vector: q, K: 10}, repository.NewQuery().Where("category", repository.Eq, "shoes"))
//	for _, h := range res.Hits { fmt.Println(h.Item.Name, h.Score) }
//
// # The query
//
// Every search is one parameterised query, never a concatenated value:
//
//	SELECT TOP @k VALUE {"item": {"id": c.id, ...}, "score": VectorDistance(c.embedding, @vector)}
//	FROM c WHERE <filter> ORDER BY VectorDistance(c.embedding, @vector)
//
// TOP @k stays a parameter: the query plan request carries the parameters, and the service's plan
// (and cosmostest's) reports TOP's number, which the cross-partition merge needs; a plan without
// it would be refused by crosspartition (cosmoserr.ErrUnsupported), never answered uncut. The item projection lists the fields to return and
// leaves the embedding out unless Query.IncludeEmbedding is set: embeddings are the bulk of a
// document and of the response's size and RU.
//
// # The policy
//
// The distance function, data type and dimensions come from the container's vector embedding
// policy, read once (ContainerClient.Read) and cached per Searcher, with the vector index on the
// path from the indexing policy (Index). A query vector of the wrong dimensions, with a NaN or an
// infinity, or out of its data type's range is a *cosmoserr.ValidationError (cosmoserr.ErrInvalidVector) before any
// request. Hits are closest first: for cosine and dot product the score is a similarity (higher
// is closer), for Euclidean a distance (lower is closer); Index.HigherIsCloser says which.
// Normalize scales a vector to unit length and CheckUnit reports one that is not within
// UnitTolerance (1e-6): normalize embeddings for cosine (seed rule vector-normalize-embeddings).
//
// # Scope
//
// With Query.PartitionKey holding every component of the container's key, a search is one query
// to one partition (the cheap case). With a prefix of a hierarchical key it runs on the physical
// partitions holding the prefix, and with none on every physical partition: each returns its top
// k and the crosspartition engine merges the global top k (a non-streaming ORDER BY). K is
// required and at most Options.MaxK (DefaultMaxK, 1,000; see there why), never above
// crosspartition's MaxNonStreamingItems.
//
// # Recall and index
//
// Result.Method says what a search relied on: the vector index's type (flat: exact;
// quantizedFlat and diskANN: approximate) or MethodBruteForce. Query.Exact asks the service
// for a brute-force search (VectorDistance(..., true)), to measure the recall of an approximate
// index against the same filter and scope.
//
// # Embeddings
//
// An Embedder turns text into a vector; plug a real model in behind its one method. HashEmbedder
// is deterministic feature hashing of words, for tests and demos only.
//
// # Full-text and hybrid search
//
// Text ranks by BM25 (ORDER BY RANK FullTextScore(path, @t0, ...)); Hybrid fuses the vector
// ranking with it by reciprocal rank fusion (ORDER BY RANK RRF(VectorDistance(...),
// FullTextScore(...)[, @weights])). Both take the Query's scope, filter and fields; across
// partitions they run the plan's hybridSearchQueryInfo through crosspartition (global
// statistics, component queries, fusion). The full-text predicates FullTextContains,
// FullTextContainsAll and FullTextContainsAny work in Query.Where, with parameters.
//
// # Not supported
//
// Embedding paths other than identifiers separated by / ("/embedding", "/vectors/text"); fields
// to return below the top level; continuation (a search returns its K hits at once); the BM25 and
// fused scores of Text and Hybrid hits (the service refuses FullTextScore and RRF in a projection).
package vector
