package repository

import (
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

// azcosmos.PartitionKey keeps its components in an unexported slice and offers no accessor, so
// the repository reads them through reflection (read-only; no unsafe). TestKeyReflection fails if
// a new SDK version changes the layout, and then validation falls back to the service's checks.
var pkValues = func() int {
	f, ok := reflect.TypeFor[azcosmos.PartitionKey]().FieldByName("values")
	if !ok || f.Type.Kind() != reflect.Slice {
		return -1
	}
	return f.Index[0]
}()

func keyLen(pk azcosmos.PartitionKey) (int, bool) {
	if pkValues < 0 {
		return 0, false
	}
	return reflect.ValueOf(&pk).Elem().Field(pkValues).Len(), true
}

// keyString returns component i of pk if it is a string.
func keyString(pk azcosmos.PartitionKey, i int) (string, bool) {
	v := reflect.ValueOf(&pk).Elem().Field(pkValues).Index(i)
	if v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	if v.Kind() != reflect.String {
		return "", false
	}
	return v.String(), true
}

// keyEqual reports whether two partition keys have the same components.
func keyEqual(a, b azcosmos.PartitionKey) bool {
	if pkValues < 0 {
		return true
	}
	va := reflect.ValueOf(&a).Elem().Field(pkValues)
	vb := reflect.ValueOf(&b).Elem().Field(pkValues)
	if va.Len() != vb.Len() {
		return false
	}
	for i := 0; i < va.Len(); i++ {
		x, y := va.Index(i).Elem(), vb.Index(i).Elem()
		if x.IsValid() != y.IsValid() {
			return false
		}
		if !x.IsValid() {
			continue
		}
		if x.Kind() != y.Kind() {
			return false
		}
		switch x.Kind() {
		case reflect.String:
			if x.String() != y.String() {
				return false
			}
		case reflect.Bool:
			if x.Bool() != y.Bool() {
				return false
			}
		case reflect.Float64:
			if x.Float() != y.Float() {
				return false
			}
		}
	}
	return true
}
