package query

import (
	"cmp"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/cosmoskit/cosmoskit-go/internal/jsonorder"
)

// undefinedT is the type of undefined: the value of a missing property or of an expression the
// service evaluates to undefined. It is never written to results. It is jsonorder's, so the
// client's cross-partition merge orders the same values.
type undefinedT = jsonorder.Undefined

var undefined any = undefinedT{}

func isUndef(v any) bool { return jsonorder.IsUndefined(v) }

// record is an object that keeps its properties' order: a projection's SELECT list, an object
// literal's, or a document's as stored (Decode). Its values may be undefined (a projection of a
// missing property), which marshalValue omits. A record is not changed once built.
type record struct {
	keys []string
	vals []any
	// index maps keys to positions for records large enough that a linear search is slower; nil
	// for small ones.
	index map[string]int
}

// indexedRecordLen is the size from which a record gets a key index.
const indexedRecordLen = 16

// newRecord builds a record over keys and vals (which it keeps), indexing large ones.
func newRecord(keys []string, vals []any) *record {
	r := &record{keys: keys, vals: vals}
	if len(keys) >= indexedRecordLen {
		r.index = make(map[string]int, len(keys))
		for i, k := range keys {
			if _, dup := r.index[k]; !dup {
				r.index[k] = i
			}
		}
	}
	return r
}

// get returns the value of property k (undefined values included), and whether r has it.
func (r *record) get(k string) (any, bool) {
	if r.index != nil {
		i, ok := r.index[k]
		if !ok {
			return nil, false
		}
		return r.vals[i], true
	}
	for i, key := range r.keys {
		if key == k {
			return r.vals[i], true
		}
	}
	return nil, false
}

// property returns the value of property k of an object (a map or a record), or undefined.
func property(o any, k string) any {
	switch m := o.(type) {
	case map[string]any:
		if v, ok := m[k]; ok {
			return v
		}
	case *record:
		if v, ok := m.get(k); ok {
			return v
		}
	}
	return undefined
}

// typeRank is the cross-type sort order (jsonorder.Rank), a projected *record being an object.
func typeRank(v any) int {
	if _, ok := v.(*record); ok {
		return 6
	}
	return jsonorder.Rank(v)
}

// order is ORDER BY's order of the engine's values: objects (maps and records) compare by their
// canonical JSON (keys sorted), whatever their property order.
var order = jsonorder.Order{Rank: typeRank, Object: func(v any) []byte { return canonicalJSON(nil, v) }}

// compareOrder totally orders any two values the way ORDER BY does.
func compareOrder(a, b any) int { return order.Compare(a, b) }

// cmpFloat orders two numbers, treating NaN as equal to everything.
func cmpFloat(a, b float64) int { return jsonorder.CompareNumbers(a, b) }

// compareScalar compares two values with the relational operators' rules: both must be of the same
// primitive type (null, boolean, number or string); otherwise ok is false and the result is undefined.
func compareScalar(a, b any) (int, bool) {
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok {
			return cmpFloat(x, y), true
		}
	case string:
		if y, ok := b.(string); ok {
			return cmp.Compare(x, y), true
		}
	case bool:
		if y, ok := b.(bool); ok {
			return compareOrder(x, y), true
		}
	case nil:
		if b == nil {
			return 0, true
		}
	}
	return 0, false
}

// equalValues reports deep equality of two defined values; ok is false when the types differ or
// either is undefined (the comparison is then undefined).
func equalValues(a, b any) (eq, ok bool) {
	if isUndef(a) || isUndef(b) {
		return false, false
	}
	if typeRank(a) != typeRank(b) {
		return false, false
	}
	return deepEqual(a, b), true
}

func deepEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y := asMap(b)
		if y == nil || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !deepEqual(v, w) {
				return false
			}
		}
		return true
	case *record:
		return deepEqual(recordMap(x), b)
	case undefinedT:
		return isUndef(b)
	}
	return false
}

