package cosmostest

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/epk"
	"github.com/cosmoskit/cosmoskit-go/internal/jsonorder"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// partitionKeyDef is a container's partitionKey definition.
type partitionKeyDef struct {
	Paths   []string `json:"paths"`
	Kind    string   `json:"kind"`
	Version int      `json:"version,omitempty"`
}

// pkRange is one physical partition: an EPK range with its own LSN counter and items.
//
// Seams: the change feed reads items in _lsn order per range; a runtime split replaces a range by
// two children whose parents list its id (and answers 410/1002 for the old id); throughput limits
// keep a per-range budget.
type pkRange struct {
	id       string
	min, max string
	parents  []string
	lsn      int64            // last LSN issued in this range
	items    map[string]*item // by itemKey(pk, id)
	ts       int64

	// Replication (replication.go): this region's copy's place in the partition's log, nil
	// without replication; multi-write: per region index, the highest LSN of that region's own
	// writes applied here (the session token's vector), nil on single-write accounts; a batch's
	// working copy collects its log entries in staged until it commits; heads holds the versions
	// of an item no known write has superseded, where that is not just the item as stored.
	copy     *rangeCopy
	progress []int64
	staged   *[]logEntry
	heads    map[string]*headSet // multi-write with replication: items with concurrent versions or a delete (conflicts.go)
}

// newRanges returns the n physical partitions of a new container, ids "0".."n-1", splitting the
// hash space the container's keys use evenly (epk.Ranges).
func newRanges(n int, def partitionKeyDef, ts int64) []*pkRange {
	if n <= 1 {
		return []*pkRange{{id: "0", min: "", max: "FF", items: map[string]*item{}, ts: ts}}
	}
	var out []*pkRange
	for i, r := range epk.Ranges(n, def.Kind, def.Version) {
		out = append(out, &pkRange{id: strconv.Itoa(i), min: r.MinInclusive, max: r.MaxExclusive, items: map[string]*item{}, ts: ts})
	}
	return out
}

// effectivePK is the EPK the SDK computes for pk on this container.
func (c *container) effectivePK(pk []any) string {
	comps := make([]any, len(pk))
	for i, v := range pk {
		switch v.(type) {
		case undefinedT, jsonorder.Undefined, []any, map[string]any:
			// An array or object at a key path is the undefined component, as in the service
			// (its query plans route c.pk = [] to the undefined key's point).
			comps[i] = epk.Undefined
		default:
			comps[i] = v
		}
	}
	return epk.Hash(comps, c.pk.Kind, c.pk.Version)
}

// rangeFor returns the physical partition that holds logical partition pk: the range whose
// [min, max) contains the key's EPK. It is the one place where keys are mapped to ranges.
func (c *container) rangeFor(pk []any) *pkRange {
	if len(c.ranges) == 1 {
		return c.ranges[0]
	}
	e := c.effectivePK(pk)
	for _, r := range c.ranges {
		if (epk.Range{MinInclusive: r.min, MaxExclusive: r.max}).Contains(e) {
			return r
		}
	}
	return c.ranges[len(c.ranges)-1]
}

// rangeByID returns the range with that id, or nil.
func (c *container) rangeByID(id string) *pkRange {
	for _, r := range c.ranges {
		if r.id == id {
			return r
		}
	}
	return nil
}

// nextLSN advances and returns the range's LSN.
func (r *pkRange) nextLSN() int64 {
	r.lsn++
	return r.lsn
}

// token is this copy's progress as a session token: "<rangeId>:-1#<lsn>" on a single-write
// account, with "#<region>=<lsn>" per region on a multi-write account (wire.SessionToken).
func (r *pkRange) token() wire.SessionToken {
	t := wire.SessionToken{Range: r.id, Version: -1, GlobalLSN: r.lsn}
	for i, p := range r.progress {
		t.Regional = append(t.Regional, wire.RegionLSN{Region: uint32(i), LSN: p})
	}
	return t
}

// sessionToken is the token the service sends for this range (token).
func (r *pkRange) sessionToken() string { return r.token().String() }

// pkValues extracts the partition key values of doc at the definition's paths; a missing
// property is undefinedValue.
func (d partitionKeyDef) values(doc map[string]any) []any {
	out := make([]any, len(d.Paths))
	for i, p := range d.Paths {
		var cur any = doc
		for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
			m, ok := cur.(map[string]any)
			if !ok {
				cur = undefinedValue
				break
			}
			v, ok := m[unescapePathSegment(seg)]
			if !ok {
				cur = undefinedValue
				break
			}
			cur = v
		}
		out[i] = cur
	}
	return out
}

func unescapePathSegment(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// itemKey is the identity of an item inside a container: (partition key values, id).
func itemKey(pk []any, id string) string {
	var b strings.Builder
	for _, v := range pk {
		if v == undefinedValue {
			b.WriteString("{}")
		} else {
			j, _ := json.Marshal(v)
			b.Write(j)
		}
		b.WriteByte(0)
	}
	b.WriteByte(1)
	b.WriteString(id)
	return b.String()
}

// samePK compares partition key values component by component.
func samePK(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] == undefinedValue || b[i] == undefinedValue {
			if a[i] != b[i] {
				return false
			}
			continue
		}
		if !jsonEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// responseRange is the one physical partition a data-plane request concerned, nil when it
// touched none or several (a query fanned out over ranges). The service names it in the
// x-ms-documentdb-partitionkeyrangeid response header, which diagnostics reads to attribute RU and
// 429s to physical partitions. Where unsure: whether the real gateway sends this header on every
// point operation and on 429s was not confirmed from a service trace; the session token
// ("<rangeId>:-1#<lsn>") names the same range on successful responses.
func (rq *request) responseRange() *pkRange {
	if len(rq.touched) == 0 {
		return nil
	}
	r := rq.touched[0]
	for _, o := range rq.touched[1:] {
		if o != r {
			return nil
		}
	}
	return r
}

// prefixRanges returns the physical partitions that can hold keys starting with prefix (fewer
// components than the container's MultiHash definition): those overlapping the EPK span
// [EPK(prefix), EPK(prefix)+"FF…"), as the service routes a prefix query. The EPK of a MultiHash
// key is one 32-hex block per component, so every full key with this prefix starts with the
// prefix's EPK.
func (c *container) prefixRanges(prefix []any) []*pkRange {
	if len(c.ranges) == 1 {
		return c.ranges
	}
	lo := c.effectivePK(prefix)
	hi := lo + strings.Repeat("F", 32*len(c.pk.Paths)+1) // above every extension of lo
	var out []*pkRange
	for _, r := range c.ranges {
		if epk.Compare(r.min, hi) < 0 && (r.max == "" || r.max == epk.MaxEPK || epk.Compare(lo, r.max) < 0) {
			out = append(out, r)
		}
	}
	return out
}
