package wire

import (
	"net/http"
	"strings"
)

// Header names, in Go's canonical form (http.Header.Get and Set do not allocate for these). The
// service spells its response headers otherwise (x-ms-* in lower case); ServiceSpelling gives that
// spelling, for a server that writes headers as the service does (cosmostest).
const (
	HeaderActivityID      = "X-Ms-Activity-Id"
	HeaderRequestCharge   = "X-Ms-Request-Charge"
	HeaderSubStatus       = "X-Ms-Substatus"
	HeaderRetryAfterMs    = "X-Ms-Retry-After-Ms"
	HeaderRetryAfterMsStd = "Retry-After-Ms" // azcore reads it first
	HeaderRetryAfter      = "Retry-After"    // seconds or an HTTP date
	HeaderContinuation    = "X-Ms-Continuation"
	HeaderMaxItemCount    = "X-Ms-Max-Item-Count"
	HeaderSessionToken    = "X-Ms-Session-Token"
	HeaderLSN             = "Lsn" // the partition's latest LSN, on change feed responses
	HeaderItemCount       = "X-Ms-Item-Count"
	HeaderPKRangeID       = "X-Ms-Documentdb-Partitionkeyrangeid"
	HeaderPartitionKey    = "X-Ms-Documentdb-Partitionkey"
	HeaderConsistency     = "X-Ms-Consistency-Level"
	// HeaderAllowTentativeWrites is "true" on the requests azcosmos sends to a multi-write account.
	HeaderAllowTentativeWrites = "X-Ms-Cosmos-Allow-Tentative-Writes"
	HeaderIsQuery              = "X-Ms-Documentdb-Query"
	HeaderIsQueryOld           = "X-Ms-Documentdb-Isquery"
	HeaderIsQueryPlan          = "X-Ms-Cosmos-Is-Query-Plan-Request"
	// HeaderSupportedQueryFeatures lists the query features a client merges itself; the gateway
	// refuses to plan a query that needs one it does not list (400/1004).
	HeaderSupportedQueryFeatures = "X-Ms-Cosmos-Supported-Query-Features"
	// HeaderQueryVersion is the query plan protocol version a client speaks ("1.4").
	HeaderQueryVersion = "X-Ms-Cosmos-Query-Version"
	HeaderIsBatch      = "X-Ms-Cosmos-Is-Batch-Request"
	HeaderIsUpsert     = "X-Ms-Documentdb-Is-Upsert"
	HeaderAIM          = "A-Im" // "Incremental feed": a change feed read
	HeaderContentType  = "Content-Type"
	HeaderETag         = "Etag"
	HeaderContentLen   = "Content-Length"

	// Response headers only a server writes.
	HeaderGatewayVersion      = "X-Ms-Gatewayversion"
	HeaderAltContentPath      = "X-Ms-Alt-Content-Path" // the name-based path of the resource's parent (or the feed's)
	HeaderQueryMetrics        = "X-Ms-Documentdb-Query-Metrics"
	HeaderIndexUtilization    = "X-Ms-Cosmos-Index-Utilization"
	HeaderOfferReplacePending = "X-Ms-Offer-Replace-Pending"
	HeaderMinThroughput       = "X-Ms-Cosmos-Min-Throughput"

	// Container read options and their answers (partitioning signals).
	HeaderPopulatePartitionStatistics = "X-Ms-Documentdb-Populatepartitionstatistics" // "true": the body carries "statistics"
	HeaderPopulateQuotaInfo           = "X-Ms-Documentdb-Populatequotainfo"           // "true": the usage and quota headers
	HeaderResourceUsage               = "X-Ms-Resource-Usage"                         // "documentsSize=<KB>;documentsCount=<n>;..."
	HeaderResourceQuota               = "X-Ms-Resource-Quota"                         // the same keys, the limits

	// Authentication: the signature, the date it covers, the REST API version.
	HeaderAuthorization = "Authorization"
	HeaderDate          = "X-Ms-Date"
	HeaderHTTPDate      = "Date" // signed and checked only without x-ms-date (Dates)
	HeaderVersion       = "X-Ms-Version"
)

// queryContentType is the Content-Type of a query request.
const queryContentType = "application/query+json"

// ServiceSpelling returns header name as the service spells it in its responses (its REST
// reference: "x-ms-continuation", "x-ms-session-token", "etag", "lsn"): the x-ms-* headers, etag and
// lsn in lower case, the standard HTTP headers (Content-Type, Content-Length, Retry-After) in
// their usual case. Go's HTTP client canonicalises the names it reads, so only clients that copy
// headers into a plain map see the difference; to send this spelling, assign into the
// http.Header map (Set canonicalises).
func ServiceSpelling(name string) string {
	l := strings.ToLower(name)
	if strings.HasPrefix(l, "x-ms-") || l == "etag" || l == "lsn" {
		return l
	}
	return http.CanonicalHeaderKey(name)
}

// Bulk and throughput-control request headers.
const (
	// HeaderBatchAtomic is "True" on a transactional batch (azcosmos always sends it) and "false"
	// on a bulk request (a non-atomic batch to one partition key range, batch.go).
	HeaderBatchAtomic = "X-Ms-Cosmos-Batch-Atomic"
	// HeaderBatchContinueOnError is "true" on a bulk request whose later operations run whatever
	// an earlier one answered (the Java and .NET bulk executors always send it).
	HeaderBatchContinueOnError = "X-Ms-Cosmos-Batch-Continue-On-Error"
	// HeaderPriorityLevel is "High" or "Low" (priority-based execution: under pressure the
	// service throttles Low requests first); absent means High.
	HeaderPriorityLevel = "X-Ms-Cosmos-Priority-Level"
	// HeaderThroughputBucket names the throughput bucket (1 to 5) a request spends from.
	HeaderThroughputBucket = "X-Ms-Cosmos-Throughput-Bucket"
	// HeaderPrefer carries "return=minimal" on writes whose response needs no body.
	HeaderPrefer = "Prefer"
)

// Priority levels (HeaderPriorityLevel).
const (
	PriorityHigh = "High"
	PriorityLow  = "Low"
)
