// Package crosspartition runs Cosmos DB NoSQL queries across physical partitions on a plain
// *azcosmos.ContainerClient, the way the other SDKs do. Like the .NET, Java, JS, Python and Rust
// SDKs, it serves ORDER BY (one or several keys), TOP, OFFSET/LIMIT, DISTINCT, aggregates (COUNT, SUM, MIN, MAX, AVG,
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
//   - Passthrough: a query whose plan targets one logical partition (its queryRanges one EPK
//     value) and that needs no client-side merge (no aggregates, DISTINCT, GROUP BY, ORDER BY
//     VectorDistance or RANK) is sent as it is, with its parameters, to that one range, which
//     orders and limits it itself, as the .NET SDK passes such a query through (passthrough.go):
//     each page is one backend page, one request; its token holds the backend continuation, and a
//     split of the range goes on on the child holding the partition. ORDER BY, TOP and OFFSET over
//     several logical partitions take the general path even on one physical partition (a split
//     would leave their backend continuation on two children).
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
//     resumed from a token, for its page (sizes always come from the pager's own options and the
//     plan, never from a token). The span gets the requests and rows fetched per page
//     (cosmoskit.crosspartition.requests, .rows_fetched) and per query (.query.rows_fetched,
//     .query.request_charge).
//   - A range that splits while it is read (410 with sub-status 1002, 1007 or 1008) is replaced by
//     its children, so no row is lost or repeated. For ORDER BY the children resume from the last
//     row the parent returned, as a token does (below). Other queries resume the children from the
//     parent's backend continuation, as the .NET and Java SDKs do; a page the parent had re-read
//     from a token is re-read by the children, which drop, by content, the rows of it it had used.
//
// # Continuation tokens
//
// Every page but the last carries this package's own opaque, URL-safe token; plain queries and
// streaming ORDER BY (with TOP, OFFSET/LIMIT and DISTINCT) resume from it in a new pager, in
// another process. A token is bound to the account, database and container, the query text and
// every parameter value, and a 16-byte HMAC-SHA256 tag covers every byte, so it cannot be replayed
// onto another container, query or tenant's parameters; a token that is not this query's,
// tampered, truncated or from another version (tokens of earlier versions of this package are
// refused: restart the query) is a *cosmoserr.ValidationError (cosmoserr.ErrInvalidToken) before
// any request is sent. It is not encrypted: it carries backend continuations, ORDER BY values,
// a _rid and row hashes, no documents.
//
// A plain query's token holds each range's backend continuation and the hashes of the rows of its
// page already used (a page re-read from its start, those rows dropped by content, not by count:
// rows that left the page in between — deleted, or updated out of the filter — cost no unseen row;
// a used row changed since comes again with its new values); it resumes with the PageSizeHint it
// was returned with or a larger one (a smaller one may not hold its position:
// cosmoserr.ErrInvalidToken). A passed-through query's token holds its range's backend
// continuation and nothing else (anything else is cosmoserr.ErrInvalidToken, nothing sent), so a
// crafted one costs one request, as a legitimate one. An ORDER BY token holds no backend
// continuation: the last row returned, by its ORDER BY values and _rid, and its range's EPK
// bounds, as the .NET SDK's OrderByContinuationToken (orderByItems, rid, skipCount). Each range is
// then queried afresh with the plan's resume filter (the {documentdb-formattableorderbyquery-filter}
// placeholder): the rows strictly after those values for the ranges before that range, at or after
// them for that range and those after it, written over every ORDER BY key ((a after x) OR (a = x
// AND b after y)), in the cross-type order with IS_* checks, values as parameters, never spliced.
// In that range the merge drops the rows tied with the last values up to its _rid, in the order the service returns
// tied rows (by _rid, learnt from the rows); rows without a _rid (FROM x IN c.items) are told apart
// by content. So a resumed ORDER BY returns every row that existed throughout the read exactly
// once and in order, whatever was written or deleted between pages (a queue drained in key order
// loses nothing). A row written during the read is returned at most once: if its ORDER BY values
// come after the last row returned, it is returned; if before (or tied with it in a range before
// its range), it is not; a row whose ORDER BY values change during the read may be returned twice or
// not at all, like on one partition. After partitions merge between two pages, the rows tied with the
// last values in the merged range are read again (some may come twice, none is lost). Resuming
// costs what a fresh page costs, plus re-reading the rows tied with the last values in its range:
// order by a unique key last (c.id) when many rows share a value.
//
// Options.TokenSigningKey keys the tag (a secret shared by every instance of a service). Without
// it the tag's key is public: an end user who decodes a token can change any field and recompute
// the tag. Such a token still only reads the container, query and parameters it is bound to, and
// it costs no more than a legitimate resume of the same query with the same options
// (token_bounds.go): page sizes come from the pager's options, its ranges must map onto the
// container's current partition key ranges, a plain position and a split's drop group hold at most
// one backend page of rows, an ORDER BY position is a fresh query from values, and a page that would
// drop more rows on a token's word than a legitimate one (DISTINCT hashes, positions) is cut short
// or refused (cosmoserr.ErrInvalidToken). Measured with 4 physical partitions, 1,200 rows, page
// size 50 and 150 mutations of every token field for each of six queries: the worst crafted token
// cost 7 requests for one page, the worst legitimate resume 7 (plain queries 2 and 3, DISTINCT 7 and
// 7, ORDER BY 4 and 4, ORDER BY with TOP 5 and 5); before these bounds one page of a crafted token
// cost 1,204 requests. With the key tokens cannot be forged.
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
// Sizes: a plain query's token carries 8 bytes per row of the page being read already returned
// (at most one page); an ORDER BY token the last row's ORDER BY values and _rid (and 8 bytes per
// row tied with it when the rows carry no _rid); an unordered DISTINCT token 8 bytes per row returned.
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
