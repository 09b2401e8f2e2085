package repository

import (
	"fmt"
	"math"
	"strconv"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// PartitionKey is the partition key the repository's methods take: a Key built from typed values
// with KeyOf, or an azcosmos.PartitionKey as the SDK builds it (so existing call sites keep
// working). The repository checks a Key before anything is sent: its number of components
// against Options.PartitionKeyPaths (exactly that many for point operations, at most that many for
// a query prefix) and the length of each string. An azcosmos.PartitionKey keeps its components
// unexported, and the repository does not reach into another module's types, so it is sent as
// given and the service checks it (a wrong key is 400, cosmoserr.ErrBadRequest; a key that differs from the
// item's own properties is 400 with sub-status 1001, which also matches cosmoserr.ErrInvalidPartitionKey).
//
// Only Key and azcosmos.PartitionKey implement it usefully; another implementation is refused with
// cosmoserr.ErrInvalidPartitionKey.
type PartitionKey interface {
	AppendString(value string) azcosmos.PartitionKey
	AppendNumber(value float64) azcosmos.PartitionKey
	AppendBool(value bool) azcosmos.PartitionKey
	AppendNull() azcosmos.PartitionKey
}

// Key is a partition key built from typed values, broadest first: one value, or two or three for
// a hierarchical key. It is an immutable value; the zero Key has no value and is refused.
type Key struct {
	vals [3]any // string, float64, bool or nil (null)
	n    int
	err  error
}

// KeyOf returns the partition key with the given components: strings, numbers (any Go integer or
// float type; sent as a JSON number), bools, or nil for null. More than three components, a value
// of another type, a NaN or infinite float, or an integer beyond ±2^53 (a JSON number is a float64
// and would round it) make a Key the repository refuses with cosmoserr.ErrInvalidPartitionKey naming the
// component.
func KeyOf(values ...any) Key {
	var k Key
	if len(values) > len(k.vals) {
		k.err = invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", "has more than 3 components")
		return k
	}
	for i, v := range values {
		f, isNum, exact := number(v)
		switch {
		case isNum && !exact:
			k.err = invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey["+strconv.Itoa(i)+"]",
				fmt.Sprintf("is the integer %v, beyond ±2^53: a partition key number is a JSON number (a float64) and would be rounded", v))
			return k
		case isNum && (math.IsNaN(f) || math.IsInf(f, 0)):
			k.err = invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey["+strconv.Itoa(i)+"]",
				fmt.Sprintf("is %v: a partition key number must be finite (JSON has no NaN or infinity)", f))
			return k
		case isNum:
			v = f
		default:
			switch v.(type) {
			case nil, string, bool:
			default:
				k.err = invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey["+strconv.Itoa(i)+"]",
					fmt.Sprintf("is a %T: a partition key value is a string, a number, a bool or nil", v))
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

// Len returns the number of components.
func (k Key) Len() int { return k.n }

// Err returns why KeyOf refused the values (a *cosmoserr.ValidationError matching cosmoserr.ErrInvalidPartitionKey),
// nil for a usable key. Packages that take a Key (vector) check it before sending anything.
func (k Key) Err() error { return k.err }

// Values returns the components (string, float64, bool or nil), broadest first.
func (k Key) Values() []any { return append([]any(nil), k.vals[:k.n]...) }

// SDK returns the key as the SDK takes it.
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

// AppendString returns the SDK key of k with a string component added (PartitionKey).
func (k Key) AppendString(value string) azcosmos.PartitionKey { return k.SDK().AppendString(value) }

// AppendNumber returns the SDK key of k with a number component added (PartitionKey).
func (k Key) AppendNumber(value float64) azcosmos.PartitionKey { return k.SDK().AppendNumber(value) }

// AppendBool returns the SDK key of k with a bool component added (PartitionKey).
func (k Key) AppendBool(value bool) azcosmos.PartitionKey { return k.SDK().AppendBool(value) }

// AppendNull returns the SDK key of k with a null component added (PartitionKey).
func (k Key) AppendNull() azcosmos.PartitionKey { return k.SDK().AppendNull() }

// equal reports whether two Keys have the same components.
func (k Key) equal(o Key) bool {
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

// resolve returns the SDK form of pk and, when pk is a Key, the Key itself (typed true).
func resolve(pk PartitionKey) (sdk azcosmos.PartitionKey, k Key, typed bool, err error) {
	switch x := pk.(type) {
	case Key:
		return x.SDK(), x, true, x.err
	case *Key:
		if x == nil {
			return sdk, k, false, invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", "has no value")
		}
		return x.SDK(), *x, true, x.err
	case azcosmos.PartitionKey:
		return x, k, false, nil
	case *azcosmos.PartitionKey:
		if x == nil {
			return sdk, k, false, invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", "has no value")
		}
		return *x, k, false, nil
	case nil:
		return sdk, k, false, invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", "has no value")
	default:
		return sdk, k, false, invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", fmt.Sprintf("is a %T: pass a repository.Key or an azcosmos.PartitionKey", pk))
	}
}
