package changefeed

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// MigrateHandler returns a Handler that brings repo's documents to its current schema version as
// they go by.
//
// Every change of repo's type below the current version (or without one) is rewritten with
// repo.Update, which reads it, runs the registered upgrades and replaces it with If-Match, so a
// concurrent writer wins. Run it in a processor of its own (a name of its own) with
// StartFromBeginning: it walks every live document once, like repository.Migrate, without a
// cross-partition query, spread over instances and resumable from its checkpoints; left running, it
// also upgrades documents that older application versions keep writing during a rollout. The
// rewritten documents come by again at the current version and are left alone.
//
// opts.PartitionKeyPaths is required (to find each document's partition key). A document that
// cannot be upgraded (cosmoserr.ErrUnknownSchemaVersion, e.g. no version and no
// UnversionedAs) fails its batch: use Options.MaxDeliveries and OnPoison to set such documents
// aside. Deleted documents are skipped.
func MigrateHandler[T any](repo *repository.Repository[T], opts DispatchOptions) (Handler, error) {
	if repo == nil {
		return nil, invalid("repo", "nil")
	}
	if len(opts.PartitionKeyPaths) == 0 {
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "opts.PartitionKeyPaths", Reason: "required to find each document's partition key"}
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	d := &Dispatcher{opts: opts}
	current := repo.SchemaVersion()
	return func(ctx context.Context, b Batch) error {
		for _, doc := range b.Items {
			var h struct {
				Type    *string `json:"type"`
				Version *int    `json:"schemaVersion"`
			}
			if json.Unmarshal(doc, &h) != nil || h.Type == nil || *h.Type != repo.Type() {
				continue
			}
			if h.Version != nil && *h.Version >= current {
				continue
			}
			id, pk, err := d.key(doc)
			if err != nil {
				return err
			}
			if _, err := repo.Update(ctx, pk, id, func(*T) error { return nil }); err != nil && !errors.Is(err, cosmoserr.ErrNotFound) {
				return err
			}
		}
		return nil
	}, nil
}
