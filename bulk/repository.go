package bulk

import (
	"context"
	"iter"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"

	"github.com/cosmoskit/cosmoskit-go/repository"
)

// Upserts returns an upsert operation for each item, encoded and checked by repo as repo.Upsert
// would. The encoding takes the repository's id and partition key (its KeyFunc), its "type" and
// "schemaVersion" stamps, and its checks (id rules, key levels and lengths, the item's own values
// at Options.PartitionKeyPaths, numbers, depth and the 2 MB limit). An item repo refuses still yields an
// operation: Execute reports it as that item's own Result, with the repository's
// *cosmoserr.ValidationError, and sends nothing for it; the other items are applied. An item
// carrying its "_etag" (an embedded repository.Meta filled by a read) is upserted only if the
// stored item still has that ETag (412 otherwise), as repo.Upsert does.
//
// ctx is the context items are encoded with (repo's OnLargeItem receives it). Execute refuses
// the operations if repo's container is not the executor's (compared by container id). Items
// are encoded as Execute reads them, so items may be a stream of any length.
func Upserts[T any](ctx context.Context, repo *repository.Repository[T], items iter.Seq[T]) iter.Seq[Operation] {
	return fromRepository(ctx, repo, Upsert, items)
}

// Creates is Upserts with Create operations: an item whose id exists in its logical partition
// gets a 409 (cosmoserr.ErrConflict) result. An item's "_etag" is not a condition of a create.
func Creates[T any](ctx context.Context, repo *repository.Repository[T], items iter.Seq[T]) iter.Seq[Operation] {
	return fromRepository(ctx, repo, Create, items)
}

// Replaces is Upserts with Replace operations: a missing item gets a 404 (cosmoserr.ErrNotFound)
// result, and an item carrying its "_etag" is replaced only if the stored item still has it.
func Replaces[T any](ctx context.Context, repo *repository.Repository[T], items iter.Seq[T]) iter.Seq[Operation] {
	return fromRepository(ctx, repo, Replace, items)
}

func fromRepository[T any](ctx context.Context, repo *repository.Repository[T], kind Kind, items iter.Seq[T]) iter.Seq[Operation] {
	return func(yield func(Operation) bool) {
		if repo == nil {
			yield(Operation{Kind: kind, err: invalid(cosmoserr.ErrValidation, "repository", "is nil")})
			return
		}
		container := repo.Container().ID()
		for item := range items {
			op := Operation{Kind: kind, container: container}
			e, err := repo.Encode(ctx, item)
			if err != nil {
				op.ID, op.err = e.ID, err
			} else {
				op.ID, op.PartitionKey, op.Document = e.ID, e.PartitionKey, e.Body
				if kind != Create {
					op.IfMatch = e.ETag
				}
			}
			if !yield(op) {
				return
			}
		}
	}
}
