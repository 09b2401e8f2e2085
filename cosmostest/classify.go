package cosmostest

import (
	"net/http"
	"net/url"
	"strings"
)

// Operation is what a request does, as request counters and fault rules see it.
type Operation string

// Operations the server tells apart.
const (
	OpReadAccount Operation = "ReadAccount"
	OpCreate      Operation = "Create"
	OpRead        Operation = "Read"
	OpReplace     Operation = "Replace"
	OpUpsert      Operation = "Upsert"
	OpDelete      Operation = "Delete"
	OpPatch       Operation = "Patch"
	OpQuery       Operation = "Query"
	OpReadFeed    Operation = "ReadFeed"
	OpBatch       Operation = "Batch"
	OpChangeFeed  Operation = "ChangeFeed"
)

// ResourceType is the kind of resource a request targets, as in the signature: "" (account),
// "dbs", "colls", "docs", "pkranges", "offers".
type ResourceType string

// Resource types.
const (
	ResourceAccount    ResourceType = ""
	ResourceDatabase   ResourceType = "dbs"
	ResourceContainer  ResourceType = "colls"
	ResourceDocument   ResourceType = "docs"
	ResourcePKRange    ResourceType = "pkranges"
	ResourceOffer      ResourceType = "offers"
	resourceUnknownVal ResourceType = "?"
)

// classification is everything the server knows about a request before handling it. It is
// computed once, in classify, and is what counters, fault rules and throughput limits match on.
type classification struct {
	Region       string       // region name of the listener that received it
	Operation    Operation    // see the Op constants
	ResourceType ResourceType // resource type of the target
	Database     string       // database id, if any
	Container    string       // container id, if any
	ID           string       // item / database / container / offer id of a point operation
	// PKRangeID is the physical partition the request targets: the x-ms-documentdb-partitionkeyrangeid
	// header, or the range the partition key header maps to. Empty for metadata and fan-out requests.
	PKRangeID string
	IsWrite   bool // changes state (and so must go to a write region)

	segs []string // unescaped path segments
	link string   // resource link for the signature
	// emptyID marks a point operation on an empty item id: the SDK sends ReadItem(ctx, pk, "")
	// and its kin as …/docs/ (with the trailing slash) and signs the link "…/docs/".
	emptyID bool
}

// classify parses the path (r.URL.EscapedPath split on "/", each segment unescaped) and headers.
// It does not look at the store: PKRangeID from a partition key header is filled in later by
// the handler (routeRange).
func classify(r *http.Request) (*classification, error) {
	c := &classification{}
	raw := strings.Trim(r.URL.EscapedPath(), "/")
	if raw != "" {
		for _, s := range strings.Split(raw, "/") {
			u, err := url.PathUnescape(s)
			if err != nil {
				return nil, badRequest("The request path %q is not valid: %v", r.URL.EscapedPath(), err)
			}
			c.segs = append(c.segs, u)
		}
	}
	n := len(c.segs)
	if n%2 == 1 && c.segs[n-1] == string(ResourceDocument) && strings.HasSuffix(r.URL.EscapedPath(), "/") &&
		(r.Method == http.MethodPut || r.Method == http.MethodPatch || r.Method == http.MethodDelete ||
			r.Method == http.MethodGet && r.Header.Get("A-IM") == "") {
		c.emptyID = true
	}
	switch {
	case n == 0:
		c.ResourceType = ResourceAccount
	case n%2 == 1:
		c.ResourceType = ResourceType(c.segs[n-1])
		c.link = strings.Join(c.segs[:n-1], "/")
	default:
		c.ResourceType = ResourceType(c.segs[n-2])
		c.link = strings.Join(c.segs, "/")
		c.ID = c.segs[n-1]
		if c.ResourceType == ResourceOffer {
			c.link = strings.ToLower(c.segs[n-1])
		}
	}
	if n >= 2 && c.segs[0] == "dbs" {
		c.Database = c.segs[1]
	}
	if n >= 4 && c.segs[2] == "colls" {
		c.Container = c.segs[3]
	}
	switch c.ResourceType {
	case ResourceAccount, ResourceDatabase, ResourceContainer, ResourceDocument, ResourcePKRange, ResourceOffer:
	default:
		c.ResourceType = resourceUnknownVal
	}
	if c.emptyID {
		c.link = strings.Join(c.segs, "/") + "/"
	}
	c.PKRangeID = r.Header.Get(hdrPKRangeID)
	feed := n%2 == 1 && !c.emptyID
	switch r.Method {
	case http.MethodGet:
		switch {
		case n == 0:
			c.Operation = OpReadAccount
		case feed && c.ResourceType == ResourceDocument && r.Header.Get("A-IM") != "":
			c.Operation = OpChangeFeed
		case feed:
			c.Operation = OpReadFeed
		default:
			c.Operation = OpRead
		}
	case http.MethodPost:
		switch {
		case strings.HasPrefix(r.Header.Get("Content-Type"), "application/query+json"):
			c.Operation = OpQuery
		case strings.EqualFold(r.Header.Get(hdrIsBatch), "true"):
			c.Operation = OpBatch
			c.IsWrite = true
		case strings.EqualFold(r.Header.Get(hdrIsUpsert), "true"):
			c.Operation = OpUpsert
			c.IsWrite = true
		default:
			c.Operation = OpCreate
			c.IsWrite = true
		}
	case http.MethodPut:
		c.Operation = OpReplace
		c.IsWrite = true
	case http.MethodPatch:
		c.Operation = OpPatch
		c.IsWrite = true
	case http.MethodDelete:
		c.Operation = OpDelete
		c.IsWrite = true
	default:
		return c, newError(http.StatusMethodNotAllowed, subNone, "cosmostest: method %s is not supported", r.Method)
	}
	return c, nil
}

// Header names.
const (
	hdrActivityID       = "x-ms-activity-id"
	hdrCharge           = "x-ms-request-charge"
	hdrSession          = "x-ms-session-token"
	hdrSubstatus        = "x-ms-substatus"
	hdrPK               = "x-ms-documentdb-partitionkey"
	hdrPKRangeID        = "x-ms-documentdb-partitionkeyrangeid"
	hdrIsUpsert         = "x-ms-documentdb-is-upsert"
	hdrIsBatch          = "x-ms-cosmos-is-batch-request"
	hdrMaxItemCount     = "x-ms-max-item-count"
	hdrContinuation     = "x-ms-continuation"
	hdrItemCount        = "x-ms-item-count"
	hdrEnableCross      = "x-ms-documentdb-query-enablecrosspartition"
	hdrQueryMetrics     = "x-ms-documentdb-query-metrics"
	hdrIsQueryPlan      = "x-ms-cosmos-is-query-plan-request"
	hdrQueryFeatures    = "x-ms-cosmos-supported-query-features"
	hdrPopulateIndex    = "x-ms-cosmos-populateindexmetrics"
	hdrIndexUtilization = "x-ms-cosmos-index-utilization"
	hdrOfferThroughput  = "x-ms-offer-throughput"
	hdrOfferAutopilot   = "x-ms-cosmos-offer-autopilot-settings"
)
