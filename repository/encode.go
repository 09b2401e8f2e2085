package repository

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// Encoded is an item as the repository writes it, for packages that send writes themselves (the
// bulk executor's bulk.Upserts, bulk.Creates and bulk.Replaces).
type Encoded struct {
	// ID is the item's id (from the KeyFunc), checked.
	ID string
	// PartitionKey is the item's partition key (from the KeyFunc), checked against the container's
	// levels and, with Options.PartitionKeyPaths, against the item's own values.
	PartitionKey partitionkey.Key
	// Body is the item's JSON with "type" and "schemaVersion" stamped: a copy the caller owns.
	Body []byte
	// ETag is the item's own "_etag" property ("" if none): Upsert and Replace make the write
	// conditional on it, as the repository's own writes do.
	ETag azcore.ETag
}

// Encode stamps and validates item exactly as Create, Upsert and Replace do before sending, and
// returns it encoded; it sends nothing. ctx is the context of the write: an item at or above
// Options.LargeItemThreshold is reported to Options.OnLargeItem with it.
//
// Errors: a *cosmoserr.ValidationError naming the field (never the value): the id (its rules),
// the partition key (its levels, lengths, and the item's own values at PartitionKeyPaths), the
// JSON (numbers, depth, type and schemaVersion properties) and the size (MaxItemBytes). A KeyFunc
// key whose components cannot be read (another azcosmos layout, see PartitionKey) is refused with
// cosmoserr.ErrInvalidPartitionKey, as Encoded carries a partitionkey.Key. With an error, the
// Encoded holds only the id the KeyFunc returned, so a caller can tell which item was refused.
func (r *Repository[T]) Encode(ctx context.Context, item T) (Encoded, error) {
	id, pk := r.key(item)
	refused := Encoded{ID: id}
	if err := validateID(id); err != nil {
		return refused, err
	}
	e, err := r.encodeFor(ctx, item, id, pk)
	if err != nil {
		return refused, err
	}
	defer e.release()
	if _, err := r.checkPoint(pk, id); err != nil {
		return refused, err
	}
	k, ok := sdkKey(pk)
	if !ok {
		return refused, invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", "cannot be read from the KeyFunc's azcosmos.PartitionKey")
	}
	if k.Err() != nil {
		return refused, k.Err()
	}
	return Encoded{ID: id, PartitionKey: k, Body: append([]byte(nil), e.b...), ETag: e.etag}, nil
}
