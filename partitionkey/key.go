package partitionkey

import (
	"fmt"
	"math"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// Key is a checked partition key: its values, broadest first. There is one value, or two or three
// for a hierarchical key, each a string, a float64, a bool or nil (JSON null). It is the one key
// type of cosmoskit: [Of] and the builders of this package ([Definition.Key], [Synthetic.Key],
// [Sharded.Key]) make it, and repository, vector and changefeed take it. It is an immutable value,
// safe to share; the zero Key has no value and is refused wherever a key is required.
//
// A Key implements the Append methods of azcosmos.PartitionKey, so it is accepted wherever
// package repository takes a partition key; [Key.SDK] returns it as the SDK takes it.
type Key struct {
	vals [MaxLevels]any // string, float64, bool or nil (null)
	n    int
	err  error
}

// Of returns the partition key with the given values, broadest first: strings, numbers (any Go
// integer or float type; sent as a JSON number), bools, or nil for null. More than MaxLevels
// values, a value of another type, a NaN or infinite float, or an integer beyond ±2^53 (a JSON
// number is a float64 and would round it) make a Key whose [Key.Err] is a
// *cosmoserr.ValidationError matching cosmoserr.ErrInvalidPartitionKey naming the value
// ("partitionKey[i]"); every package that takes the Key refuses it before sending. The length of
// a string is checked by whoever knows the container's limit ([Definition.Key], the repository).
func Of(values ...any) Key {
	var k Key
	if len(values) > len(k.vals) {
		k.err = invalid("partitionKey", "has %d values, a partition key has at most %d levels", len(values), MaxLevels)
		return k
	}
	for i, v := range values {
		f, isNum, exact := number(v)
		switch {
		case isNum && !exact:
			k.err = invalid(component(i), "is an integer beyond ±2^53: a partition key number is a JSON number (a float64) and would be rounded; use a string")
			return k
		case isNum && (math.IsNaN(f) || math.IsInf(f, 0)):
			k.err = invalid(component(i), "is not a finite number (JSON has no NaN or infinity)")
			return k
		case isNum:
			v = f
		default:
			switch v.(type) {
			case nil, string, bool:
			default:
				k.err = invalid(component(i), "is a %T: a partition key value is a string, a number, a bool or nil", v)
				return k
			}
		}
		k.vals[i] = v
	}
	k.n = len(values)
	return k
}

// maxExactInt is 2^53: integers of larger magnitude are not all exact as float64.
const maxExactInt = 1 << 53

// number returns v as a float64 if it is a Go number (isNum), and whether the conversion is exact
// for integers (floats are always "exact": NaN and infinities are the caller's to refuse).
func number(v any) (f float64, isNum, exact bool) {
	switch x := v.(type) {
	case float64:
		return x, true, true
	case float32:
		return float64(x), true, true
	case int:
		return float64(x), true, x >= -maxExactInt && x <= maxExactInt
	case int8:
		return float64(x), true, true
	case int16:
		return float64(x), true, true
	case int32:
		return float64(x), true, true
	case int64:
		return float64(x), true, x >= -maxExactInt && x <= maxExactInt
	case uint:
		return float64(x), true, x <= maxExactInt
	case uint8:
		return float64(x), true, true
	case uint16:
		return float64(x), true, true
	case uint32:
		return float64(x), true, true
	case uint64:
		return float64(x), true, x <= maxExactInt
	}
	return 0, false, false
}

// Len returns the number of values.
func (k Key) Len() int { return k.n }

// Err returns why Of refused the values (a *cosmoserr.ValidationError matching
// cosmoserr.ErrInvalidPartitionKey), nil for a usable key.
func (k Key) Err() error { return k.err }

// Values returns the values (string, float64, bool or nil), broadest first.
func (k Key) Values() []any { return append([]any(nil), k.vals[:k.n]...) }

// Value returns value i (string, float64, bool or nil), 0 <= i < Len.
func (k Key) Value(i int) any {
	if i < 0 || i >= k.n {
		panic(fmt.Sprintf("partitionkey: Value(%d) of a key with %d values", i, k.n))
	}
	return k.vals[i]
}

// Equal reports whether k and o have the same values.
func (k Key) Equal(o Key) bool {
	if k.n != o.n {
		return false
	}
	for i := range k.n {
		if k.vals[i] != o.vals[i] {
			return false
		}
	}
	return true
}

// SDK returns the key as the SDK takes it (an empty key for a refused or zero Key).
func (k Key) SDK() azcosmos.PartitionKey {
	pk := azcosmos.NewPartitionKey()
	for _, v := range k.vals[:k.n] {
		switch x := v.(type) {
		case string:
			pk = pk.AppendString(x)
		case float64:
			pk = pk.AppendNumber(x)
		case bool:
			pk = pk.AppendBool(x)
		default:
			pk = pk.AppendNull()
		}
	}
	return pk
}

// AppendString returns the SDK key of k with a string value added.
func (k Key) AppendString(value string) azcosmos.PartitionKey { return k.SDK().AppendString(value) }

// AppendNumber returns the SDK key of k with a number value added.
func (k Key) AppendNumber(value float64) azcosmos.PartitionKey { return k.SDK().AppendNumber(value) }

// AppendBool returns the SDK key of k with a bool value added.
func (k Key) AppendBool(value bool) azcosmos.PartitionKey { return k.SDK().AppendBool(value) }

// AppendNull returns the SDK key of k with a null value added.
func (k Key) AppendNull() azcosmos.PartitionKey { return k.SDK().AppendNull() }
