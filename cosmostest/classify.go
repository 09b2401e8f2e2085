package cosmostest

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Operation is what a request does, as request counters and fault rules see it. Its values are the
// operation names of internal/wire (the azcosmos SDK's span names, "read_item",
// "query_items", ...), the one spelling cosmoserr and the diagnostics use too.
type Operation string

// Operations the server tells apart (wire.Classify names them).
const (
	OpReadAccount            Operation = wire.OpReadAccount
	OpCreateDatabase         Operation = wire.OpCreateDatabase
	OpQueryDatabases         Operation = wire.OpQueryDatabases
	OpReadDatabase           Operation = wire.OpReadDatabase
	OpDeleteDatabase         Operation = wire.OpDeleteDatabase
	OpCreateContainer        Operation = wire.OpCreateContainer
	OpQueryContainers        Operation = wire.OpQueryContainers
	OpReadContainer          Operation = wire.OpReadContainer
	OpReplaceContainer       Operation = wire.OpReplaceContainer
	OpDeleteContainer        Operation = wire.OpDeleteContainer
	OpReadPartitionKeyRanges Operation = wire.OpReadPartitionKeyRanges
	OpCreateItem             Operation = wire.OpCreateItem
	OpUpsertItem             Operation = wire.OpUpsertItem
	OpReadItem               Operation = wire.OpReadItem
	OpReplaceItem            Operation = wire.OpReplaceItem
	OpPatchItem              Operation = wire.OpPatchItem
	OpDeleteItem             Operation = wire.OpDeleteItem
	OpQueryItems             Operation = wire.OpQueryItems
	OpQueryPlan              Operation = wire.OpQueryPlan
	OpExecuteBatch           Operation = wire.OpExecuteBatch
	OpReadChangeFeed         Operation = wire.OpReadChangeFeed
	OpReadAllItems           Operation = wire.OpReadAllItems
	OpQueryOffers            Operation = wire.OpQueryOffers
	OpReadThroughput         Operation = wire.OpReadThroughput
	OpReplaceThroughput      Operation = wire.OpReplaceThroughput
	OpReadConflicts          Operation = wire.OpReadConflicts
	OpReadConflict           Operation = wire.OpReadConflict
	OpDeleteConflict         Operation = wire.OpDeleteConflict
	// OpOther is any other request (reading the database or container feed, an unknown path).
	OpOther Operation = wire.OpOther
)

// verb is the HTTP-level kind of a request the handlers switch on (a finer Operation is for
// counters and fault rules).
type verb string

const (
	verbReadAccount verb = "ReadAccount"
	verbCreate      verb = "Create"
	verbRead        verb = "Read"
	verbReplace     verb = "Replace"
	verbUpsert      verb = "Upsert"
	verbDelete      verb = "Delete"
	verbPatch       verb = "Patch"
	verbQuery       verb = "Query"
	verbReadFeed    verb = "ReadFeed"
	verbBatch       verb = "Batch"
	verbChangeFeed  verb = "ChangeFeed"
)

// ResourceType is the kind of resource a request targets, as in the signature: "" (account),
// "dbs", "colls", "docs", "pkranges", "offers", "conflicts".
type ResourceType string

// Resource types.
const (
	ResourceAccount    ResourceType = ""
	ResourceDatabase   ResourceType = "dbs"
	ResourceContainer  ResourceType = "colls"
	ResourceDocument   ResourceType = "docs"
	ResourcePKRange    ResourceType = "pkranges"
	ResourceOffer      ResourceType = "offers"
	ResourceConflict   ResourceType = "conflicts"
	resourceUnknownVal ResourceType = "?"
)

// classification is everything the server knows about a request before handling it. It is
// computed once, in classify, and is what counters, fault rules and throughput limits match on.
type classification struct {
	Region       string       // region name of the listener that received it
	Operation    Operation    // see the Op constants (wire.Classify's name)
	verb         verb         // what the handlers switch on
	ResourceType ResourceType // resource type of the target
	Database     string       // database id, if any
	Container    string       // container id, if any
	ID           string       // item / database / container / offer id of a point operation
	// PKRangeID is the physical partition the request targets: the x-ms-documentdb-partitionkeyrangeid
	// header, or the range the partition key header maps to. Empty for metadata and fan-out requests.
	PKRangeID string
	IsWrite   bool // changes state (and so must go to a write region)

	segs []string // path segments as the gateway reads them (see gatewayPath)
	link string   // resource link for the signature
	// emptyID marks a point operation on an empty item id: the SDK sends ReadItem(ctx, pk, "")
	// and its kin as …/docs/ (with the trailing slash) and signs the link "…/docs/".
	emptyID bool
	// invalidURL marks a path the gateway refuses before looking at anything else (400).
	invalidURL bool
	// ridBased marks a path that addresses resources by resource id (the _self links,
	// "dbs/ARAAAA==/colls/ARAAAIAAAAE=/"): segs hold the ids until resolveRIDs replaces them
	// with the names, once the signature (over the lower-cased rid) is checked.
	ridBased bool
}

