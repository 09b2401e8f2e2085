package crosspartition

import (
	"encoding/json"

	"github.com/cosmoskit/cosmoskit-go/internal/jsonorder"
)

// undefinedT is Cosmos DB's undefined: a missing property or the {} of an orderByItems entry
// (jsonorder's, the same type the query engine uses).
type undefinedT = jsonorder.Undefined

var undefined = undefinedT{}

func isUndef(v any) bool { return jsonorder.IsUndefined(v) }

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
func typeRank(v any) int { return jsonorder.Rank(v) }

// compareValues orders two decoded values as ORDER BY does.
func compareValues(a, b any) int { return jsonorder.Order{}.Compare(a, b) }

// compareKeys orders two ORDER BY key vectors; desc[i] reverses key i.
func compareKeys(a, b []any, desc []bool) int { return jsonorder.Order{}.CompareKeys(a, b, desc) }

// hashValue is a content hash of a JSON value: equal values (whatever their property order or
// number spelling) hash alike. It identifies rows for DISTINCT and for exact resumption after a
// split.
func hashValue(v any) uint64 {
	b, _ := json.Marshal(canonical(v))
	return rawHash(b) // FNV-1a 64, as hash/fnv computes it

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
