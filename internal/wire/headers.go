package wire

import "net/http"

// Header names, spelled as the service sends them (its REST reference: "x-ms-continuation",
// "etag", "lsn", all lower case; the standard HTTP headers in their usual case). http.Header's
// Get, Set, Values and Del canonicalise the key, so these work with them on either side; to send a
// header with this spelling, assign into the map (h[name] = []string{v}), as cosmostest does. Go's
// HTTP client canonicalises the keys of the responses it reads, so a Go client finds them either way.
const (
	HeaderActivityID      = "x-ms-activity-id"
	HeaderRequestCharge   = "x-ms-request-charge"
	HeaderSubStatus       = "x-ms-substatus"
	HeaderRetryAfterMs    = "x-ms-retry-after-ms"
	HeaderRetryAfterMsStd = "Retry-After-Ms" // azcore reads it first
	HeaderRetryAfter      = "Retry-After"    // seconds or an HTTP date
	HeaderContinuation    = "x-ms-continuation"
	HeaderMaxItemCount    = "x-ms-max-item-count"
	HeaderSessionToken    = "x-ms-session-token"
	HeaderLSN             = "lsn" // the partition's latest LSN, on change feed responses
	HeaderItemCount       = "x-ms-item-count"
	HeaderPKRangeID       = "x-ms-documentdb-partitionkeyrangeid"
	HeaderPartitionKey    = "x-ms-documentdb-partitionkey"
	HeaderConsistency     = "x-ms-consistency-level"
	// HeaderAllowTentativeWrites is "true" on the requests azcosmos sends to a multi-write account.
	HeaderAllowTentativeWrites = "x-ms-cosmos-allow-tentative-writes"
	HeaderIsQuery              = "x-ms-documentdb-query"
	HeaderIsQueryOld           = "x-ms-documentdb-isquery"
	HeaderIsQueryPlan          = "x-ms-cosmos-is-query-plan-request"
	// HeaderSupportedQueryFeatures lists the query features a client merges itself; the gateway
	// refuses to plan a query that needs one it does not list (400/1004).
	HeaderSupportedQueryFeatures = "x-ms-cosmos-supported-query-features"
	// HeaderQueryVersion is the query plan protocol version a client speaks ("1.4").
	HeaderQueryVersion = "x-ms-cosmos-query-version"
	HeaderIsBatch      = "x-ms-cosmos-is-batch-request"
	HeaderIsUpsert     = "x-ms-documentdb-is-upsert"
	HeaderAIM          = "A-IM" // "Incremental feed": a change feed read
	HeaderContentType  = "Content-Type"
	HeaderETag         = "etag"

	// Response headers only cosmostest reads or sends.
	HeaderGatewayVersion      = "x-ms-gatewayversion"
	HeaderAltContentPath      = "x-ms-alt-content-path" // the name-based path of the resource's parent (or the resource, for a feed)
	HeaderQueryMetrics        = "x-ms-documentdb-query-metrics"
	HeaderIndexUtilization    = "x-ms-cosmos-index-utilization"
	HeaderOfferReplacePending = "x-ms-offer-replace-pending"
	HeaderMinThroughput       = "x-ms-cosmos-min-throughput"

	// Container read options and their answers (partitioning signals).
	HeaderPopulatePartitionStatistics = "x-ms-documentdb-populatepartitionstatistics" // "true": the body carries "statistics"
	HeaderPopulateQuotaInfo           = "x-ms-documentdb-populatequotainfo"           // "true": the usage and quota headers
	HeaderResourceUsage               = "x-ms-resource-usage"                         // "documentsSize=<KB>;documentsCount=<n>;..."
	HeaderResourceQuota               = "x-ms-resource-quota"                         // the same keys, the limits

	// Authentication: the signature, the date it covers, the REST API version.
	HeaderAuthorization = "Authorization"
	HeaderDate          = "x-ms-date"
	HeaderVersion       = "x-ms-version"
)

// queryContentType is the Content-Type of a query request.
const queryContentType = "application/query+json"

// Canonical forms of the names this package looks up in parsed headers: http.Header.Get
// canonicalises its key, which allocates for a lower-case name and not for a canonical one.
var (
	canonIsQueryPlan   = http.CanonicalHeaderKey(HeaderIsQueryPlan)
	canonIsBatch       = http.CanonicalHeaderKey(HeaderIsBatch)
	canonIsUpsert      = http.CanonicalHeaderKey(HeaderIsUpsert)
	canonAIM           = http.CanonicalHeaderKey(HeaderAIM)
	canonIsQuery       = http.CanonicalHeaderKey(HeaderIsQuery)
	canonIsQueryOld    = http.CanonicalHeaderKey(HeaderIsQueryOld)
	canonRequestCharge = http.CanonicalHeaderKey(HeaderRequestCharge)
	canonSubStatus     = http.CanonicalHeaderKey(HeaderSubStatus)
	canonRetryAfterMs  = http.CanonicalHeaderKey(HeaderRetryAfterMs)
)
