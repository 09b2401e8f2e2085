// Package cosmostest is an in-process Azure Cosmos DB gateway for tests, which the unmodified
// azcosmos client runs against. It speaks the Cosmos DB NoSQL REST protocol over real HTTP(S), so
// any other gateway client runs against it too. Think net/http/httptest plus miniredis for Cosmos DB.
//
//	s := cosmostest.NewServer(t)                    // started; closed by t.Cleanup
//	client, _ := azcosmos.NewClientWithKey(s.Endpoint(), cred(s.Key()), s.ClientOptions())
//	// or azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
//
// ClientOptions returns a fresh copy each call whose transport trusts the certificate the server
// generated at start (valid for 127.0.0.1, ::1 and localhost) and keeps connections alive. With
// WithHTTP the server speaks plain HTTP. The key is the emulator's well-known key unless WithKey
// sets another, and every request's master-key signature is verified (401 with the service's body
// on mismatch). The server never writes to stderr: what net/http reports about connections
// ("http: TLS handshake error" when a client closes early) goes to WithLogger's logger.
//
// # Supported
//
//   - Account metadata (GET /), one listener per region (WithRegions; the first region is served
//     by the account endpoint), PreferredRegions routing, SetRegionDown (the port refuses
//     connections, and comes back on the same port), FailoverWriteRegion (the old write region
//     answers writes with 403/3, as after a service-side failover), WithMultiWrite.
//   - Master-key HMAC auth. Microsoft Entra ID (AAD) tokens with WithAADTokens, checked as the
//     emulator with AAD authentication checks them: a JWT (base64url header naming its alg, JSON
//     claims) within its exp and nbf on the server clock, else 401; WithAADAudience also requires
//     the aud claim. Without either option AAD tokens are 401 naming WithAADTokens.
//   - TLS with a certificate generated at start, served without credentials at
//     /_explorer/emulator.pem as the emulators serve theirs, returned by CertificatePEM and
//     written to a file by WithCertificateFile, so another process can trust it (SSL_CERT_FILE).
//   - A Data Explorer (explorer.go), off unless asked for: WithExplorer serves a web UI on a
//     loopback port (ExplorerURL; a failed test logs it), ExplorerHandler mounts it elsewhere. It
//     answers only the control token, and sends its data requests through the write region's own
//     handler signed with the key inside the process, so they are ordinary requests.
//   - Replication and consistency (replication.go, consistency.go, conflicts.go): with
//     WithReplicationLag (or SetReplicationLag per receiving region at run time; read back with
//     ReplicationLag) every region holds its own copy of every physical partition and applies the
//     other regions' writes in order once their lag has passed on the server clock (Advance drives
//     it). Reads honour the account's consistency (WithDefaultConsistency) and the request's
//     x-ms-consistency-level (400 when unknown or stronger than the account's): Strong reads the
//     write region's copy from any region; Bounded Staleness reads a copy at most
//     WithBoundedStaleness behind; Session reads answer 404/1002 (ReadSessionNotAvailable) in a
//     region that has not reached the request's x-ms-session-token for the range (or its parent
//     range after a split), so azcosmos retries in the write region, and read the local copy
//     without a token; Consistent Prefix and Eventual read the local copy. Strong and Bounded
//     Staleness reads cost 2× RU; Strong is refused with WithMultiWrite. Point reads, queries,
//     ReadMany and the change feed all follow this, and every response carries the serving copy's
//     session token. Multi-write accounts answer vector tokens ("0:-1#<lsn>#0=<lsn>#1=<lsn>"),
//     each region writes into its own copy, and a replicated write that raced with another is
//     resolved by the container's conflictResolutionPolicy: last writer wins on /_ts or a
//     numeric path (missing values lowest, ties to the later write), a delete always winning;
//     custom mode keeps the /_ts winner and records the loser for the conflicts feed. Splits and
//     FailoverWriteRegion first bring every copy up to date; TTL is applied per copy on the same
//     clock. With every lag 0 (the default) no copies exist and every region reads one store.
//   - The account's default consistency level as reported by GET / (WithDefaultConsistency,
//     default Session, with the Bounded Staleness bounds). In-process servers default to region "West US" and advertise their
//     listener's address; cmd/cosmostest reports the emulator's "South Central US" and
//     https://127.0.0.1:<port>/.
//   - Databases and containers: create, read (If-None-Match → 304), replace, delete, query/list.
//     Partition keys Hash and MultiHash v2 with up to 3 paths; indexingPolicy (the service's
//     default when absent), vectorEmbeddingPolicy, fullTextPolicy, uniqueKeyPolicy (enforced per
//     logical partition), defaultTtl, geospatialConfig (Geography by default, returned on every
//     container; Geometry makes the spatial functions planar) are stored and returned; spatial
//     indexes are checked (types Point, Polygon, LineString, MultiPolygon; under Geometry a
//     boundingBox) and kept, and change no answer. Vector
//     indexes are checked at create as the service does (400): flat ≤ 505 dimensions,
//     quantizedFlat and diskANN ≤ 4,096, the path in the embedding policy and excluded from the
//     range index. Stable,
//     unique _rid (a re-created container gets a new one); integer _ts.
//   - Conflict resolution policy (conflictpolicy.go), validated as the service validates it:
//     LastWriterWins on "/_ts" by default (also for a LastWriterWins policy without a path) or on
//     one top-level property ("/version"; "/a/b" and "someText" are 400), Custom without a merge
//     procedure (every conflict's loser goes to the conflicts feed); a procedure with
//     LastWriterWins, or a path with Custom, is 400 with the service's message, and so is changing
//     the policy on replace (a replace without one keeps it). Custom with a merge procedure is
//     refused (400 naming cosmostest): stored procedures are not simulated.
//   - Conflicts feed (conflictfeed.go): GET …/conflicts (x-ms-max-item-count, default 100, and
//     x-ms-continuation), POST …/conflicts queries, GET and DELETE …/conflicts/{id} (a partition
//     key header, when sent, must be the conflicting item's; If-Match). A conflict has id,
//     operationType ("create", "replace", "delete"), resourceType "document", resourceId (the
//     item's _rid), content (the losing version as a JSON string, absent for a losing delete),
//     conflict_lsn and _rid/_self/_etag/_ts; the feed body is {"_rid","Conflicts","_count"}.
//     Conflicts are one list per container shared by every region (reading in any region sees
//     all), in the order they were detected; one losing version reported by two regions is
//     listed once, and a deleted conflict does not come back. Reading the feed first applies
//     the replicated writes that are due in every region's copy (the service replicates in the
//     background), so the conflicts they make are listed whichever region reads. The feed is not
//     split by physical partition (x-ms-documentdb-partitionkeyrangeid is not applied to it).
//   - Offers: manual (x-ms-offer-throughput) and autoscale (x-ms-cosmos-offer-autopilot-settings)
//     at create; POST /offers query; GET and PUT /offers/{rid}/. Manual ≥ 400 in steps of 100,
//     autoscale max ≥ 1000 in steps of 1000; switching modes is refused.
//   - Partitioning: WithPartitionCount(n) splits the hash space into n pkranges with the SDK's own
//     EPK hashing (internal/epk), so ReadManyItems and feed ranges route exactly like the service;
//     GET pkranges with the 200-then-304 etag protocol; x-ms-documentdb-partitionkeyrangeid routing.
//   - Items keyed by (partition key, id): create (409), read (404/0), replace, upsert (201/200),
//     delete (204), ETags and If-Match (412), Prefer: return=minimal, _rid/_self/_etag/_ts/
//     _attachments, session tokens "<range>:-1#<lsn>" from an LSN counter per physical partition
//     (per region's copy with replication; vector tokens on multi-write accounts).
//     The partition key header is parsed tolerantly (the SDK's QuoteToASCII strings); a mismatch
//     with the document is 400/1001, a missing header 400.
//   - Limits: item id ≤ 1,023 bytes (400), database and container ids ≤ 255 characters (not
//     bytes), without / \ ? # and not ending with a space (400; internal/wire holds the limits
//     cosmoskit checks too), item ≤ 2 MB (413), string partition key component ≤ 2048 bytes
//     (400). Point operations on an empty id (the SDK sends …/docs/) are 400. Uniqueness treats a
//     missing unique-key value as null, as the service documents.
//   - Item ids in the path are read as the routing gateway reads them (unescaped twice, \ read as
//     /, the path ending at # and without trailing white space): an item whose id ends in white
//     space or holds an escape sequence, /, \ or # can be created (the id is in the body) and
//     queried, but reading, replacing or deleting it by id is 401 with the payload the server
//     signed, as on the service; a control character in the path is 400.
//   - Bodies are compact JSON with <, > and & unescaped. Items keep their properties in the order
//     they were written, with _rid, _self, _etag, _attachments and _ts appended (and _lsn on the
//     change feed), in point reads, write responses, batch results, the change feed and query rows
//     that are whole documents (SELECT *, SELECT VALUE c); values are re-encoded as decoded
//     (numbers as float64, string escapes normalized). Patch keeps existing properties in place and
//     appends new ones in operation order (an object value in its own order). A body that repeats a
//     property keeps the last value and is served in name order.
//   - Patch: add, set, replace, remove, incr and move, JSON-pointer paths (~0 ~1), "-" append,
//     at most 10 operations, id / partition key / system paths refused, conditional patch (412).
//     The root "/", empty segments ("/o/") and array indexes with a sign or leading zero ("/a/01")
//     are 400; add and set at index == length append, replace needs an existing element (400).
//   - TTL: container defaultTtl and per-item ttl (-1 never); expired items are invisible and are
//     removed lazily when touched. Control time with WithClock or (*Server).Advance; no sleeping.
//   - Queries: the NoSQL query language of internal/query (ORDER BY, TOP, OFFSET/LIMIT, DISTINCT,
//     GROUP BY, aggregates, JOINs, subqueries, built-in functions, VectorDistance with the
//     container's vector policy); POST …/docs with application/query+json, single partition by pk header (full key or
//     hierarchical prefix), by pk range id, or by an equality filter on every pk path; fan-out
//     otherwise (400 when cross-partition is disabled, 400/1004 with the plan in
//     additionalErrorInfo for queries the gateway cannot serve across partitions, the gateway's
//     plain 400 for GROUP BY and aggregates outside SELECT VALUE); a multi-key ORDER BY without a
//     matching composite index is 400 as on the service; x-ms-max-item-count (-1 or positive;
//     anything else, 0 included, is 400 here and on the change feed), x-ms-continuation,
//     query metrics on every page, index metrics when asked. A fan-out answers with a session
//     token per range touched, comma-separated. Without ORDER BY, documents come in creation
//     (_rid) order within a physical partition (a replace keeps the place), logical partitions
//     interleaved, physical partitions one after the other; a page that reaches the page size
//     carries a continuation even when nothing follows (the next page is empty), as the service
//     does not look ahead. ORDER BY, DISTINCT, GROUP BY and aggregates end on the last full page.
//   - Query plans (queryplan.go): x-ms-cosmos-is-query-plan-request: True answers the
//     partitioned query execution info the other SDKs run cross-partition queries from: queryInfo
//     with the rewrittenQuery per range, queryRanges as EPK ranges narrowed by the WHERE clause's
//     partition key equalities, IN lists, ORs and ARRAY_CONTAINS (a point per full key,
//     [prefix, prefix+FF) for a hierarchical prefix, none for a contradiction); 400/1004 naming each feature the query needs that
//     x-ms-cosmos-supported-query-features does not list. Rewritten queries run per range with
//     x-ms-documentdb-partitionkeyrangeid, with the filter placeholder replaced by true or a
//     resume filter. ORDER BY RANK (FullTextScore, RRF) is answered with a hybridSearchQueryInfo
//     (global statistics query, component queries with the statistics placeholders) and needs
//     the HybridSearch feature (WeightedRankFusion for RRF weights).
//   - Request counters: (*Server).Requests(RequestFilter) by region, operation and resource,
//     including requests answered by a fault or the throughput limiter. Operations are
//     internal/wire's names, the SDK's span names: OpReadItem is "read_item", OpQueryItems,
//     OpCreateContainer, ...
//   - A Go test API without HTTP (seed.go), as miniredis has: CreateContainer, Seed (upserts),
//     Document and Dump, served by the same handlers in the write region (etags, LSNs, the change
//     feed and replication stay consistent), neither counted nor faulted nor throttled. Bad test
//     arguments are errors, never panics (an unknown region matches ErrUnknownRegion).
//   - For every client, not only azcosmos: response headers spelled as the service spells them
//     (headers.go), x-ms-alt-content-path, addressing by resource id (the _self links; the
//     signature covers the lower-cased rid), the document feed (GET …/docs without a query, per
//     partition key or range, paged), and the service's date window (WithClockSkew) on the date
//     the signature covers: x-ms-date, or without it Date, signed on the fifth line as the
//     gateway signs it (a signature over no date is not rescued by an unsigned Date). Queries
//     execute without the server lock, so nothing waits behind a heavy query.
//   - Fault injection (faults.go): (*Server).InjectFault(Fault) matches by region, operation,
//     resource type, database, container, physical partition or a func, and answers with a
//     status, sub-status, headers and the service's error body (429 with x-ms-retry-after-ms,
//     503, 408, 410/1002, 449, 500, 403/3, ...), delays (cut short when the client gives up), or
//     drops the connection; for the next N requests or with a seeded probability. FaultHandle
//     has Hits and Remove; ClearFaults removes all.
//   - Throughput (throughput.go, WithThroughputLimits): the container's or the shared
//     database offer's RU/s (autoscale: its maximum) split evenly across physical partitions,
//     spent per second of the server clock; a spent partition answers 429/3200 with
//     x-ms-retry-after-ms until its budget returns, changing nothing. (*Server).Throttled counts
//     them. Only data-plane requests (items, queries) spend RU; metadata requests are never
//     throttled.
//   - Runtime splits (split.go): (*Server).SplitRange splits a physical partition in two; the
//     old range id answers 410/1002, and the SDK's ReadManyItems recovers by refreshing pkranges.
//   - Transactional batch (batch.go): Create, Upsert, Replace, Delete, Read and Patch (ifMatch,
//     conditional patch) in one logical partition, all or nothing: on the first failing operation
//     nothing is applied and the answer is 207 with that operation's status and 424 for the
//     others. At most 100 operations (400) and 2 MB (413); a document of another partition key
//     fails its operation with 400/1001. Bodies per operation unless Prefer: return=minimal
//     (reads always have one), eTag and requestCharge on every result.
//   - Bulk requests (bulk.go): non-atomic batches to one partition key range as the Java, .NET
//     and JS bulk executors send them; each operation applied or refused on its own (200, or 207
//     when one failed), 429/3200 per operation with retryAfterMilliseconds once the range's
//     budget is spent mid-request, 413 past the response limit, 410/1002 for a split range.
//   - Priority-based execution: x-ms-cosmos-priority-level: Low requests are throttled once a
//     partition has spent 80% of its second's budget, High ones at 100% (throughput.go).
//   - Throughput buckets (bucket.go): (*Server).SetThroughputBuckets limits the requests naming a
//     bucket (x-ms-cosmos-throughput-bucket) to a share of each partition's budget.
//   - Change feed (changefeed.go), latest version (A-IM: Incremental Feed) per physical partition:
//     from the beginning, from now (If-None-Match: *), from a time (If-Modified-Since), or from an
//     LSN etag; per partition key; x-ms-max-item-count (default 100), pages end at 4 MB; each
//     live item once in its latest version in _lsn order, deletes and expired items not shown;
//     304 when nothing is new;
//     410/1002 for a range that was split, so the SDK moves to its children.
//   - A deterministic request-unit model (see ru.go): reads cheaper than writes, scaled by size.
//
// # Not supported (yet)
//
// Each of these answers with a clear error naming cosmostest, never a silent wrong answer:
//
//   - The all-versions-and-deletes change feed mode.
//   - Stored procedures, triggers, UDFs (a query calling udf.f(...) is planned as the gateway
//     plans it, and refused when it runs), users, permissions, attachments,
//     client encryption keys; custom conflict resolution's merge procedures; AAD token
//     signatures and role-based access control (a well-formed token within its lifetime may do
//     anything); the emulator's compute gateway (its own endpoint with other id rules). Full-text functions tokenize without the service's language analyzers
//     (no stemming or stop words; internal/query documents the tokenization and BM25).
package cosmostest
