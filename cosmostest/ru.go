package cosmostest

import (
	"math"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/rucharge"
)

// The request-unit model. It is deterministic and follows the service's documented charges
// (internal/rucharge holds them, with their sources; package capacity plans with the same ones).
// Sizes are the JSON size of the stored item including system properties, in KB (1,024 bytes),
// at least 1.
//
//	point read                      the documented read curve by size: 1 KB 1.00 RU, 2 KB 1.04,
//	                                128 KB 9.95, 2 MB 291.80 (linear between the table's rows)
//	create (or an upsert that       the documented write curve by size (1 KB 4.95 RU, taken to
//	inserts)                        index 2 terms), ± 0.2 RU per indexed term more or fewer than
//	                                that: rucharge.WriteRU(KB, indexed terms)
//	replace (or an upsert that      2× the create of the new item (rucharge.ReplaceFactor)
//	replaces)
//	patch                           as a replace of the result, +0.1 RU per operation
//	delete                          as a create of the deleted item
//	failed point operation          1.00 RU (404, 409, 412 after the store was consulted); 0 for
//	                                400/401/403/413 rejected before it
//	query page                      2.80 RU per physical partition the request covers + 0.10 RU per
//	                                document loaded + 0.10 RU per KB returned
//	metadata read / write           1.00 RU / 5.00 RU (databases, containers, offers, pkranges)
//	batch operation                 as the single operation; a 424 (failed dependency) 1.00 RU;
//	                                the batch's x-ms-request-charge is the sum
//	change feed page                as a query page of one partition over the documents returned;
//	                                a 304 1.00 RU
//	account read (GET /)            0 RU
//
// An indexed term is a leaf value of the item (a string, number, boolean or null; each array
// element counts) whose path the indexing policy indexes (the longest matching included or
// excluded path decides, as for index advice); system properties (_rid, _self, _etag,
// _attachments, _ts) are not counted; indexing mode none indexes nothing. Excluding every path
// but the partition key therefore lowers a write's charge, as the service documents ("Request
// units", considerations "Item indexing" and "Indexed properties").
//
// Strong and Bounded Staleness reads (point reads, queries and feeds) cost 2× (consistency.go's
// readCharge), as documented (rucharge.StrongReadFactor).
//
// Remaining differences from the service, to keep in mind when planning with measured figures:
//
//   - The charge per indexed term (0.2 RU) and the replace factor (2×) are assumptions, not
//     documented figures; writes are right in direction and order of magnitude, not to the cent.
//   - Queries have no filter index: every document in scope is loaded (and reported as
//     retrievedDocumentCount), as a query with no usable index would be; on the service an indexed
//     filter loads only the matching documents and pays per index lookup instead, so indexed
//     queries over large scopes cost less there than here.
//   - A query's per-partition charge is paid on each page of a request covering several partitions
//     (a gateway fan-out); the service's exact per-partition overhead is not documented (seed 004
//     puts it at about 2.5 RU).
//
// Charges are rounded to two decimals. The throughput limiter (WithThroughputLimits) spends these
// same charges against each physical partition's budget.
const (
	ruPatchPerOp     = 0.1
	ruFailed         = 1.0
	ruQueryPartition = 2.8
	ruQueryPerDoc    = 0.1
	ruQueryPerKB     = 0.1
	ruMetadataRead   = 1.0
	ruMetadataWrite  = 5.0
	bytesPerKB       = 1024.0
	ruRoundingFactor = 100
)

func kb(size int) float64 {
	return math.Max(1, float64(size)/bytesPerKB)
}

func roundRU(v float64) float64 { return math.Round(v*ruRoundingFactor) / ruRoundingFactor }

func ruRead(size int) float64 { return roundRU(rucharge.ReadRU(kb(size))) }

// ruWrite is the charge of inserting (or deleting) it in c.
func ruWrite(c *container, it *item) float64 {
	return roundRU(rucharge.WriteRU(kb(it.size), indexedTerms(c, it.doc)))
}

// ruReplace is the charge of replacing an item with it in c.
func ruReplace(c *container, it *item) float64 {
	return roundRU(rucharge.ReplaceFactor * rucharge.WriteRU(kb(it.size), indexedTerms(c, it.doc)))
}

// ruUpsert is a create's charge when nothing was replaced, a replace's otherwise.
func ruUpsert(c *container, it *item, replaced bool) float64 {
	if replaced {
		return ruReplace(c, it)
	}
	return ruWrite(c, it)
}

func ruPatch(c *container, it *item, ops int) float64 {
	return roundRU(rucharge.ReplaceFactor*rucharge.WriteRU(kb(it.size), indexedTerms(c, it.doc)) + ruPatchPerOp*float64(ops))
}

// ruQuery is the charge of a query or feed page over partitions physical partitions that loaded
// loaded documents and returned bytes of results.
func ruQuery(partitions, loaded, bytes int) float64 {
	return roundRU(ruQueryPartition*float64(max(partitions, 1)) + ruQueryPerDoc*float64(loaded) + ruQueryPerKB*math.Ceil(float64(bytes)/bytesPerKB))
}

// systemProperty reports the properties the service adds to every item, which the write charge
// does not count as the user's indexed terms.
func systemProperty(name string) bool {
	switch name {
	case "_rid", "_self", "_etag", "_attachments", "_ts":
		return true
	}
	return false
}

// indexedTerms counts the leaf values of doc whose paths c's indexing policy indexes. Each distinct
// path is decided once (an array's scalar elements share one path), so a large array (a vector
// embedding) costs one policy lookup, not one per element.
func indexedTerms(c *container, doc map[string]any) int {
	ip, _ := c.props["indexingPolicy"].(map[string]any)
	if mode, _ := ip["indexingMode"].(string); strings.EqualFold(mode, "none") {
		return 0
	}
	decided := map[string]bool{}
	isIndexed := func(path string) bool {
		v, ok := decided[path]
		if !ok {
			v = indexed(ip, path)
			decided[path] = v
		}
		return v
	}
	n := 0
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(path+"/"+k, x)
			}
		case []any:
			elem := path + "/[]"
			for _, x := range v {
				switch x.(type) {
				case map[string]any, []any:
					walk(elem, x)
				default:
					if isIndexed(elem) {
						n++
					}
				}
			}
		default:
			if isIndexed(path) {
				n++
			}
		}
	}
	for k, x := range doc {
		if !systemProperty(k) {
			walk("/"+k, x)
		}
	}
	return n
}
