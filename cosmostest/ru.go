package cosmostest

import "math"

// The request-unit model. It is deterministic, scaled by size, and makes reads cheaper than
// writes, which is all tests can rely on from the real service. Sizes are the JSON size of the
// stored item including system properties, in KB (1024 bytes) rounded up, at least 1.
//
//	point read                      1.00 RU per KB          (1 KB item: 1 RU, as the service)
//	create / upsert / replace       5.71 RU per KB          (roughly the service's 1 KB write)
//	patch                           5.71 RU per KB of the result, +0.1 per operation
//	delete                          5.71 RU per KB of the deleted item
//	failed point operation          1.00 RU (404, 409, 412 after the store was consulted); 0 for
//	                                400/401/403/413 rejected before it
//	query page                      2.80 RU + 0.10 RU per document scanned + 0.10 RU per KB returned
//	metadata read / write           1.00 RU / 5.00 RU (databases, containers, offers, pkranges)
//	batch operation                 as the single operation; a 424 (failed dependency) 1.00 RU;
//	                                the batch's x-ms-request-charge is the sum
//	change feed page                as a query page over the documents returned; a 304 1.00 RU
//	account read (GET /)            0 RU
//
// Against the service's documented charges (checked by package capacity's tests through its
// Measure): a point read of a 1 KB item is 1 RU and grows with the size, as documented; a 1 KB
// write is about 5 RU (seed 004's constant, the service's ~5.7 with default indexing) and grows
// with the size. Remaining differences, to keep in mind when planning with measured figures:
//
//   - Writes do not depend on the indexing policy: on the service each indexed path adds to a
//     write's charge, so excluding paths (or indexing mode none) lowers write RU; here it does not.
//     Measure write patterns with a selective policy on a real account.
//   - Queries have no filter index: every document in scope is examined (and reported as
//     retrievedDocumentCount), as a query with no usable index would be; on the service an
//     indexed filter loads only the matching documents, so indexed queries over large scopes cost
//     less there than here.
//   - Strong and Bounded Staleness reads cost the same as Session reads (2x on the service).
//   - A query over several physical partitions pays the base charge once here, without the
//     service's overhead of about 2.5 RU per partition (seed 004); package capacity adds that
//     overhead to its model, not to measured figures.
//
// Charges are rounded to two decimals. The throughput limiter (WithThroughputLimits) spends these
// same charges against each physical partition's budget.
const (
	ruReadPerKB      = 1.0
	ruWritePerKB     = 5.71
	ruPatchPerOp     = 0.1
	ruFailed         = 1.0
	ruQueryBase      = 2.8
	ruQueryPerDoc    = 0.1
	ruQueryPerKB     = 0.1
	ruMetadataRead   = 1.0
	ruMetadataWrite  = 5.0
	bytesPerKB       = 1024.0
	ruRoundingFactor = 100
)

func kb(size int) float64 {
	k := math.Ceil(float64(size) / bytesPerKB)
	if k < 1 {
		k = 1
	}
	return k
}

func roundRU(v float64) float64 { return math.Round(v*ruRoundingFactor) / ruRoundingFactor }

func ruRead(size int) float64  { return roundRU(ruReadPerKB * kb(size)) }
func ruWrite(size int) float64 { return roundRU(ruWritePerKB * kb(size)) }
func ruPatch(size, ops int) float64 {
	return roundRU(ruWritePerKB*kb(size) + ruPatchPerOp*float64(ops))
}
func ruQuery(scanned, bytes int) float64 {
	return roundRU(ruQueryBase + ruQueryPerDoc*float64(scanned) + ruQueryPerKB*math.Ceil(float64(bytes)/bytesPerKB))
}
