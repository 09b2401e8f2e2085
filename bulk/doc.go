// Package bulk loads and changes many items at the provisioned throughput, packed by physical
// partition into the service's bulk requests.
//
//	x, err := bulk.New(client, "shop", "orders", bulk.Options{})
//	for r, err := range x.Execute(ctx, bulk.Upserts(ctx, orders, slices.Values(items))) {
//		if err != nil { ... } // operation r.Index failed; the others went on
//	}
//
// Give an Executor a stream of operations (create, upsert, replace, delete, read, patch, each
// with its partition key and optional ETag) and it groups them by physical partition, packs them into the service's bulk
// requests (non-atomic batches to one partition key range, up to 100 operations and about 220 KB
// each, as the Java and .NET SDKs' bulk executors do), sends them with a per-partition window and
// request-unit rate that adapt to the 429s each partition sees (AIMD), sends throttled and split
// operations again, and reports one Result per operation.
//
// Requests go through the cosmoskit Client's azcore pipeline: its credential, region routing,
// breakers, retry policy and diagnostics. azcosmos has no API for bulk requests, so they are
// built here, as package conflicts builds the conflicts feed.
//
// Ordering: operations on one logical partition are applied in input order (a partition key with
// a request in flight waits for its answer), so a job over few partition keys runs with little
// concurrency. Results arrive in completion order; Result.Index is the input position.
//
// Not supported: a transactional (all-or-nothing) batch (use repository's Tx), the ifNoneMatch
// condition, and time-to-live or indexing directives per operation.
package bulk
