package repository

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/crosspartition"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/internal/tokenmac"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/retry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Repository gives typed access to the documents of one type in a container. It is safe for
// concurrent use. Several repositories of different types may share a container.
type Repository[T any] struct {
	core
	key  KeyFunc[T]
	opts Options[T] // in effect, for Options
}

// core is the part of a repository that does not depend on T.
type core struct {
	c          *azcosmos.ContainerClient
	typeName   string
	typeJSON   []byte // `"order"`
	stamp      []byte // `,"type":"order","schemaVersion":3}` appended in place of the closing brace
	version    int
	upgrades   map[int]UpgradeFunc
	unversion  int
	untyped    bool // Options.ReadUntyped
	writeBack  bool
	pkLevels   int
	pkPaths    []string
	pkMax      int
	policy     retry.Backoff
	largeAt    int
	onLarge    func(context.Context, LargeItem)
	log        *slog.Logger
	versionStr string
	diag       *diagnostics.Policy
	db, ctr    string // for spans; db is "" with New
	xq         *crosspartition.Container
	tokenKey   []byte // Options.TokenSigningKey
	identity   []byte // account, database and container, for token bindings
}

// start begins the span of one repository call (see Options.Diagnostics); name is a constant such
// as "repository.Get", so nothing is built when tracing is off.
func (c *core) start(ctx context.Context, name string) (context.Context, func(error)) {
	ctx, end := c.diag.StartOperation(ctx, name, c.db, c.ctr)
	if s := trace.SpanFromContext(ctx); s.IsRecording() {
		s.SetAttributes(attribute.String("cosmoskit.repository.type", c.typeName))
	}
	return ctx, end
}

