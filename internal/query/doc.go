// Package query is an engine for the Azure Cosmos DB for NoSQL query language. cosmostest uses it to
// answer queries over one partition's documents the way the service does: the same results, the
// same undefined/null/mixed-type rules, the service's paging and error messages.
//
// Parse turns query text into a Query (errors are *Error with the service's 400 message); Execute runs
// one page of it over documents sorted by Key; Info reports what the gateway needs to refuse a
// cross-partition query; Plan renders the partitioned query execution info (version 2) the gateway
// answers a query plan request with, including the rewrittenQuery each partition key range runs in
// the service's text form (rewrite.go), and Features the query features a client must implement;
// PartitionKeyFilter finds the partition key values a WHERE clause pins and PartitionKeyPoints the
// logical partitions (or key prefixes) it limits the query to; Match evaluates a patch condition.
//
// Plans are checked against the .NET SDK's QueryPlanBaselineTests (testdata/queryplan_baselines.json,
// baseline_test.go lists the cases that differ and why).
//
// # Language
//
// SELECT with *, projections with aliases (implicit $1, $2... for unaliased expressions that are not
// property paths), VALUE, DISTINCT, TOP (literal or parameter); FROM with an alias, FROM x IN path,
// FROM (subquery); JOIN over arrays and subqueries; WHERE; GROUP BY; ORDER BY several items ASC/DESC;
// OFFSET/LIMIT (literals or parameters). Expressions: property paths with . and ["quoted"] or [index]
// access, object and array literals, parameters of any JSON type, arithmetic, comparison, logical,
// bitwise, string concatenation (||), IN, BETWEEN, LIKE with ESCAPE, ??, ?:, EXISTS, ARRAY and scalar
// subqueries (correlated with the outer row), and the aggregates COUNT, SUM, MIN, MAX, AVG, MAKELIST, MAKESET. Built-in
// functions: type checks, string, math, integer, array, date and time, IIF/CHOOSE and VectorDistance
// (see the functions_*.go files). Function names are case-insensitive.
//
// Semantics follow the NoSQL query reference: comparisons across types, with undefined, or between
// arrays/objects with < > yield undefined (arrays and objects compare with = and !=); a WHERE that is
// not true drops the row; undefined properties are omitted from projections and undefined VALUE rows
// from results; ORDER BY sorts undefined < null < false < true < numbers < strings < arrays < objects;
// SUM and AVG over a non-number give undefined, undefined inputs are skipped; MIN and MAX use the
// cross-type order and give undefined for arrays and objects. ORDER BY items must be document paths
// of the FROM source (the service's "could not be mapped to a document path" and "correlated
// collections" errors); ORDER BY VectorDistance sorts by similarity: descending for cosine and dot
// product, ascending for Euclidean distance; writing ASC or DESC after it is the service's 400.
//
// # Paging
//
// Queries without ORDER BY, aggregates, DISTINCT or GROUP BY stream in Key order; their continuation
// holds the Key of the last document consumed and the row index within it (JOIN rows), plus the
// remaining OFFSET and TOP/LIMIT counts, so a page resumes right after the last result even when
// documents are written between pages. ORDER BY queries re-sort on every page and resume after the
// last emitted (sort values, Key, row). DISTINCT, GROUP BY and aggregates are computed in full and
// paged by position. Tokens are base64url JSON carrying a version and a hash of the query text and
// parameters; anything else is a BadRequest.
//
// Operator precedence follows the grammar of the SDKs' query parser: NOT, unary minus and ~ bind
// tightest; then * / %, + -, relational, equality, &, ^, |, ||; then IN, LIKE and BETWEEN; AND; OR;
// ?? and ?: loosest. So NOT c.a = 1 means (NOT c.a) = 1: write NOT (c.a = 1).
//
// # Known deviations from the service
//
//   - Any keyword is accepted as a property name after a dot (c.value, c.top, c.order). The service
//     accepts c.value (the SDK's own emulator tests query it) but may reject other keywords there.
//   - Arrays and objects are ordered among themselves by element / canonical JSON, not by the
//     service's hash; GROUP BY groups come out in order of first appearance.
//   - Object literals and documents serialize their properties sorted by name (SELECT lists keep their
//     order), and ObjectToArray lists properties by name, because documents arrive as Go maps.
//   - REGEXMATCH uses Go's RE2 syntax (no look-around or back-references).
//   - LENGTH, SUBSTRING, INDEX_OF and friends count Unicode code points, not UTF-16 code units.
//   - Division or modulo by zero is undefined. Other results that are not finite (LOG10(0),
//     COT(0), SQRT(-1), an overflow, the NaN and Infinity literals) stay numbers inside the query, and
//     a result row holding one fails the query with 400, sub-status 4001 (SubStatusNonFinite), as the
//     service answers LOG10(0) (its accounts have sqlAllowNonFiniteNumbers false).
//   - FullTextContains, FullTextContainsAll and FullTextContainsAny tokenize at every rune that is not
//     a letter or digit and compare words case-insensitively, without the service's stemming and stop
//     words (functions_fulltext.go); a term of several words matches them consecutively.
//   - FullTextScore is BM25 (k1 1.2, b 0.75) over the documents the execution reads, with that
//     tokenization; RRF fuses rankings with k = 60 (rank.go, internal/rrf). Both only as ORDER BY
//     RANK's item. Their plan is the service's hybridSearchQueryInfo (hybridplan.go); its
//     component queries take max(120, 2 × (OFFSET + TOP/LIMIT)) rows each (hybridplan.go).
//   - Spatial functions (ST_DISTANCE, ST_WITHIN, ST_INTERSECTS, ST_ISVALID, ST_ISVALIDDETAILED,
//     ST_AREA) compute as functions_spatial.go says: Vincenty distances on WGS-84, containment and
//     intersection in planar longitude/latitude, area on a sphere. User-defined functions are not
//     supported and fail as unknown functions.
//   - No index unless the caller passes one: an Index built by NewIndex serves ORDER BY queries whose
//     items are exactly its paths and directions; otherwise every page of an ORDER BY, DISTINCT,
//     GROUP BY or aggregate query reads every document.
//   - A query that generates more than ten million JOIN/subquery rows, or computes a string over 4 MiB
//     or an array over a million elements, fails with 400 (a guard of the emulator, not a service limit).
//   - The messages of errors the reference does not spell out (GROUP BY restrictions, duplicate
//     aliases, wrong argument counts, resource limits) are the emulator's own wording.
package query
