package repository

import (
	"context"
	"log/slog"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// KeyFunc returns an item's id and its partition key: one value, or two or three for a
// hierarchical key, broadest first (azcosmos.NewPartitionKeyString(tenant).AppendString(user), or
// partitionkey.Of(tenant, user).SDK()). It is the only place the repository learns where an item
// lives, so no struct tags are involved. Whichever key type it returns, the repository checks it
// before sending (number of components, string lengths) and, with Options.PartitionKeyPaths, that
// the item's own key properties are this key, naming the path that differs
// (cosmoserr.ErrInvalidPartitionKey).
type KeyFunc[T any] func(item T) (id string, pk azcosmos.PartitionKey)

// UpgradeFunc turns a stored document of one schema version into the next version, in place. The
// document is the decoded JSON (numbers are json.Number, so large values stay exact); the
// repository sets "schemaVersion" itself.
type UpgradeFunc func(doc map[string]any) error

// LargeItem describes a write whose serialized size passed Options.LargeItemThreshold.
type LargeItem struct {
	Type string
	ID   string
	// Size is the serialized size in bytes, type and schemaVersion included.
	Size int
}

// Limits enforced before any request (the service's, from the Cosmos DB documentation).
const (
	// MaxIDBytes is the longest id, in bytes.
	MaxIDBytes = wire.MaxIDBytes
	// MaxItemBytes is the largest serialized item (2 MB).
	MaxItemBytes = 2 * 1024 * 1024
	// DefaultLargeItemThreshold is the size from which Options.OnLargeItem is called.
	DefaultLargeItemThreshold = 1_500_000
	// MaxPatchOperations is the most operations one patch may carry.
	MaxPatchOperations = 10
	// DefaultUpdateAttempts is the number of read-modify-replace rounds Update makes by default.
	DefaultUpdateAttempts = 3
)

// Options configures a Repository. Type and Key are required; every other zero value is the
// documented default.
type Options[T any] struct {
	// Every field's zero value is its documented default, except Type and Key; negative numbers are
	// refused by New (never turned into defaults). Repository.Options reads them back.

	// Type is the discriminator written as "type" on every item and required on every item read
	// ("order", "customer"): letters, digits and _ - . : only. Required.
	Type string

	// Key returns an item's id and partition key. Required.
	Key KeyFunc[T]

	// PartitionKeyPaths are the container's partition key paths, broadest first ("/tenantId",
	// "/userId"). When set, a partition key passed to point operations needs exactly that many components and
	// one passed to a query at most that many (a hierarchical prefix), and every write checks, in
	// the encoded item, that its values at these paths exist and fit the length limit (an error
	// matching cosmoserr.ErrInvalidPartitionKey naming the path, nothing sent) and, for a batch started with
	// a partitionkey.Key or an Update, that they are that key (the item may not move). A KeyFunc
	// key that differs from them is refused the same way before sending (an azcosmos.PartitionKey
	// is read as described at PartitionKey).
	// Default: not checked (the service rejects a mismatch with 400).
	PartitionKeyPaths []string

	// LegacyPartitionKey says the container's partition key definition is version 1, whose values
	// are limited to 101 bytes. Default: version 2, 2,048 bytes.
	LegacyPartitionKey bool

	// SchemaVersion is the version of T, written as "schemaVersion" on every item. Documents with
	// a lower version are upgraded on read by Upgrades; a higher version is
	// cosmoserr.ErrUnknownSchemaVersion. If 0, 1 is used.
	SchemaVersion int

	// Upgrades maps a version v to the function that turns a v document into v+1. Reading a
	// version-v document runs Upgrades[v], Upgrades[v+1], ... up to SchemaVersion; a missing step
	// is cosmoserr.ErrUnknownSchemaVersion.
	Upgrades map[int]UpgradeFunc

	// UnversionedAs is the version assumed for documents of this type without "schemaVersion"
	// (written before the repository was adopted). Default (0): such documents are
	// cosmoserr.ErrUnknownSchemaVersion.
	UnversionedAs int

	// ReadUntyped reads documents that have no "type" property, such as those a service wrote
	// before it adopted the repository, as this repository's type: point reads (Get, Exists,
	// ReadMany, Update, Delete), queries built with NewQuery (their filter becomes
	// (c.type = @type OR NOT IS_DEFINED(c.type))) and Migrate, which rewrites each of them
	// stamped with "type" and "schemaVersion" (as every write does), after which the option can
	// be dropped. Pair it with UnversionedAs: such documents usually have no "schemaVersion"
	// either. A document whose "type" is present but another (null included) is still
	// cosmoserr.ErrTypeMismatch; SQL templates filter as they are written (add
	// OR NOT IS_DEFINED(c.type) there), Patch's guard and Mixed still need the "type".
	//
	// Default: false, strict: an untyped document is cosmoserr.ErrTypeMismatch (with Found "")
	// and queries and Migrate skip it. A repository cannot tell whose an untyped document is in a
	// container several types share, and reading another entity's document as T would not fail
	// but decode it wrongly, and Update or Migrate would then stamp it as T for good; so only the
	// one repository whose type the container's untyped documents all are should set it.
	ReadUntyped bool

	// WriteBackUpgrades makes Get write an upgraded document back, with If-Match on the ETag it
	// read, so a concurrent writer wins and the write-back is dropped. Failures of the write-back
	// are logged, never returned. Default: off (documents are upgraded on every read until
	// rewritten or migrated with Migrate).
	WriteBackUpgrades bool

	// UpdatePolicy bounds Update's read-modify-replace rounds on 412. Only 412 is retried here;
	// throttling and transient failures are retried per request by the pipeline. Defaults: if
	// MaxAttempts is 0, DefaultUpdateAttempts (3); if InitialBackoff is 0, 5 ms; if MaxBackoff is
	// 0, 100 ms; if Retryable is nil, 412 (cosmoserr.ErrPreconditionFailed) only.
	UpdatePolicy retry.Backoff

	// LargeItemThreshold is the serialized size from which OnLargeItem is called. Default (0):
	// DefaultLargeItemThreshold (1.5 MB).
	LargeItemThreshold int

	// OnLargeItem is called before a write whose serialized size is at least LargeItemThreshold
	// (and at most MaxItemBytes; larger items are rejected), with the context of the call that
	// writes it (for a batch, Execute's). Default (nil): a warning is logged to Logger.
	OnLargeItem func(ctx context.Context, item LargeItem)

	// Diagnostics is the diagnostics policy of the client the container comes from
	// (cosmoskit.Client.Diagnostics()). With it, every repository call (Get, Update's read and
	// replace rounds, a Page reading through empty pages, Migrate, a batch...) is one internal span
	// "repository.<Method> <container>" with the cosmoskit.repository.type attribute, the
	// request charge and number of calls it made, and the SDK calls' own spans as children.
	// Default (nil): NewFromClient's client's; with New none (however the handle was made), and
	// then a span is started only when ctx already carries a span, with that span's provider;
	// otherwise nothing is traced and nothing is allocated.
	Diagnostics *diagnostics.Policy

	// TokenSigningKey keys the MAC of page tokens (HMAC-SHA256) and of the cross-partition
	// tokens inside them: a secret of at least 32 bytes, the same on every instance of a service
	// so that a token returned by one instance works on another (behind a load balancer). With it,
	// a token cannot be forged or altered by anyone without the key. Default nil: tokens are still
	// bound to the account, database, container, query, parameter values and partition key and
	// cover every byte (a truncated, altered or misplaced token is cosmoserr.ErrInvalidToken,
	// nothing sent), but the MAC key is public, so an end user can craft a token whose positions
	// the service then reads; such a token's work stays bounded by the container's physical
	// partitions, and a cross-partition one costs no more than a legitimate resume of the same
	// query and page size (package crosspartition), or is refused.
	TokenSigningKey []byte

	// Logger receives the start of each cross-partition query and each cross-partition page
	// (Debug), large items (Warn) and failed write-backs (Warn). Default (nil): NewFromClient's
	// client's Logger(); with New slog.Default() (however the handle was made).
	Logger *slog.Logger
}
