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

// record is a projected object that keeps the order of its SELECT list.
type record struct {
	keys []string
	vals []any
}

// typeRank is the cross-type sort order (jsonorder.Rank), a projected *record being an object.
func typeRank(v any) int {
	if _, ok := v.(*record); ok {
		return 6
	}
	return jsonorder.Rank(v)
}

// order is ORDER BY's order of the engine's values: objects (maps and projected records) compare
// by their JSON as the engine writes it.
var order = jsonorder.Order{Rank: typeRank, Object: func(v any) []byte { return marshalValue(nil, v) }}

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

// plain converts records nested in v into maps, so that values flowing out of a subquery are ordinary
// JSON values.
func plain(v any) any {
	if r, ok := v.(*record); ok {
		return recordMap(r)
	}
	return v
}

// marshalValue appends the JSON of v to buf. Undefined object properties and array elements are
// omitted; map keys are sorted; records keep their order.
func marshalValue(buf []byte, v any) []byte {
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
			buf = marshalValue(buf, e)
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
			buf = marshalValue(buf, x[k])
		}
		return append(buf, '}')
	case *record:
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
			buf = marshalValue(buf, x.vals[i])
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