func asMap(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case *record:
		return recordMap(x)
	}
	return nil
}

func recordMap(r *record) map[string]any {
	m := make(map[string]any, len(r.keys))
	for i, k := range r.keys {
		if !isUndef(r.vals[i]) {
			m[k] = r.vals[i]
		}
	}
	return m
}

// plain drops the undefined properties of a record (keeping its order), so that values flowing
// out of a subquery or into an array or object are ordinary JSON values.
func plain(v any) any {
	r, ok := v.(*record)
	if !ok {
		return v
	}
	n := 0
	for _, e := range r.vals {
		if !isUndef(e) {
			n++
		}
	}
	if n == len(r.vals) {
		return r
	}
	keys, vals := make([]string, 0, n), make([]any, 0, n)
	for i, e := range r.vals {
		if !isUndef(e) {
			keys, vals = append(keys, r.keys[i]), append(vals, e)
		}
	}
	return newRecord(keys, vals)
}

// marshalValue appends the JSON of v to buf as results are written. Undefined object properties
// and array elements are omitted; map keys are sorted; records keep their order.
func marshalValue(buf []byte, v any) []byte { return appendJSON(buf, v, false) }

// canonicalJSON appends the JSON of v with every object's keys sorted: the form that orders and
// compares objects (ORDER BY, DISTINCT, GROUP BY, MAKESET), in which property order is no
// difference.
func canonicalJSON(buf []byte, v any) []byte { return appendJSON(buf, v, true) }

func appendJSON(buf []byte, v any, sorted bool) []byte {
	switch x := v.(type) {
	case nil, undefinedT:
		return append(buf, "null"...)
	case bool:
		if x {
			return append(buf, "true"...)
		}
		return append(buf, "false"...)
	case float64:
		return appendNumber(buf, x)
	case string:
		return appendString(buf, x)
	case []any:
		buf = append(buf, '[')
		first := true
		for _, e := range x {
			if isUndef(e) {
				continue
			}
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = appendJSON(buf, e, sorted)
		}
		return append(buf, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k, e := range x {
			if !isUndef(e) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendString(buf, k)
			buf = append(buf, ':')
			buf = appendJSON(buf, x[k], sorted)
		}
		return append(buf, '}')
	case *record:
		if sorted {
			return appendJSON(buf, recordMap(x), true)
		}
		buf = append(buf, '{')
		first := true
		for i, k := range x.keys {
			if isUndef(x.vals[i]) {
				continue
			}
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = appendString(buf, k)
			buf = append(buf, ':')
			buf = appendJSON(buf, x.vals[i], false)
		}
		return append(buf, '}')
	case int:
		return strconv.AppendInt(buf, int64(x), 10)
	case int64:
		return strconv.AppendInt(buf, x, 10)
	}
	return append(buf, "null"...)
}

func appendNumber(buf []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(buf, "null"...)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		if math.Abs(f) < 1<<63 {
			return strconv.AppendInt(buf, int64(f), 10)
		}
		return strconv.AppendFloat(buf, f, 'f', -1, 64)
	}
	abs := math.Abs(f)
	if abs < 1e-6 || abs >= 1e21 {
		return strconv.AppendFloat(buf, f, 'E', -1, 64)
	}
	return strconv.AppendFloat(buf, f, 'f', -1, 64)
}

const hexDigits = "0123456789abcdef"

func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c < 0x20:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			buf = append(buf, `\ufffd`...)
		} else {
			buf = append(buf, s[i:i+n]...)
		}
		i += n
	}
	return append(buf, '"')
}

// normalize converts a decoded JSON value of any numeric Go type into the engine's representation.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, float64, string:
		return v
	case int:
		return float64(x)
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case float32:
		return float64(x)
	case uint64:
		return float64(x)
	case interface{ Float64() (float64, error) }:
		f, err := x.Float64()
		if err != nil {
			return undefined
		}
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case []float64:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case []float32:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = float64(e)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case undefinedT:
		return v
	}
	return undefined
}
