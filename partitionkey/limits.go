package partitionkey

import (
	"fmt"
	"strconv"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// The service's limits on partition key values (Cosmos DB documentation, "partition-key-length").
// A string value is at most 2,048 bytes with large partition keys (definition version 2, what
// cosmoskit.EnsureContainer creates) and 101 bytes without them (version 1); a hierarchical key
// has at most 3 levels. Package repository checks the same limits.
const (
	MaxValueBytes       = 2048
	MaxLegacyValueBytes = 101
	MaxLevels           = 3
)

// invalid is the package's one error constructor: a ValidationError on a partition key.
func invalid(field, format string, args ...any) error {
	return &cosmoserr.ValidationError{Kind: cosmoserr.ErrInvalidPartitionKey, Field: field, Reason: fmt.Sprintf(format, args...)}
}

// component names value i of a key in errors.
func component(i int) string { return "partitionKey[" + strconv.Itoa(i) + "]" }
