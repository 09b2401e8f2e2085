// Package jsonorder is the one home of Cosmos DB's order of JSON values, as ORDER BY, MIN and MAX
// apply it across types: undefined < null < booleans < numbers < strings < arrays < objects. The
// query engine that cosmostest runs (internal/query) and the client's cross-partition merge
// (crosspartition) both order with it, so a merged page is in the order one partition returns.
package jsonorder

import (
	"bytes"
	"cmp"
	"encoding/json"
)

// Undefined is Cosmos DB's undefined: the value of a missing property or of an expression that
// evaluates to nothing (and the {} of an orderByItems entry). It is never written to results.
type Undefined struct{}

// IsUndefined reports whether v is Undefined.
func IsUndefined(v any) bool { _, ok := v.(Undefined); return ok }

// Rank is v's place in the cross-type order: Undefined 0, null 1, bool 2, float64 3, string 4,
// []any 5, map[string]any 6; any other type 7 (after every JSON value).
func Rank(v any) int {
	switch v.(type) {
	case Undefined:
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

// CompareNumbers orders two numbers, a NaN being equal to everything (cmp.Compare would put NaN
// first).
func CompareNumbers(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Order compares values; its zero value orders decoded JSON (encoding/json's types).
type Order struct {
	// Rank places a value in the cross-type order; a caller with its own object type ranks it 6.
	// Default: Rank.
	Rank func(v any) int
	// Object is the canonical JSON of an object (rank 6), which objects are ordered by, byte-wise.
	// Default: encoding/json (keys sorted).
	Object func(v any) []byte
}

// Compare totally orders a and b as ORDER BY does: by rank, then within a type (false < true,
// numbers by value, strings by UTF-8 bytes, arrays element by element then by length, objects by
// their canonical JSON).
func (o Order) Compare(a, b any) int {
	rank := o.Rank
	if rank == nil {
		rank = Rank
	}
	ra, rb := rank(a), rank(b)
	if ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch ra {
	case 2:
		x, y := a.(bool), b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case 3:
		return CompareNumbers(a.(float64), b.(float64))
	case 4:
		return cmp.Compare(a.(string), b.(string))
	case 5:
		x, y := a.([]any), b.([]any)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := o.Compare(x[i], y[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(x), len(y))
	case 6:
		enc := o.Object
		if enc == nil {
			enc = func(v any) []byte { b, _ := json.Marshal(v); return b }
		}
		return bytes.Compare(enc(a), enc(b))
	}
	return 0
}

// CompareKeys orders two ORDER BY key vectors with o; desc[i] reverses key i. A shorter vector
// that is a prefix of the other is not after it.
func (o Order) CompareKeys(a, b []any, desc []bool) int {
	for i := range a {
		if i >= len(b) {
			return 1
		}
		c := o.Compare(a[i], b[i])
		if desc[i] {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
