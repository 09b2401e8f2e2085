package changefeed

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// Dispatcher is a Handler that routes each change to a function for its document type.
//
// It uses the "type" discriminator and "schemaVersion" that repository.Repository writes (the shape
// repository.Mixed reads). Register a typed function per repository with On, and optionally a raw
// function for everything else. The changes of a batch are dispatched in order, one at a time; the
// first error fails the whole batch (it is delivered again, so typed functions must be idempotent
// like any handler).
//
// A change at the repository's current schema version is decoded directly; an older one is
// decoded as delivered with the repository's registered upgrades (Repository.Decode: no request).
// A newer version than the code knows fails the batch with an error matching
// cosmoserr.ErrUnknownSchemaVersion.
type Dispatcher struct {
	opts   DispatchOptions
	byType map[string]func(ctx context.Context, doc []byte, version int, hasVersion bool) error
	err    error
}

// DispatchOptions configure a Dispatcher (and MigrateHandler); zero values are the defaults.
// Dispatcher.Options returns the options in effect.
type DispatchOptions struct {
	// PartitionKeyPaths are the monitored container's partition key paths ("/customerId"), at
	// most 3, broadest first, which MigrateHandler needs to write each document back. A
	// Dispatcher does not use them. Default: none.
	PartitionKeyPaths []string
	// Raw receives changes whose type has no registered function (including documents without a
	// "type"). Default: nil, such changes are skipped.
	Raw func(ctx context.Context, doc []byte) error
}

// NewDispatcher returns an empty dispatcher. Errors: a *cosmoserr.ValidationError (matching
// cosmoserr.ErrValidation) for partition key paths that are not paths such as "/customerId" or
// more than 3 of them.
func NewDispatcher(opts DispatchOptions) (*Dispatcher, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	opts.PartitionKeyPaths = slices.Clone(opts.PartitionKeyPaths)
	return &Dispatcher{opts: opts, byType: map[string]func(context.Context, []byte, int, bool) error{}}, nil
}

// Options returns the options in effect (a copy: changing it changes nothing).
func (d *Dispatcher) Options() DispatchOptions {
	o := d.opts
	o.PartitionKeyPaths = slices.Clone(o.PartitionKeyPaths)
	return o
}

// validate checks the partition key paths' form (the service checks that they are the
// container's).
func (o DispatchOptions) validate() error {
	if len(o.PartitionKeyPaths) > 3 {
		return invalid("PartitionKeyPaths", "at most 3 levels")
	}
	for _, p := range o.PartitionKeyPaths {
		if len(p) < 2 || p[0] != '/' || strings.HasSuffix(p, "/") {
			return invalid("PartitionKeyPaths", "each must be a path such as /customerId")
		}
	}
	return nil
}

// On registers fn for the documents of repo's type and returns d. Registering a type twice, or a
// nil repo or fn, is recorded and returned by Handler.
func On[T any](d *Dispatcher, repo *repository.Repository[T], fn func(ctx context.Context, item T) error) *Dispatcher {
	if d.err != nil {
		return d
	}
	if repo == nil || fn == nil {
		d.err = invalid("On", "nil repository or function")
		return d
	}
	typ := repo.Type()
	if _, dup := d.byType[typ]; dup {
		d.err = invalid("On", fmt.Sprintf("type %q registered twice", typ))
		return d
	}
	d.byType[typ] = func(ctx context.Context, doc []byte, version int, hasVersion bool) error {
		var item T
		if hasVersion && version == repo.SchemaVersion() {
			if err := json.Unmarshal(doc, &item); err != nil {
				return fmt.Errorf("changefeed: decoding a %s change: %w", typ, err)
			}
			return fn(ctx, item)
		}
		// An older schema version: the repository's own decode runs its upgrades on the change as
		// delivered (no point read).
		item, err := repo.Decode(doc)
		if err != nil {
			return fmt.Errorf("changefeed: a %s change at schema version %d: %w", typ, version, err)
		}
		return fn(ctx, item)
	}
	return d
}

// Handler returns the dispatcher as a Handler, or the first registration error. The handler is a
// snapshot: registrations made afterwards do not change it, so it is safe for concurrent use.
func (d *Dispatcher) Handler() (Handler, error) {
	if d.err != nil {
		return nil, d.err
	}
	snap := &Dispatcher{opts: d.opts, byType: maps.Clone(d.byType)}
	return snap.handle, nil
}

func (d *Dispatcher) handle(ctx context.Context, b Batch) error {
	for _, doc := range b.Items {
		var h struct {
			Type    *string          `json:"type"`
			Version *json.RawMessage `json:"schemaVersion"`
		}
		_ = json.Unmarshal(doc, &h) // a change that is not an object goes to Raw
		var fn func(context.Context, []byte, int, bool) error
		if h.Type != nil {
			fn = d.byType[*h.Type]
		}
		if fn == nil {
			if d.opts.Raw != nil {
				if err := d.opts.Raw(ctx, doc); err != nil {
					return err
				}
			}
			continue
		}
		version, hasVersion := 0, false
		if h.Version != nil {
			hasVersion = json.Unmarshal(*h.Version, &version) == nil
		}
		if err := fn(ctx, doc, version, hasVersion); err != nil {
			return err
		}
	}
	return nil
}

// key reads a change's id and partition key at DispatchOptions.PartitionKeyPaths.
func (d *Dispatcher) key(doc []byte) (string, partitionkey.Key, error) {
	if len(d.opts.PartitionKeyPaths) == 0 {
		return "", partitionkey.Key{}, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "DispatchOptions.PartitionKeyPaths", Reason: "is not set"}
	}
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		return "", partitionkey.Key{}, err
	}
	id, _ := m["id"].(string)
	vals := make([]any, 0, len(d.opts.PartitionKeyPaths))
	for _, path := range d.opts.PartitionKeyPaths {
		var v any = m
		for _, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
			obj, _ := v.(map[string]any)
			v = obj[seg]
		}
		switch v.(type) {
		case string, float64, bool, nil:
		default:
			return "", partitionkey.Key{}, &cosmoserr.ValidationError{Kind: cosmoserr.ErrInvalidPartitionKey, Field: path, Reason: "is not a string, number, boolean or null"}
		}
		vals = append(vals, v)
	}
	pk := partitionkey.Of(vals...)
	return id, pk, pk.Err()
}
