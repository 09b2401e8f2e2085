package cosmostest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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
}

// newRanges returns the physical partitions of a new container.
//
// Until internal/epk lands this is a single range "0" covering ["", "FF") whatever n is, which
// the SDK handles correctly for every key (rest_protocol §7). Switch here (and in rangeFor) to
// epk.Ranges(n, def.Kind, def.Version).
func newRanges(n int, def partitionKeyDef, ts int64) []*pkRange {
	_ = n
	_ = def
	return []*pkRange{{id: "0", min: "", max: "FF", items: map[string]*item{}, ts: ts}}
}

// rangeFor returns the physical partition that holds logical partition pk. It is the one place
// where keys are mapped to ranges: with internal/epk it becomes
// "the range whose [min,max) contains epk.Hash(pk, kind, version)".
func (c *container) rangeFor(pk []any) *pkRange {
	_ = pk
	return c.ranges[0]
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

// sessionToken is the token the service sends for this range: "<rangeId>:-1#<lsn>".
func (r *pkRange) sessionToken() string { return r.id + ":-1#" + strconv.FormatInt(r.lsn, 10) }

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

func formatPK(pk []any) string {
	parts := make([]string, len(pk))
	for i, v := range pk {
		if v == undefinedValue {
			parts[i] = "{}"
			continue
		}
		j, _ := json.Marshal(v)
		parts[i] = string(j)
	}
	return fmt.Sprintf("[%s]", strings.Join(parts, ","))
}
