package crosspartition

import (
	"bytes"
	"cmp"
	"encoding/json"
	"hash/fnv"
	"math"
)

// undefinedT is Cosmos DB's undefined: a missing property or the {} of an orderByItems entry.
type undefinedT struct{}

var undefined = undefinedT{}

func isUndef(v any) bool { _, ok := v.(undefinedT); return ok }

// decode parses JSON into Go values (float64 numbers); a nil or empty input is undefined.
func decode(b []byte) (any, error) {
	if len(b) == 0 {
		return undefined, nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// typeRank is Cosmos DB's cross-type order: undefined < null < booleans < numbers < strings <
// arrays < objects.
func typeRank(v any) int {
	switch v.(type) {
	case undefinedT:
		return 0
	case nil:
		return 1
	case bool:
		return 2
	case float64:
		return 3
	case string:
		return 4
	case []any:
		return 5
	case map[string]any:
		return 6
	}
	return 7
}

// compareValues orders two values as ORDER BY does.
func compareValues(a, b any) int {
	ra, rb := typeRank(a), typeRank(b)
	if ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case float64:
		y := b.(float64)
		if math.IsNaN(x) || math.IsNaN(y) {
			return 0
		}
		return cmp.Compare(x, y)
	case string:
		return cmp.Compare(x, b.(string))
	case []any:
		y := b.([]any)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := compareValues(x[i], y[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(x), len(y))
	case map[string]any:
		xb, _ := json.Marshal(x)
		yb, _ := json.Marshal(b)
		return bytes.Compare(xb, yb)
	}
	return 0
}

// compareKeys orders two ORDER BY key vectors; desc[i] reverses key i.
func compareKeys(a, b []any, desc []bool) int {
	for i := range a {
		if i >= len(b) {
			return 1
		}
		c := compareValues(a[i], b[i])
		if desc[i] {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// hashValue is a content hash of a JSON value: equal values (whatever their property order or
// number spelling) hash alike. It identifies rows for DISTINCT and for exact resumption after a
// split.
func hashValue(v any) uint64 {
	h := fnv.New64a()
	b, _ := json.Marshal(canonical(v))
	_, _ = h.Write(b)
	return h.Sum64()
}

// canonical turns undefined into a marker JSON cannot produce otherwise.
func canonical(v any) any {
	if isUndef(v) {
		return map[string]any{"\x00undefined": true}
	}
	return v
}

// parseItems reads an orderByItems / groupByItems array: [{"item": v}, {}] -> [v, undefined].
func parseItems(raw json.RawMessage) ([]any, error) {
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	for i, it := range items {
		v, err := decode(it["item"])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}
