package repository

import (
	"context"
	"errors"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// MigrateResult counts what Migrate did.
type MigrateResult struct {
	// Found is the number of documents of this type below the current schema version, and of
	// documents without a type with Options.ReadUntyped.
	Found int
	// Upgraded is the number written back at the current version.
	Upgraded int
	// Gone is the number deleted or rewritten by someone else before Migrate got to them.
	Gone int
}

// Migrate rewrites every document of this type that is below the current schema version in its
// upgraded form.
//
// It walks the whole container (a logged cross-partition query, paged with continuation tokens) and
// rewrites every document of this type whose schemaVersion is below the current one (or missing,
// with Options.UnversionedAs), and with Options.ReadUntyped every document without a "type" stamped
// with it (and "schemaVersion"). Each is written with the ETag loop of Update, so concurrent
// writers are never overwritten. It is idempotent: documents already current are not touched, and a
// second run finds nothing. It stops at the first error, returning what it did so far; documents it
// cannot upgrade (cosmoserr.ErrUnknownSchemaVersion) stop it too.
func (r *Repository[T]) Migrate(ctx context.Context) (_ MigrateResult, err error) {
	ctx, end := r.start(ctx, "repository.Migrate")
	defer func() { end(err) }()
	var res MigrateResult
	older := "c.schemaVersion < @version"
	if r.unversion > 0 {
		older = "(NOT IS_DEFINED(c.schemaVersion) OR c.schemaVersion < @version)"
	}
	text := "SELECT * FROM c WHERE c.type = @type AND " + older
	if r.untyped { // every untyped document, whatever its version: Migrate stamps the type
		text = "SELECT * FROM c WHERE (c.type = @type AND " + older + ") OR NOT IS_DEFINED(c.type)"
	}
	q := SQL(text, Param("@version", r.version)).CrossPartition()
	for item, err := range r.All(ctx, q) {
		if err != nil {
			return res, err
		}
		res.Found++
		id, pk := r.key(item)
		_, err := r.Update(ctx, pk, id, func(*T) error { return nil })
		switch {
		case err == nil:
			res.Upgraded++
		case errors.Is(err, cosmoserr.ErrNotFound):
			res.Gone++
		default:
			return res, err
		}
	}
	return res, nil
}
