package wire

import (
	"net/http"
	"net/url"
	"strings"
)

// Operation names, as the azcosmos SDK names its spans (rest_protocol §13) where it has one.
// Names the SDK does not have (read_change_feed, read_account, the offer operations) follow
// the same verb_resource pattern.
const (
	OpReadAccount            = "read_account"
	OpCreateDatabase         = "create_database"
	OpQueryDatabases         = "query_databases"
	OpReadDatabase           = "read_database"
	OpDeleteDatabase         = "delete_database"
	OpCreateContainer        = "create_container"
	OpQueryContainers        = "query_containers"
	OpReadContainer          = "read_container"
	OpReplaceContainer       = "replace_container"
	OpDeleteContainer        = "delete_container"
	OpReadPartitionKeyRanges = "read_partition_key_ranges"
	OpCreateItem             = "create_item"
	OpUpsertItem             = "upsert_item"
	OpReadItem               = "read_item"
	OpReplaceItem            = "replace_item"
	OpPatchItem              = "patch_item"
	OpDeleteItem             = "delete_item"
	OpQueryItems             = "query_items"
	OpQueryPlan              = "query_plan"
	OpExecuteBatch           = "execute_batch"
	OpReadChangeFeed         = "read_change_feed"
	OpReadAllItems           = "read_all_items"
	OpQueryOffers            = "query_offers"
	OpReadThroughput         = "read_throughput"
	OpReplaceThroughput      = "replace_throughput"
	OpReadConflicts          = "read_conflicts"
	OpReadConflict           = "read_conflict"
	OpDeleteConflict         = "delete_conflict"
	OpOther                  = "other"
)

// Operation describes one Cosmos DB REST call, as [Classify] reads it from the HTTP request.
type Operation struct {
	// Name is one of the Op constants, e.g. "read_item"; OpOther when the request is not recognised.
	Name string
	// Database and Container are the ids from the resource path, "" when the path has none.
	Database, Container string
	// Point reports an item create, upsert, read, replace, patch or delete (the operations whose
	// slow-call threshold is Options.PointLatencyThreshold).
	Point bool
	// Write reports an operation that may change state (anything but reads and queries).
	Write bool
	// Item is the item id of a point operation other than create and upsert (from the path),
	// "" otherwise.
	Item string
}