// New returns a repository for items of type T in container c. It sends no request. It returns
// a *cosmoserr.ValidationError (matching cosmoserr.ErrValidation) naming the option when Type or
// Key is missing, Type has characters other than letters, digits and _ - . :, an upgrade is
// registered for a version outside [1, SchemaVersion), or a number is negative.
func New[T any](c *azcosmos.ContainerClient, opts Options[T]) (*Repository[T], error) {
	if c == nil {
		return nil, invalid(cosmoserr.ErrValidation, "container", "is nil")
	}
	if opts.Key == nil {
		return nil, invalid(cosmoserr.ErrValidation, "Options.Key", "is required")
	}
	if opts.Type == "" || len(opts.Type) > 128 {
		return nil, invalid(cosmoserr.ErrValidation, "Options.Type", "must be 1 to 128 characters")
	}
	for _, r := range opts.Type {
		if !typeRune(r) {
			return nil, invalid(cosmoserr.ErrValidation, "Options.Type", "may only hold letters, digits and _ - . :")
		}
	}
	v := opts.SchemaVersion
	if v == 0 {
		v = 1
	}
	if v < 0 {
		return nil, invalid(cosmoserr.ErrValidation, "Options.SchemaVersion", "must not be negative")
	}
	for from := range opts.Upgrades {
		if from < 1 || from >= v {
			return nil, invalid(cosmoserr.ErrValidation, "Options.Upgrades", fmt.Sprintf("version %d is outside [1, %d)", from, v))
		}
	}
	if len(opts.PartitionKeyPaths) > 3 {
		return nil, invalid(cosmoserr.ErrInvalidPartitionKey, "Options.PartitionKeyPaths", "at most 3 levels")
	}
	for _, p := range opts.PartitionKeyPaths {
		if len(p) < 2 || p[0] != '/' || strings.HasSuffix(p, "/") {
			return nil, invalid(cosmoserr.ErrInvalidPartitionKey, "Options.PartitionKeyPaths", fmt.Sprintf("%q is not a path such as /customerId", p))
		}
	}
	switch {
	case opts.UnversionedAs < 0:
		return nil, invalid(cosmoserr.ErrValidation, "Options.UnversionedAs", "must not be negative (0 means unversioned documents are refused)")
	case opts.LargeItemThreshold < 0:
		return nil, invalid(cosmoserr.ErrValidation, "Options.LargeItemThreshold", "must not be negative (0 means the default, 1.5 MB)")
	case opts.UpdatePolicy.MaxAttempts < 0:
		return nil, invalid(cosmoserr.ErrValidation, "Options.UpdatePolicy.MaxAttempts", "must not be negative (0 means the default, 3)")
	case opts.UpdatePolicy.InitialBackoff < 0 || opts.UpdatePolicy.MaxBackoff < 0:
		return nil, invalid(cosmoserr.ErrValidation, "Options.UpdatePolicy", "backoffs must not be negative (0 means the default)")
	case len(opts.TokenSigningKey) > 0 && len(opts.TokenSigningKey) < tokenmac.MinKeyBytes:
		return nil, invalid(cosmoserr.ErrValidation, "Options.TokenSigningKey", fmt.Sprintf("is %d bytes, at least %d are needed", len(opts.TokenSigningKey), tokenmac.MinKeyBytes))
	}
	r := &Repository[T]{key: opts.Key}
	r.tokenKey = slices.Clone(opts.TokenSigningKey)
	r.identity = tokenmac.Identity(c)
	r.c = c
	r.typeName = opts.Type
	r.typeJSON = []byte(strconv.Quote(opts.Type))
	r.version = v
	r.versionStr = strconv.Itoa(v)
	r.stamp = []byte(`,"type":` + string(r.typeJSON) + `,"schemaVersion":` + r.versionStr + `}`)
	r.upgrades = opts.Upgrades
	r.unversion = opts.UnversionedAs
	r.untyped = opts.ReadUntyped
	r.writeBack = opts.WriteBackUpgrades
	r.pkLevels = len(opts.PartitionKeyPaths)
	r.pkPaths = slices.Clone(opts.PartitionKeyPaths)
	r.pkMax = partitionkey.MaxValueBytes
	if opts.LegacyPartitionKey {
		r.pkMax = partitionkey.MaxLegacyValueBytes
	}
	r.policy = opts.UpdatePolicy
	if r.policy.MaxAttempts == 0 {
		r.policy.MaxAttempts = DefaultUpdateAttempts
	}
	if r.policy.InitialBackoff == 0 {
		r.policy.InitialBackoff = 5 * time.Millisecond
	}
	if r.policy.MaxBackoff == 0 {
		r.policy.MaxBackoff = 100 * time.Millisecond
	}
	if r.policy.Retryable == nil {
		r.policy.Retryable = func(err error) bool { return errors.Is(err, cosmoserr.ErrPreconditionFailed) }
	}
	r.largeAt = opts.LargeItemThreshold
	if r.largeAt == 0 {
		r.largeAt = DefaultLargeItemThreshold
	}
	r.onLarge = opts.OnLargeItem
	r.log = opts.Logger
	if r.log == nil {
		r.log = slog.Default()
	}
	r.diag = opts.Diagnostics
	r.ctr = c.ID()
	xq, err := crosspartition.New(c, crosspartition.Options{Logger: r.log, TokenSigningKey: r.tokenKey})
	if err != nil {
		return nil, err
	}
	r.xq = xq
	eff := opts
	eff.SchemaVersion = v
	eff.PartitionKeyPaths = slices.Clone(opts.PartitionKeyPaths)
	eff.UpdatePolicy = r.policy
	eff.LargeItemThreshold = r.largeAt
	eff.Logger = r.log
	eff.Diagnostics = r.diag
	eff.TokenSigningKey = nil // a secret: never read back (nor printed with the options)
	r.opts = eff
	return r, nil
}

// Options returns the options in effect: those given, with the defaults filled in (SchemaVersion,
// UpdatePolicy, LargeItemThreshold, Logger, Diagnostics). Its PartitionKeyPaths is a copy; the
// Upgrades map is the one given (do not change it).
func (r *Repository[T]) Options() Options[T] {
	o := r.opts
	o.PartitionKeyPaths = slices.Clone(o.PartitionKeyPaths)
	return o
}

