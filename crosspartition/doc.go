// Package crosspartition runs Cosmos DB NoSQL queries across physical partitions the way the
// .NET, Java, JS, Python and Rust SDKs do, on a plain *azcosmos.ContainerClient: ORDER BY (one
// or several keys), TOP, OFFSET/LIMIT, DISTINCT, aggregates (COUNT, SUM, MIN, MAX, AVG,
// COUNT(DISTINCT)), GROUP BY and ORDER BY VectorDistance, none of which the gateway serves across
// partitions by itself (azcosmos v1.5.0 passes its 400/1004 through).
//
// It is not the query language engine (internal/query, which cosmostest runs): it never parses
// or rewrites a query. Adopting it is one call:
//
//	xq, err := crosspartition.New(container, crosspartition.Options{}) // keep one per container: it caches the routing map
//	pager := xq.NewQueryItemsPager("SELECT TOP 10 c.id, c.total FROM c ORDER BY c.total DESC", nil)
//	for pager.More() {
//		page, err := pager.NextPage(ctx) // an azcosmos.QueryItemsResponse, as before
//		...
//	}
//
// # How it works
//
//   - The plan comes from the service: a query plan request (POST .../docs with
//     x-ms-cosmos-is-query-plan-request, x-ms-cosmos-query-version and the supported features),
//     or the plan a 400/1004 carries in additionalErrorInfo. The per-partition query is the plan's
//     rewrittenQuery (its ORDER BY filter placeholder set to true), or the query itself when the
//     plan rewrites nothing.
//   - Targeting: the container's partition key ranges (read through the SDK and cached; see
//     below) that overlap the plan's queryRanges, each sent with x-ms-documentdb-partitionkeyrangeid.
//     A query whose WHERE pins the partition key goes to that one range.
//   - Merging: streaming ORDER BY is a k-way merge on orderByItems in Cosmos DB's cross-type order
//     (undefined < null < booleans < numbers < strings < arrays < objects), ties going to the range
//     earlier in EPK order and then to the range's own order, as the SDKs do; then DISTINCT
//     (ordered: consecutive duplicates; unordered: a set), OFFSET and TOP/LIMIT. Aggregates merge
//     the ranges' partial results with the service's undefined rules (SUM over a non-number and
//     MIN/MAX over arrays or objects are undefined; MIN/MAX/AVG of nothing are no row for VALUE,
//     an absent property otherwise). GROUP BY merges groups by their keys. ORDER BY VectorDistance
//     (a non-streaming ORDER BY) keeps a bounded top-k buffer: it needs TOP or LIMIT, at most
//     Options.MaxNonStreamingItems (default 50,000), or it is refused.
//   - Requests go through the container's own pipeline, via the SDK's query pager with the headers
//     in the context (policy.WithHTTPHeader): the client's credentials, retries (with a client from
//     cosmoskit.New: 429s within a budget, circuit breakers, regions) and diagnostics apply to
//     every range; a diagnostics.Meter in the context sums every range's charge. A page's
//     RequestCharge is the sum of its requests; the span in the context gets the ranges contacted
//     (cosmoskit.crosspartition.ranges).
//   - Ranges are read in parallel, at most Options.MaxConcurrency (default 8) at a time, holding
//     one page per range; the first error cancels the others.
//   - An ORDER BY with TOP/LIMIT over several ranges asks each range for its share of the page,
//     ceil(m + 2√m) + 1 rows for m = page size / ranges, and asks a range again only when the merge
//     has used up what it sent: for an estimate from the rows it supplied so far, then for all that
//     is still needed (data skewed into one range costs one extra request for it). A pager that has
//     returned a page sizes these for what the query still needs, at most ten pages ahead; a pager
//     resumed from a token, for its page. The span gets the requests and rows fetched per page
//     (cosmoskit.crosspartition.requests, .rows_fetched) and per query (.query.rows_fetched,
//     .query.request_charge).
//   - A range that splits while it is read (410 with sub-status 1002, 1007 or 1008) is replaced by
//     its children, which skip the rows the parent had already returned, so no row is lost or
//     repeated. For ORDER BY the children run the plan's resume filter (the
//     {documentdb-formattableorderbyquery-filter} placeholder, as the SDKs do) from the last ORDER
//     BY values: the cross-type order written out with IS_* checks and numbers compared through a
//     parameter, never a spliced value; rows tied with the last values are told apart by content.
//     Other queries reread the children and drop, by content, the rows already returned.
//
// # Continuation tokens
//
// Every page but the last carries this package's own opaque, URL-safe token. Plain queries and
// streaming ORDER BY (with TOP, OFFSET/LIMIT and DISTINCT) resume from it exactly in a new pager,
// in another process: it holds each range's backend continuation and position (exact, whatever the
// types of the values), the rows still to skip and take, the last ORDER BY values and the rows tied
// with them, so that a range split in between is resumed on its children with the resume filter. A
// token is bound to the account, database and container, the query text and every parameter
// value, and a 16-byte HMAC-SHA256 tag covers every byte, so it cannot be replayed onto another
// container, query or tenant's parameters; a token that is not this query's, tampered, truncated
// or from another version is a *cosmoserr.ValidationError (cosmoserr.ErrInvalidToken) before any request is
// sent. It is not encrypted: it carries backend continuations and row hashes, no documents.
//
// Options.TokenSigningKey keys the tag (a secret shared by every instance of a service). Without
// it the tag's key is public: an end user who decodes a token can change its positions and
// recompute the tag. Such a token still only reads the container, query and parameters it is
// bound to, and its ranges must map onto the container's current partition key ranges, so it
// costs at most one request per physical partition per page; with the key it cannot be forged.
//
// Hybrid search (ORDER BY RANK FullTextScore or RRF) runs the plan's hybridSearchQueryInfo as the
// other SDKs do (hybrid.go): the global statistics query on every range, the component queries with
// the summed statistics, then reciprocal rank fusion (k = 60) and the plan's skip and take; it
// needs TOP or LIMIT (within Options.MaxNonStreamingItems).
//
// Aggregates, GROUP BY, COUNT(DISTINCT), ORDER BY VectorDistance and ORDER BY RANK read every range
// before the first result, so they cannot resume: their pages continue within one pager, and their token
// given to a new pager is a *NotResumableError (cosmoserr.ErrNotResumable).
//
// Sizes: a plain query's token carries 8 bytes per row already returned from the range being read
// (so that a split of that range is resumed exactly); an ORDER BY token 8 bytes per row tied with
// the last one, per range.
//
// # Refused, never answered wrongly
//
// A query this engine cannot answer correctly is an *UnsupportedError (cosmoserr.ErrUnsupported) naming the
// construct: several aggregates in SELECT VALUE, ORDER BY with GROUP BY or aggregates, ORDER BY
// VectorDistance or ORDER BY RANK without TOP/LIMIT or above the cap, DISTINCT with TOP
// or LIMIT when the service's rewrite limits rows before removing duplicates, a parameterised TOP
// whose value the plan does not give, and any plan that refuses the query across partitions while
// naming nothing to merge. Prefix partition keys of hierarchical containers are not a scope of this
// package: pass the prefix in the query's WHERE (the plan narrows the ranges).
//
// # The routing map
//
// azcosmos v1.5.0 reads the container's pkranges feed (signed, through the client's pipeline) but
// exposes only the ranges' bounds (ReadFeedRanges), not their ids. The SDK resolves a FeedRange to
// its id when it reads that range's change feed, so each id is learnt once from such a read (from
// "now": no documents), captured with policy.WithCaptureResponse; a 410 refreshes both the SDK's
// cache and this one. No reflection into the SDK, no second request-signing implementation.
package crosspartition