// Classify names the Cosmos DB operation an HTTP request performs, from its method, resource path
// and the headers azcosmos sets (§3.1 of the REST notes). It never reads the body and never fails:
// an unrecognised request is OpOther.
func Classify(r *http.Request) Operation {
	if r == nil || r.URL == nil {
		return Operation{Name: OpOther}
	}
	path := strings.TrimPrefix(r.URL.EscapedPath(), "/")
	path = strings.TrimSuffix(path, "/")
	h := r.Header
	m := r.Method

	seg0, rest, _ := strings.Cut(path, "/")
	switch seg0 {
	case "":
		if m == http.MethodGet {
			return Operation{Name: OpReadAccount}
		}
		return Operation{Name: OpOther, Write: isWriteMethod(m)}
	case "offers":
		switch {
		case rest == "" && m == http.MethodPost:
			return Operation{Name: OpQueryOffers}
		case rest != "" && m == http.MethodGet:
			return Operation{Name: OpReadThroughput}
		case rest != "" && m == http.MethodPut:
			return Operation{Name: OpReplaceThroughput, Write: true}
		}
		return Operation{Name: OpOther, Write: isWriteMethod(m)}
	case "dbs":
	default:
		return Operation{Name: OpOther, Write: isWriteMethod(m)}
	}

	// dbs[/{db}[/colls[/{c}[/{kind}[/{id}]]]]]
	dbSeg, rest, _ := strings.Cut(rest, "/")
	if dbSeg == "" {
		if m == http.MethodPost {
			if isQuery(h) {
				return Operation{Name: OpQueryDatabases}
			}
			return Operation{Name: OpCreateDatabase, Write: true}
		}
		return Operation{Name: OpOther, Write: isWriteMethod(m)}
	}
	op := Operation{Database: unescape(dbSeg)}
	collsSeg, rest, _ := strings.Cut(rest, "/")
	if collsSeg == "" {
		switch m {
		case http.MethodGet:
			op.Name = OpReadDatabase
		case http.MethodDelete:
			op.Name, op.Write = OpDeleteDatabase, true
		default:
			op.Name, op.Write = OpOther, isWriteMethod(m)
		}
		return op
	}
	if collsSeg != "colls" {
		op.Name, op.Write = OpOther, isWriteMethod(m)
		return op
	}
	cSeg, rest, _ := strings.Cut(rest, "/")
	if cSeg == "" {
		if m == http.MethodPost {
			if isQuery(h) {
				op.Name = OpQueryContainers
			} else {
				op.Name, op.Write = OpCreateContainer, true
			}
			return op
		}
		op.Name, op.Write = OpOther, isWriteMethod(m)
		return op
	}
	op.Container = unescape(cSeg)
	kind, id, _ := strings.Cut(rest, "/")
	switch kind {
	case "":
		switch m {
		case http.MethodGet:
			op.Name = OpReadContainer
		case http.MethodPut:
			op.Name, op.Write = OpReplaceContainer, true
		case http.MethodDelete:
			op.Name, op.Write = OpDeleteContainer, true
		default:
			op.Name, op.Write = OpOther, isWriteMethod(m)
		}
	case "pkranges":
		op.Name = OpReadPartitionKeyRanges
	case "docs":
		classifyDocs(&op, m, id, h)
	case "conflicts":
		switch {
		case id == "" && m == http.MethodGet:
			op.Name = OpReadConflicts
		case id != "" && m == http.MethodGet:
			op.Name = OpReadConflict
		case id != "" && m == http.MethodDelete:
			op.Name, op.Write = OpDeleteConflict, true
		default:
			op.Name, op.Write = OpOther, isWriteMethod(m)
		}
	default:
		op.Name, op.Write = OpOther, isWriteMethod(m)
	}
	return op
}

func classifyDocs(op *Operation, m string, id string, h http.Header) {
	if id != "" {
		op.Point = true
		op.Item = unescape(id)
		switch m {
		case http.MethodGet:
			op.Name = OpReadItem
		case http.MethodPut:
			op.Name, op.Write = OpReplaceItem, true
		case http.MethodPatch:
			op.Name, op.Write = OpPatchItem, true
		case http.MethodDelete:
			op.Name, op.Write = OpDeleteItem, true
		default:
			op.Name, op.Write, op.Point, op.Item = OpOther, isWriteMethod(m), false, ""
		}
		return
	}
	switch m {
	case http.MethodPost:
		switch {
		case strings.EqualFold(h.Get(HeaderIsQueryPlan), "true"):
			op.Name = OpQueryPlan
		case isQuery(h):
			op.Name = OpQueryItems
		case strings.EqualFold(h.Get(HeaderIsBatch), "true"):
			op.Name, op.Write = OpExecuteBatch, true
		case strings.EqualFold(h.Get(HeaderIsUpsert), "true"):
			op.Name, op.Write, op.Point = OpUpsertItem, true, true
		default:
			op.Name, op.Write, op.Point = OpCreateItem, true, true
		}
	case http.MethodGet:
		if h.Get(HeaderAIM) != "" {
			op.Name = OpReadChangeFeed
		} else {
			op.Name = OpReadAllItems
		}
	default:
		op.Name, op.Write = OpOther, isWriteMethod(m)
	}
}

func isQuery(h http.Header) bool {
	ct := h.Get(HeaderContentType)
	if len(ct) >= len(queryContentType) && strings.EqualFold(ct[:len(queryContentType)], queryContentType) {
		return true
	}
	return strings.EqualFold(h.Get(HeaderIsQuery), "true") || strings.EqualFold(h.Get(HeaderIsQueryOld), "true")
}

func isWriteMethod(m string) bool {
	return m != http.MethodGet && m != http.MethodHead
}

func unescape(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}
