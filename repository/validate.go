package repository

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/plural"
	"github.com/cosmoskit/cosmoskit-go/internal/sdklayout"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// validateID applies the service's id rules before any request: 1 to 1,023 bytes of UTF-8, and
// only ids the routing gateway can address by id afterwards (wire.IDProblem: no / \ ? #, no
// control character, no percent sequence, no white space at the end, not "." or "..").
func validateID(id string) error {
	if len(id) > MaxIDBytes {
		return invalid(cosmoserr.ErrInvalidID, "id", fmt.Sprintf("is %d bytes, the limit is %d", len(id), MaxIDBytes))
	}
	if p := wire.IDProblem(id); p != "" {
		return invalid(cosmoserr.ErrInvalidID, "id", p)
	}
	return nil
}

// checkPoint validates the id and a full partition key of a point operation, and returns the
// key in the SDK's form.
func (c *core) checkPoint(pk PartitionKey, id string) (azcosmos.PartitionKey, error) {
	if err := validateID(id); err != nil {
		return azcosmos.PartitionKey{}, err
	}
	sdk, _, err := c.checkKey(pk, false)
	return sdk, err
}

// checkKey resolves a caller's partition key and, when it is a Key, validates it: its number of
// components (exactly the container's levels for point operations, at least one and at most that
// many with prefix) and the length of each string component, whether it is a Key or an
// azcosmos.PartitionKey (read by sdkKey). n is the number of components, -1 for an SDK key whose
// components cannot be read (the service checks it).
func (c *core) checkKey(pk PartitionKey, prefix bool) (sdk azcosmos.PartitionKey, n int, err error) {
	sdk, k, typed, err := resolve(pk)
	if err != nil {
		return sdk, -1, err
	}
	if !typed {
		// An SDK key is checked as a Key when its components can be read (sdkKey), and sent as
		// given when not.
		if k, typed = sdkKey(sdk); !typed {
			return sdk, -1, nil
		}
		if k.Err() != nil {
			return sdk, -1, k.Err()
		}
	}
	return sdk, k.Len(), c.checkTyped(k, prefix)
}

func (c *core) checkTyped(k partitionkey.Key, prefix bool) error {
	n := k.Len()
	switch {
	case n == 0:
		return invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", "has no value")
	case c.pkLevels > 0 && !prefix && n != c.pkLevels:
		return invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", "has "+plural.Count(n, "value", "values")+", the container has "+plural.Count(c.pkLevels, "level", "levels"))
	case c.pkLevels > 0 && prefix && n > c.pkLevels:
		return invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", "has "+plural.Count(n, "value", "values")+", the container has "+plural.Count(c.pkLevels, "level", "levels"))
	}
	for i := range n {
		if s, ok := k.Value(i).(string); ok && len(s) > c.pkMax {
			return invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey["+strconv.Itoa(i)+"]",
				fmt.Sprintf("is %d bytes, the limit is %d", len(s), c.pkMax))
		}
	}
	return nil
}

// docKey reads the partition key values of an encoded item at the container's paths and returns
// them as a Key: the repository's own typed values, checked here. Field names the path of a value
// that is missing, not a string, number, boolean or null, or longer than the container allows.
func (c *core) docKey(doc []byte) (partitionkey.Key, error) {
	vals := make([]any, 0, len(c.pkPaths))
	for _, path := range c.pkPaths {
		raw := lookupPath(doc, path)
		switch {
		case raw == nil:
			return partitionkey.Key{}, invalid(cosmoserr.ErrInvalidPartitionKey, path, "the item has no value at this partition key path")
		case raw[0] == '"':
			s, ok := jsonString(raw)
			if !ok {
				return partitionkey.Key{}, invalid(cosmoserr.ErrInvalidPartitionKey, path, "is not a valid JSON string")
			}
			if len(s) > c.pkMax {
				return partitionkey.Key{}, invalid(cosmoserr.ErrInvalidPartitionKey, path, fmt.Sprintf("is %d bytes, the limit is %d", len(s), c.pkMax))
			}
			vals = append(vals, s)
		case string(raw) == "true", string(raw) == "false":
			vals = append(vals, raw[0] == 't')
		case string(raw) == "null":
			vals = append(vals, nil)
		case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
			f, err := strconv.ParseFloat(string(raw), 64)
			if err != nil {
				return partitionkey.Key{}, invalid(cosmoserr.ErrInvalidPartitionKey, path, "is not a valid number")
			}
			vals = append(vals, f)
		default:
			return partitionkey.Key{}, invalid(cosmoserr.ErrInvalidPartitionKey, path, "is an object or array, not a partition key value")
		}
	}
	return partitionkey.Of(vals...), nil
}

