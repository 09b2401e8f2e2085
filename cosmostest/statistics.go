package cosmostest

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Storage statistics on a container read, as the service answers them:
//
//   - x-ms-documentdb-populatepartitionstatistics: true adds "statistics" to the container body:
//     one entry per physical partition, {"id", "sizeInKB", "documentCount",
//     "sampledDistinctPartitionKeyCount", "partitionKeys": [{"partitionKey": [values...],
//     "sizeInKB"}]} (the shape the .NET SDK's PartitionKeyRangeStatistics reads).
//   - x-ms-documentdb-populatequotainfo: true adds x-ms-resource-usage and x-ms-resource-quota:
//     "functions=..;storedProcedures=..;triggers=..;documentSize=<MB>;documentsSize=<KB>;
//     documentsCount=<n>;collectionSize=<KB>;" (documentSize is the collection size in MB, as in
//     the service's answers).
//
// cosmostest computes them from its own data, exactly rather than sampled: sizes are the sum of
// the stored documents' JSON sizes, rounded up to whole KB (the service also counts index and
// metadata, so its figures are larger for the same documents), and "partitionKeys" lists the
// statsTopKeys largest logical partitions of each physical one, whatever their size. Where unsure:
// the service samples, and its documentation says keys below about 1 GB may not be listed at all,
// and how many it lists is not documented; the quota header's values for a container with no
// fixed size (here the 50 GB per physical partition, documentsCount=-1, and the default script
// limits) are this server's choice, not taken from a service trace.
const (
	statsTopKeys        = 3
	physicalQuotaKB     = 50 * 1024 * 1024 // 50 GB per physical partition
	scriptQuotaSegments = "functions=25;storedProcedures=100;triggers=25;"
)

// rangeStats is one physical partition's entry in "statistics".
type rangeStats struct {
	ID            string     `json:"id"`
	SizeInKB      int64      `json:"sizeInKB"`
	DocumentCount int64      `json:"documentCount"`
	SampledKeys   int64      `json:"sampledDistinctPartitionKeyCount"`
	PartitionKeys []keyStats `json:"partitionKeys"`
}

type keyStats struct {
	PartitionKey []any `json:"partitionKey"`
	SizeInKB     int64 `json:"sizeInKB"`
}

// ceilKB rounds a byte count up to whole KB.
func ceilKB(bytes int64) int64 { return (bytes + 1023) / 1024 }

// statistics computes the "statistics" entries and the container's totals; callers hold srv.mu.
func (c *container) statistics() (stats []rangeStats, bytes, docs int64) {
	for _, r := range c.ranges {
		type acc struct {
			pk    []any
			bytes int64
		}
		keys := map[string]*acc{}
		var rb int64
		for _, it := range r.items {
			k := itemKey(it.pk, "")
			a := keys[k]
			if a == nil {
				a = &acc{pk: it.pk}
				keys[k] = a
			}
			a.bytes += int64(it.size)
			rb += int64(it.size)
		}
		all := make([]*acc, 0, len(keys))
		for _, a := range keys {
			all = append(all, a)
		}
		slices.SortFunc(all, func(x, y *acc) int {
			if d := cmp.Compare(y.bytes, x.bytes); d != 0 {
				return d
			}
			return strings.Compare(itemKey(x.pk, ""), itemKey(y.pk, ""))
		})
		top := make([]keyStats, 0, statsTopKeys)
		for _, a := range all[:min(len(all), statsTopKeys)] {
			vals := make([]any, len(a.pk))
			for i, v := range a.pk {
				if v == undefinedValue {
					vals[i] = map[string]any{}
				} else {
					vals[i] = v
				}
			}
			top = append(top, keyStats{PartitionKey: vals, SizeInKB: ceilKB(a.bytes)})
		}
		stats = append(stats, rangeStats{ID: r.id, SizeInKB: ceilKB(rb), DocumentCount: int64(len(r.items)), SampledKeys: int64(len(keys)), PartitionKeys: top})
		bytes += rb
		docs += int64(len(r.items))
	}
	return stats, bytes, docs
}

// readContainerBody is the container body of a read, with "statistics" when asked for; it sets
// the quota headers when asked for. Callers hold srv.mu.
func (rq *request) readContainerBody(c *container) []byte {
	withStats := strings.EqualFold(rq.hdr(wire.HeaderPopulatePartitionStatistics), "true")
	withQuota := strings.EqualFold(rq.hdr(wire.HeaderPopulateQuotaInfo), "true")
	m := c.json()
	if !withStats && !withQuota {
		return mustJSON(m)
	}
	stats, bytes, docs := c.statistics()
	if withStats {
		// Through a JSON round trip so that mustJSON renders it like the rest of the body.
		var v any
		b, _ := json.Marshal(stats)
		_ = json.Unmarshal(b, &v)
		m["statistics"] = v
	}
	if withQuota {
		sizeKB := ceilKB(bytes)
		quotaKB := int64(len(c.ranges)) * physicalQuotaKB
		rq.header.Set(wire.HeaderResourceUsage, scriptQuotaUsage(c)+"documentSize="+strconv.FormatInt(sizeKB/1024, 10)+
			";documentsSize="+strconv.FormatInt(sizeKB, 10)+";documentsCount="+strconv.FormatInt(docs, 10)+
			";collectionSize="+strconv.FormatInt(sizeKB, 10)+";")
		rq.header.Set(wire.HeaderResourceQuota, scriptQuotaSegments+"documentSize="+strconv.FormatInt(quotaKB/1024, 10)+
			";documentsSize="+strconv.FormatInt(quotaKB, 10)+";documentsCount=-1;collectionSize="+strconv.FormatInt(quotaKB, 10)+";")
	}
	return mustJSON(m)
}

// scriptQuotaUsage is the usage of server-side scripts: cosmostest has none.
func scriptQuotaUsage(*container) string { return "functions=0;storedProcedures=0;triggers=0;" }
