package repository

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// validateID applies the service's id rules before any request: 1 to 1,023 bytes, none of
// / \ ? # (the gateway mis-signs ? and #, and / \ break the resource path).
func validateID(id string) error {
	switch {
	case id == "":
		return invalid(ErrInvalidID, "id", "is empty")
	case len(id) > MaxIDBytes:
		return invalid(ErrInvalidID, "id", fmt.Sprintf("is %d bytes, the limit is %d", len(id), MaxIDBytes))
	case strings.ContainsAny(id, `/\?#`):
		return invalid(ErrInvalidID, "id", `contains one of / \ ? #`)
	}
	return nil
}

// checkPoint validates the id and a full partition key of a point operation.
func (c *core) checkPoint(pk azcosmos.PartitionKey, id string) error {
	if err := validateID(id); err != nil {
		return err
	}
	return c.checkKey(pk, false)
}

// checkKey validates a partition key: its number of components (exactly the container's levels
// for point operations, at least one and at most that many with prefix) and the length of each
// string component.
func (c *core) checkKey(pk azcosmos.PartitionKey, prefix bool) error {
	n, ok := keyLen(pk)
	if !ok {
		return nil // an SDK whose PartitionKey we cannot read: the service checks
	}
	switch {
	case n == 0:
		return invalid(ErrInvalidPartitionKey, "partitionKey", "has no value")
	case n > 3:
		return invalid(ErrInvalidPartitionKey, "partitionKey", "has more than 3 components")
	case c.pkLevels > 0 && !prefix && n != c.pkLevels:
		return invalid(ErrInvalidPartitionKey, "partitionKey", fmt.Sprintf("has %d components, the container has %d levels", n, c.pkLevels))
	case c.pkLevels > 0 && prefix && n > c.pkLevels:
		return invalid(ErrInvalidPartitionKey, "partitionKey", fmt.Sprintf("has %d components, the container has %d levels", n, c.pkLevels))
	}
	for i := 0; i < n; i++ {
		if s, ok := keyString(pk, i); ok && len(s) > c.pkMax {
			return invalid(ErrInvalidPartitionKey, "partitionKey["+strconv.Itoa(i)+"]",
				fmt.Sprintf("is %d bytes, the limit is %d", len(s), c.pkMax))
		}
	}
	return nil
}

// azcosmos.PartitionKey keeps its components in an unexported slice, and nothing exported renders
// it (the SDK's JSON form for the x-ms-documentdb-partitionkey header is unexported too), so the
// checks of a caller's key (component count, string length) read the slice through reflection:
// read-only, no unsafe. The layout is checked once: if a new SDK version no longer has a slice of
// interface values named "values", keyLen reports false and those checks are skipped (the service
// applies its own limits). Writes do not depend on it: with Options.PartitionKeyPaths, the values
// are read from the encoded document itself and compared with the KeyFunc's key by
// reflect.DeepEqual on a key built from them with the SDK's own constructors.
// TestKeyReflection fails if an SDK upgrade changes the layout.
var pkValues = keyLayout(reflect.TypeFor[azcosmos.PartitionKey]())

// keyLayout returns the index of the values field of a PartitionKey type, -1 if it has none of
// the expected type.
func keyLayout(t reflect.Type) int {
	if t.Kind() != reflect.Struct {
		return -1
	}
	f, ok := t.FieldByName("values")
	if !ok || len(f.Index) != 1 || f.Type.Kind() != reflect.Slice || f.Type.Elem().Kind() != reflect.Interface {
		return -1
	}
	return f.Index[0]
}

func keyLen(pk azcosmos.PartitionKey) (int, bool) {
	if pkValues < 0 {
		return 0, false
	}
	return reflect.ValueOf(&pk).Elem().Field(pkValues).Len(), true
}

// keyString returns component i of pk if it is a string.
func keyString(pk azcosmos.PartitionKey, i int) (string, bool) {
	if pkValues < 0 {
		return "", false
	}
	v := reflect.ValueOf(&pk).Elem().Field(pkValues).Index(i).Elem()
	if v.Kind() != reflect.String {
		return "", false
	}
	return v.String(), true
}

// keyEqual reports whether two partition keys have the same components. It relies on no field
// name: reflect.DeepEqual compares the SDK's values as they are.
func keyEqual(a, b azcosmos.PartitionKey) bool {
	return reflect.DeepEqual(a, b)
}

// docKey reads the partition key values of an encoded item at the container's paths and returns
// them as a PartitionKey built with the SDK's constructors. Field names the path of a value that
// is missing, not a string, number, boolean or null, or longer than the container allows.
func (c *core) docKey(doc []byte) (azcosmos.PartitionKey, error) {
	pk := azcosmos.NewPartitionKey()
	for _, path := range c.pkPaths {
		raw := lookupPath(doc, path)
		switch {
		case raw == nil:
			return pk, invalid(ErrInvalidPartitionKey, path, "the item has no value at this partition key path")
		case raw[0] == '"':
			s, ok := jsonString(raw)
			if !ok {
				return pk, invalid(ErrInvalidPartitionKey, path, "is not a valid JSON string")
			}
			if len(s) > c.pkMax {
				return pk, invalid(ErrInvalidPartitionKey, path, fmt.Sprintf("is %d bytes, the limit is %d", len(s), c.pkMax))
			}
			pk = pk.AppendString(s)
		case string(raw) == "true", string(raw) == "false":
			pk = pk.AppendBool(raw[0] == 't')
		case string(raw) == "null":
			pk = pk.AppendNull()
		case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
			f, err := strconv.ParseFloat(string(raw), 64)
			if err != nil {
				return pk, invalid(ErrInvalidPartitionKey, path, "is not a valid number")
			}
			pk = pk.AppendNumber(f)
		default:
			return pk, invalid(ErrInvalidPartitionKey, path, "is an object or array, not a partition key value")
		}
	}
	return pk, nil
}

// checkDocKey compares the partition key found in an encoded item with the one its KeyFunc
// returned. It does nothing without Options.PartitionKeyPaths.
func (c *core) checkDocKey(doc []byte, pk azcosmos.PartitionKey) error {
	if len(c.pkPaths) == 0 {
		return nil
	}
	got, err := c.docKey(doc)
	if err != nil {
		return err
	}
	if !keyEqual(got, pk) {
		return invalid(ErrInvalidPartitionKey, strings.Join(c.pkPaths, ","), "the item's partition key property differs from the partition key its KeyFunc returns")
	}
	return nil
}

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