// checkDocKey checks the partition key found in an encoded item at Options.PartitionKeyPaths
// (present, a key value, within the length limit, one value per level of the container) and that
// it is the key the item is written with, whatever its type: a Key is compared component by
// component (the differing path is named), and so is an azcosmos.PartitionKey (read by sdkKey;
// if it cannot be read, it is compared with the SDK key built from the item's own values), so a
// key with another number of components or another value is refused before sending. It does
// nothing without PartitionKeyPaths.
func (c *core) checkDocKey(doc []byte, want PartitionKey) error {
	if len(c.pkPaths) == 0 {
		return nil
	}
	got, err := c.docKey(doc)
	if err != nil {
		return err
	}
	var k partitionkey.Key
	switch x := want.(type) {
	case partitionkey.Key:
		k = x
	case *partitionkey.Key:
		k = *x
	case azcosmos.PartitionKey:
		return c.checkSDKDocKey(got, x)
	case *azcosmos.PartitionKey:
		if x == nil {
			return nil // refused by checkKey
		}
		return c.checkSDKDocKey(got, *x)
	default:
		return nil
	}
	return c.checkDocKey2(got, k)
}

// checkDocKey2 compares the key an item is written with (k) with its own key (got), naming the
// first path that differs.
func (c *core) checkDocKey2(got, k partitionkey.Key) error {
	if k.Err() != nil {
		return k.Err()
	}
	if got.Equal(k) {
		return nil
	}
	if k.Len() != got.Len() {
		return invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey",
			fmt.Sprintf("has %d components, the container has %d levels", k.Len(), got.Len()))
	}
	for i := range got.Len() {
		if got.Value(i) != k.Value(i) {
			return invalid(cosmoserr.ErrInvalidPartitionKey, c.pkPaths[i], reasonKeyDiffers)
		}
	}
	return invalid(cosmoserr.ErrInvalidPartitionKey, strings.Join(c.pkPaths, ","), reasonKeyDiffers)
}

// checkSDKDocKey compares an SDK key with the item's own key (got, read at the paths).
func (c *core) checkSDKDocKey(got partitionkey.Key, want azcosmos.PartitionKey) error {
	if k, ok := sdkKey(want); ok {
		return c.checkDocKey2(got, k)
	}
	if reflect.DeepEqual(want, got.SDK()) {
		return nil
	}
	return invalid(cosmoserr.ErrInvalidPartitionKey, strings.Join(c.pkPaths, ","), reasonKeyDiffers)
}

// sdkKey reads the components of an azcosmos.PartitionKey, which keeps them unexported, through
// internal/sdklayout (the one reader of azcosmos layouts). Any other layout, or a component of
// another kind, answers false and the key is sent as given (the service checks it); cosmoskit.New
// reports such a layout when the client is built, and TestSDKKeyLayout fails on it.
func sdkKey(pk azcosmos.PartitionKey) (partitionkey.Key, bool) {
	vals, ok := sdklayout.PartitionKeyValues(pk)
	if !ok {
		return partitionkey.Key{}, false
	}
	return partitionkey.Of(vals...), true
}

const reasonKeyDiffers = "the item's partition key property differs from the partition key it is written with"

// lookupPath returns the raw JSON value at a partition key path ("/customerId", "/address/city")
// of doc, nil if absent.
func lookupPath(doc []byte, path string) []byte {
	v := doc
	for seg := range strings.SplitSeq(strings.TrimPrefix(path, "/"), "/") {
		seg = strings.Trim(seg, `"`)
		v = member(v, seg)
		if v == nil {
			return nil
		}
	}
	return v
}

// member returns the raw value of property name of the JSON object obj, nil if absent or if obj
// is not an object.
func member(obj []byte, name string) []byte {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipWS(obj, i)
		if i >= len(obj) || obj[i] == '}' {
			return nil
		}
		if obj[i] == ',' {
			i++
			continue
		}
		if obj[i] != '"' {
			return nil
		}
		ks := i
		i = skipString(obj, i)
		if i-1 <= ks || i > len(obj) {
			return nil
		}
		key := obj[ks:i]
		i = skipWS(obj, i)
		if i < len(obj) && obj[i] == ':' {
			i++
		}
		i = skipWS(obj, i)
		vs := i
		i, _ = skipValue(obj, i, false)
		if i <= vs {
			return nil
		}
		if jsonStringEquals(key, name) {
			return obj[vs:i]
		}
	}
}

// jsonString decodes the raw JSON string raw.
func jsonString(raw []byte) (string, bool) {
	if bytes.IndexByte(raw, '\\') < 0 && len(raw) >= 2 && raw[len(raw)-1] == '"' {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