// Client is what NewFromClient needs of a client: a container handle, the diagnostics policy
// installed on the client (nil for none) and the logger it logs to. *cosmoskit.Client satisfies it; package repository does
// not import cosmoskit, so code that wraps a plain *azcosmos.ContainerClient with New never links
// the client factory and its credentials (azidentity, MSAL).
type Client interface {
	Container(db, id string) (*azcosmos.ContainerClient, error)
	Diagnostics() *diagnostics.Policy
	Logger() *slog.Logger
}

// NewFromClient returns a repository over container id of database db of a client such as a
// *cosmoskit.Client. Its pipeline carries cosmoskit's diagnostics and retry policies;
// Options.Diagnostics defaults to the client's Diagnostics(), so each repository call is one span,
// and Options.Logger to the client's Logger(). Errors are those of New and of the client's
// Container.
func NewFromClient[T any](client Client, db, container string, opts Options[T]) (*Repository[T], error) {
	c, err := client.Container(db, container)
	if err != nil {
		return nil, err
	}
	if opts.Diagnostics == nil {
		opts.Diagnostics = client.Diagnostics()
	}
	if opts.Logger == nil {
		opts.Logger = client.Logger()
	}
	r, err := New(c, opts)
	if err != nil {
		return nil, err
	}
	r.db = db
	return r, nil
}

// Type returns the repository's type discriminator.
func (r *Repository[T]) Type() string { return r.typeName }

// SchemaVersion returns the schema version written on every item.
func (r *Repository[T]) SchemaVersion() int { return r.version }

// Container returns the container the repository works on.
func (r *Repository[T]) Container() *azcosmos.ContainerClient { return r.c }

// Get reads the item with id in partition pk by a point read (never a query), upgrading an older
// schema version. It returns an error matching cosmoserr.ErrNotFound if there is none, cosmoserr.ErrTypeMismatch if
// the document has another type, cosmoserr.ErrUnknownSchemaVersion if it cannot be upgraded, and a
// *cosmoserr.ValidationError for an invalid id or key (nothing sent).
func (r *Repository[T]) Get(ctx context.Context, key PartitionKey, id string) (_ T, err error) {
	ctx, end := r.start(ctx, "repository.Get")
	defer func() { end(err) }()
	var zero T
	pk, err := r.checkPoint(key, id)
	if err != nil {
		return zero, err
	}
	resp, err := r.c.ReadItem(ctx, pk, id, nil)
	if err != nil {
		return zero, r.opError(cosmoserr.OpReadItem, id, err)
	}
	item, upgraded, err := decode[T](&r.core, resp.Value)
	if err != nil {
		return zero, err
	}
	if upgraded && r.writeBack {
		return r.writeBackUpgrade(ctx, pk, id, item, resp.ETag), nil
	}
	return item, nil
}

// writeBackUpgrade replaces the document with its upgraded form if nobody wrote it since it was
// read, and returns the item as stored then (with its new ETag), else item. It never fails the
// read.
func (r *Repository[T]) writeBackUpgrade(ctx context.Context, pk azcosmos.PartitionKey, id string, item T, etag azcore.ETag) T {
	body, err := r.encodeFor(ctx, item, id, pk)
	if err != nil {
		r.log.WarnContext(ctx, "cosmoskit: schema upgrade not written back", "type", r.typeName, "id", id, "error", err)
		return item
	}
	defer body.release()
	resp, err := r.c.ReplaceItem(ctx, pk, id, body.b, &azcosmos.ItemOptions{EnableContentResponseOnWrite: true, IfMatchEtag: &etag})
	if err != nil {
		if err := cosmoserr.FromError(cosmoserr.OpReplaceItem, err); !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
			r.log.WarnContext(ctx, "cosmoskit: schema upgrade not written back", "type", r.typeName, "id", id, "error", err)
		}
		return item
	}
	if stored, err := r.stored(item, resp.Value); err == nil {
		return stored
	}
	return item
}