// gatewayPath returns the request path (without its leading and trailing slashes) as the
// service's routing gateway reads it, which is not always what the client signed: the SDK escapes
// each segment once (url.PathEscape) and signs the unescaped resource link, while the gateway
//   - unescapes the whole path, so an escaped "/" in an id splits it into two segments;
//   - unescapes it a second time, so an id that contains an escape sequence ("%20", "%E9%B1%80")
//     is read as the character it encodes;
//   - reads "\" as "/" and ends the path at "#";
//   - drops white space at the end of the path, so an id ending in spaces loses them.
//
// A point operation on such an id is then signed over one link and checked over another, and the
// service answers 401 (the SDK's TestItemIdEncodingRoutingGW; azure-cosmos-dotnet-v3#3507). The
// items can still be created (the id travels in the body) and queried. ok is false when the path
// holds a control character once unescaped ("%0D", "%09", "%0A"), which the gateway refuses with
// 400 whatever the credentials, or is not validly escaped.
func gatewayPath(escaped string) (path string, ok bool) {
	p, err := url.PathUnescape(escaped)
	if err != nil {
		return "", false
	}
	if twice, err := url.PathUnescape(p); err == nil {
		p = twice
	}
	if strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return "", false
	}
	p = strings.ReplaceAll(p, `\`, "/")
	if i := strings.IndexByte(p, '#'); i >= 0 {
		p = p[:i]
	}
	return strings.TrimLeft(strings.TrimRight(p, " /"), "/"), true
}

// classify parses the path (as the gateway reads it, see gatewayPath) and headers. It does not
// look at the store: PKRangeID from a partition key header is filled in later by the handler
// (routeRange).
func classify(r *http.Request) (*classification, error) {
	c := &classification{}
	raw, ok := gatewayPath(strings.Trim(r.URL.EscapedPath(), "/"))
	if !ok {
		c.invalidURL = true
		return c, badRequest("Bad Request - Invalid URL: the request path %q holds a control character or a malformed escape once unescaped; the gateway refuses it (an item with such an id can be created and queried, not addressed by id).", r.URL.EscapedPath())
	}
	if raw != "" {
		c.segs = strings.Split(raw, "/")
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
	case ResourceAccount, ResourceDatabase, ResourceContainer, ResourceDocument, ResourcePKRange, ResourceOffer, ResourceConflict:
	default:
		c.ResourceType = resourceUnknownVal
	}
	if c.emptyID {
		c.link = strings.Join(c.segs, "/") + "/"
	}
	if n >= 2 && c.segs[0] == "dbs" && isRID(c.segs[1]) {
		// The SDKs sign a rid-based request over the resource's own rid, or for a feed its
		// parent's, lower-cased (azure-cosmos-python auth.GetAuthorizationHeader and
		// base.GetResourceIdOrFullNameFromLink; the .NET SDK's AuthorizationHelper likewise).
		c.ridBased = true
		if n%2 == 0 {
			c.link = strings.ToLower(c.segs[n-1])
		} else {
			c.link = strings.ToLower(c.segs[n-2])
		}
	}
	c.PKRangeID = r.Header.Get(hdrPKRangeID)
	feed := n%2 == 1 && !c.emptyID
	c.Operation = Operation(wire.Classify(r).Name)
	if c.emptyID { // a point operation on the empty id, not the feed wire.Classify takes it for
		switch r.Method {
		case http.MethodGet:
			c.Operation = OpReadItem
		case http.MethodPut:
			c.Operation = OpReplaceItem
		case http.MethodPatch:
			c.Operation = OpPatchItem
		case http.MethodDelete:
			c.Operation = OpDeleteItem
		}
	}
	switch r.Method {
	case http.MethodGet:
		switch {
		case n == 0:
			c.verb = verbReadAccount
		case feed && c.ResourceType == ResourceDocument && r.Header.Get("A-IM") != "":
			c.verb = verbChangeFeed
		case feed:
			c.verb = verbReadFeed
		default:
			c.verb = verbRead
		}
	case http.MethodPost:
		switch {
		case strings.HasPrefix(r.Header.Get("Content-Type"), "application/query+json"):
			c.verb = verbQuery
		case strings.EqualFold(r.Header.Get(hdrIsBatch), "true"):
			c.verb = verbBatch
			c.IsWrite = true
		case strings.EqualFold(r.Header.Get(hdrIsUpsert), "true"):
			c.verb = verbUpsert
			c.IsWrite = true
		default:
			c.verb = verbCreate
			c.IsWrite = true
		}
	case http.MethodPut:
		c.verb = verbReplace
		c.IsWrite = true
	case http.MethodPatch:
		c.verb = verbPatch
		c.IsWrite = true
	case http.MethodDelete:
		c.verb = verbDelete
		c.IsWrite = true
	default:
		return c, newError(http.StatusMethodNotAllowed, subNone, "cosmostest: method %s is not supported", r.Method)
	}
	return c, nil
}

// Header names.
const (
	hdrActivityID       = wire.HeaderActivityID
	hdrCharge           = wire.HeaderRequestCharge
	hdrSession          = wire.HeaderSessionToken
	hdrSubstatus        = wire.HeaderSubStatus
	hdrPK               = wire.HeaderPartitionKey
	hdrPKRangeID        = wire.HeaderPKRangeID
	hdrIsUpsert         = wire.HeaderIsUpsert
	hdrIsBatch          = wire.HeaderIsBatch
	hdrMaxItemCount     = wire.HeaderMaxItemCount
	hdrContinuation     = wire.HeaderContinuation
	hdrItemCount        = wire.HeaderItemCount
	hdrEnableCross      = "x-ms-documentdb-query-enablecrosspartition"
	hdrQueryMetrics     = wire.HeaderQueryMetrics
	hdrIsQueryPlan      = wire.HeaderIsQueryPlan
	hdrQueryFeatures    = wire.HeaderSupportedQueryFeatures
	hdrPopulateIndex    = wire.HeaderPopulateIndexMetrics
	hdrIndexUtilization = wire.HeaderIndexUtilization
	hdrOfferThroughput  = "x-ms-offer-throughput"
	hdrOfferAutopilot   = "x-ms-cosmos-offer-autopilot-settings"
)

// isRID reports whether a database path segment is a resource id rather than a name, as the
// service and the SDKs tell them apart (azure-cosmos-python base.IsNameBased): 8 characters of
// standard base64 that decode to 4 bytes. A database named like that cannot be addressed by name.
func isRID(seg string) bool {
	if len(seg) != 8 {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(seg)
	return err == nil && len(b) == 4
}

// resolveRIDs replaces the resource ids of a rid-based path with the names they stand for, so
// that handlers, counters and fault rules see the same request as by name; an id that names
// nothing is 404. Callers hold srv.mu.
func (srv *server) resolveRIDs(c *classification) error {
	segs := c.segs
	var db *database
	for _, d := range srv.store.dbs {
		if d.rid == segs[1] {
			db = d
			break
		}
	}
	if db == nil {
		return notFoundItem()
	}
	segs[1] = db.id
	c.Database = db.id
	if len(segs) < 4 || segs[2] != "colls" {
		c.setID()
		return nil
	}
	var coll *container
	for _, x := range db.colls {
		if x.rid == segs[3] {
			coll = x
			break
		}
	}
	if coll == nil {
		return notFoundItem()
	}
	segs[3] = coll.id
	c.Container = coll.id
	if len(segs) == 6 && segs[4] == "docs" {
		found := false
		for _, r := range coll.ranges {
			for _, it := range r.items {
				if it.rid == segs[5] {
					segs[5], found = it.id, true
					break
				}
			}
			if found {
				break
			}
		}
		if !found {
			return notFoundItem()
		}
	}
	c.setID()
	return nil
}

// setID sets ID from segs for a point operation (an even number of segments).
func (c *classification) setID() {
	if n := len(c.segs); n%2 == 0 && n > 0 {
		c.ID = c.segs[n-1]
	}
}
