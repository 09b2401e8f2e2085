package partitionkey

import (
	"context"
	"math"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/plural"
)

// Definition is a container's partition key definition with the limits that follow from it. Build
// it with [ReadDefinition] or [DefinitionOf]; it is immutable and safe to share.
type Definition struct {
	paths    []string
	kind     azcosmos.PartitionKeyKind
	version  int
	maxBytes int
}

// ReadDefinition reads the container's properties (one metadata read: do it once at start-up, not
// per request) and returns its partition key definition.
func ReadDefinition(ctx context.Context, c *azcosmos.ContainerClient) (Definition, error) {
	resp, err := c.Read(ctx, nil)
	if err != nil {
		// The one error model: a *cosmoserr.Error (cosmoserr.ErrNotFound for a missing container) that
		// unwraps to the SDK's *azcore.ResponseError.
		return Definition{}, cosmoserr.FromError(cosmoserr.OpReadContainer, err)
	}
	return DefinitionOf(resp.ContainerProperties.PartitionKeyDefinition)
}

// DefinitionOf checks d and returns it as a Definition. d must have 1 path for kind Hash (the
// default when Kind is empty and there is one path), 1 to MaxLevels paths for MultiHash. A version
// other than 2 limits values to MaxLegacyValueBytes (101), as the service does without large
// partition keys.
func DefinitionOf(d azcosmos.PartitionKeyDefinition) (Definition, error) {
	kind := d.Kind
	if kind == "" {
		kind = azcosmos.PartitionKeyKindHash
		if len(d.Paths) > 1 {
			kind = azcosmos.PartitionKeyKindMultiHash
		}
	}
	switch {
	case len(d.Paths) == 0:
		return Definition{}, invalid("partitionKeyDefinition", "has no path")
	case kind == azcosmos.PartitionKeyKindHash && len(d.Paths) != 1:
		return Definition{}, invalid("partitionKeyDefinition", "kind Hash has %d paths, it takes 1", len(d.Paths))
	case kind == azcosmos.PartitionKeyKindMultiHash && len(d.Paths) > MaxLevels:
		return Definition{}, invalid("partitionKeyDefinition", "has %d paths, the limit is %d", len(d.Paths), MaxLevels)
	case kind != azcosmos.PartitionKeyKindHash && kind != azcosmos.PartitionKeyKindMultiHash:
		return Definition{}, invalid("partitionKeyDefinition", "kind %q is not supported", string(kind))
	}
	def := Definition{paths: append([]string(nil), d.Paths...), kind: kind, version: d.Version, maxBytes: MaxValueBytes}
	if d.Version != 2 && kind == azcosmos.PartitionKeyKindHash {
		// MultiHash is always version 2; Hash without version 2 has no large partition keys.
		def.maxBytes = MaxLegacyValueBytes
	}
	return def, nil
}

// Paths returns the definition's paths, broad to narrow.
func (d Definition) Paths() []string { return append([]string(nil), d.paths...) }

// Levels is the number of paths.
func (d Definition) Levels() int { return len(d.paths) }

// Kind is Hash or MultiHash.
func (d Definition) Kind() azcosmos.PartitionKeyKind { return d.kind }

// MaxBytes is the longest string value a level accepts: MaxValueBytes or, for a version 1 Hash
// definition, MaxLegacyValueBytes.
func (d Definition) MaxBytes() int { return d.maxBytes }

// Key builds the full key of a point operation or a single-partition query: exactly one value per
// level, each a string, bool, integer or float type, or nil (JSON null). A wrong number of values,
// another type, a non-finite number or a string longer than MaxBytes is a
// *cosmoserr.ValidationError naming the value; nothing is sent.
func (d Definition) Key(values ...any) (Key, error) {
	if len(d.paths) == 0 {
		return Key{}, invalid("partitionKeyDefinition", "is the zero Definition; use ReadDefinition or DefinitionOf")
	}
	if len(values) != len(d.paths) {
		return Key{}, invalid("partitionKey", "has %s, the container has %s", plural.Count(len(values), "value", "values"), plural.Count(len(d.paths), "level", "levels"))
	}
	return d.build(values)
}

// Prefix builds the key of a query over the leading levels of a hierarchical key: 1 to Levels
// values, checked as Key checks them. The query reaches only the physical partitions that hold
// that prefix. On a one-level definition Prefix is Key.
func (d Definition) Prefix(values ...any) (Key, error) {
	if len(d.paths) == 0 {
		return Key{}, invalid("partitionKeyDefinition", "is the zero Definition; use ReadDefinition or DefinitionOf")
	}
	if len(values) == 0 || len(values) > len(d.paths) {
		return Key{}, invalid("partitionKey", "has %s, a prefix takes 1 to %d", plural.Count(len(values), "value", "values"), len(d.paths))
	}
	return d.build(values)
}

func (d Definition) build(values []any) (Key, error) {
	k := Of(values...)
	if k.err != nil {
		return Key{}, k.err
	}
	for i, v := range values {
		var f float64
		switch x := v.(type) {
		case float32:
			f = float64(x)
		case float64:
			f = x
		}
		// An integral float beyond 2^53 was meant as an integer JSON numbers cannot hold exactly.
		if f == math.Trunc(f) && math.Abs(f) > 1<<53 {
			return Key{}, invalid(component(i), "is an integer beyond ±2^53, which JSON numbers cannot hold exactly")
		}
	}
	for i := range k.n {
		if s, ok := k.vals[i].(string); ok && len(s) > d.maxBytes {
			return Key{}, invalid(component(i), "is %d bytes, the limit is %d", len(s), d.maxBytes)
		}
	}
	return k, nil
}