// Exists reports whether an item of this type with id exists in partition pk, by a point read
// (the document is not decoded, so its schema version does not matter). A document of another
// type with that id is an error matching cosmoserr.ErrTypeMismatch.
func (r *Repository[T]) Exists(ctx context.Context, key PartitionKey, id string) (_ bool, err error) {
	ctx, end := r.start(ctx, "repository.Exists")
	defer func() { end(err) }()
	pk, err := r.checkPoint(key, id)
	if err != nil {
		return false, err
	}
	resp, err := r.c.ReadItem(ctx, pk, id, nil)
	if err != nil {
		err = r.opError(cosmoserr.OpReadItem, id, err)
		if errors.Is(err, cosmoserr.ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	h, _ := scanHeader(resp.Value, false)
	if !r.ownType(h) {
		return false, r.docError(cosmoserr.ErrTypeMismatch, h, "the document's type differs")
	}
	return true, nil
}

// WriteOption modifies one write.
type WriteOption func(*writeOptions)

type writeOptions struct {
	ifMatch       *azcore.ETag
	unconditional bool
}

// IfMatch makes a write (Upsert, Replace, Delete, Patch) conditional on the stored item's ETag:
// if it changed, the write fails with an error matching cosmoserr.ErrPreconditionFailed. An empty etag is
// ignored.
func IfMatch(etag azcore.ETag) WriteOption {
	return func(o *writeOptions) {
		if etag != "" {
			o.ifMatch = &etag
		}
	}
}

// Unconditional makes Upsert or Replace of an item that carries its ETag (an "_etag" property,
// e.g. through an embedded Meta) overwrite whatever is stored, as the last writer. Without it, such
// a write is conditional on that ETag (see Replace). It has no effect with IfMatch, which names
// the ETag to check itself.
func Unconditional() WriteOption {
	return func(o *writeOptions) { o.unconditional = true }
}

func applyWriteOptions(opts []WriteOption) writeOptions {
	var o writeOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// Create writes a new item and returns it as stored (with _etag and _ts, if T has fields for them,
// e.g. by embedding Meta). There is no upsert fallback: an existing id in the partition is an
// error matching cosmoserr.ErrConflict. A *cosmoserr.ValidationError means nothing was sent.
func (r *Repository[T]) Create(ctx context.Context, item T) (T, error) {
	return r.write(ctx, "repository.Create", cosmoserr.OpCreateItem, item, writeOptions{})
}

// Upsert creates or replaces an item and returns it as stored. With IfMatch, a changed item
// fails with cosmoserr.ErrPreconditionFailed. An item that carries the ETag it was read with is written
// only if the stored item still has it, as Replace (optimistic concurrency; Unconditional opts out).
func (r *Repository[T]) Upsert(ctx context.Context, item T, opts ...WriteOption) (T, error) {
	return r.write(ctx, "repository.Upsert", cosmoserr.OpUpsertItem, item, applyWriteOptions(opts))
}

// Replace replaces an existing item and returns it as stored: cosmoserr.ErrNotFound if it does not exist,
// cosmoserr.ErrPreconditionFailed if IfMatch is given and the item changed.
//
// Optimistic concurrency by default: when the item carries the ETag it was read with (a non-empty
// "_etag" property, which an embedded Meta fills on Get, Query and every write), the replace is
// conditional on it, so of two writers that read the same version only the first succeeds and the
// other gets cosmoserr.ErrPreconditionFailed (read again and retry, or use Update, which does). The
// Unconditional option opts out (the last writer wins); IfMatch names another ETag to check.
func (r *Repository[T]) Replace(ctx context.Context, item T, opts ...WriteOption) (T, error) {
	return r.write(ctx, "repository.Replace", cosmoserr.OpReplaceItem, item, applyWriteOptions(opts))
}

func (r *Repository[T]) write(ctx context.Context, name, op string, item T, o writeOptions) (_ T, err error) {
	ctx, end := r.start(ctx, name)
	defer func() { end(err) }()
	var zero T
	id, pk := r.key(item)
	if err := validateID(id); err != nil {
		return zero, err
	}
	// The item's own key is checked first (a refusal names its path), then the key it is written
	// with.
	body, err := r.encodeFor(ctx, item, id, pk)
	if err != nil {
		return zero, err
	}
	defer body.release()
	if _, err := r.checkPoint(pk, id); err != nil {
		return zero, err
	}
	ifMatch := o.ifMatch
	if ifMatch == nil && !o.unconditional && body.etag != "" && op != cosmoserr.OpCreateItem {
		ifMatch = &body.etag
	}
	io := azcosmos.ItemOptions{EnableContentResponseOnWrite: true, IfMatchEtag: ifMatch}
	var resp azcosmos.ItemResponse
	switch op {
	case cosmoserr.OpCreateItem:
		resp, err = r.c.CreateItem(ctx, pk, body.b, &io)
	case cosmoserr.OpUpsertItem:
		resp, err = r.c.UpsertItem(ctx, pk, body.b, &io)
	default:
		resp, err = r.c.ReplaceItem(ctx, pk, id, body.b, &io)
	}
	if err != nil {
		return zero, r.opError(op, id, err)
	}
	return r.stored(item, resp.Value)
}

// stored decodes a write response, or returns the item written when the response has no body.
func (r *Repository[T]) stored(item T, body []byte) (T, error) {
	if len(body) == 0 {
		return item, nil
	}
	out, _, err := decode[T](&r.core, body)
	return out, err
}

// Delete deletes the item with id in partition pk. It fails with cosmoserr.ErrNotFound if there is
// none, cosmoserr.ErrTypeMismatch (nothing deleted) if the document there has another type,
// cosmoserr.ErrPreconditionFailed if IfMatch is given and the item changed.
//
// The service has no conditional delete on a property, so without IfMatch Delete reads the item
// first (one point read, about 1 RU, never decoded, so any schema version is fine), checks its
// type and deletes it with If-Match on the ETag it read: a document changed in between is read
// again, within Options.UpdatePolicy's attempts (then cosmoserr.ErrTooManyAttempts). With IfMatch, the ETag
// (from Get or a write of this repository) already names a document of this type, and Delete
// sends the delete alone.
func (r *Repository[T]) Delete(ctx context.Context, key PartitionKey, id string, opts ...WriteOption) (err error) {
	ctx, end := r.start(ctx, "repository.Delete")
	defer func() { end(err) }()
	pk, err := r.checkPoint(key, id)
	if err != nil {
		return err
	}
	o := applyWriteOptions(opts)
	if o.ifMatch != nil {
		_, err := r.c.DeleteItem(ctx, pk, id, &azcosmos.ItemOptions{IfMatchEtag: o.ifMatch})
		return r.opError(cosmoserr.OpDeleteItem, id, err)
	}
	attempts := 0
	err = retry.Do(ctx, r.policy, func(ctx context.Context) error {
		attempts++
		resp, err := r.c.ReadItem(ctx, pk, id, nil)
		if err != nil {
			return r.opError(cosmoserr.OpReadItem, id, err)
		}
		if h, _ := scanHeader(resp.Value, false); !r.ownType(h) {
			return r.docError(cosmoserr.ErrTypeMismatch, h, "the document's type differs; not deleted")
		}
		etag := resp.ETag
		_, err = r.c.DeleteItem(ctx, pk, id, &azcosmos.ItemOptions{IfMatchEtag: &etag})
		return r.opError(cosmoserr.OpDeleteItem, id, err)
	})
	return loopError(err, attempts)
}

func typeRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == ':'
}
