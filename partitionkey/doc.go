// Package partitionkey builds partition keys the way the Cosmos DB partitioning rules ask, checked
// before any request, without hand-written string code.
//
//	def, err := partitionkey.ReadDefinition(ctx, container) // once: /tenantId, /userId
//	pk, err := def.Key("contoso", userID)                   // levels, types and lengths checked; pk.SDK() for azcosmos
//	key, err := partitionkey.Synthetic{Bucket: partitionkey.Month}.At(now, tenantID) // "contoso|2026-12"
//
// The builders:
//
//   - [Synthetic] joins fields into one key value with a documented separator ("|"), optionally
//     followed by a UTC time bucket ("contoso|2026-12"), refusing fields that contain the separator
//     (two different field lists would otherwise give the same key) and values longer than the
//     service allows.
//   - [Sharded] spreads a write-hot key over n suffixes ("key-0" .. "key-(n-1)"), the suffix chosen
//     by a stable hash of the item id, so a point read finds its shard without a query; [FanOut]
//     runs a read or query once per suffix and merges the results.
//   - [Definition] is a container's partition key definition (read with [ReadDefinition]); its Key
//     and Prefix methods build a [Key] after checking the number of levels and each value's type
//     and length against the definition, before any request is sent.
//   - [Key] is the one checked partition key type of cosmoskit, made by [Of] and by every builder
//     here; packages repository, vector and changefeed take it, and [Key.SDK] gives the
//     azcosmos.PartitionKey for a plain SDK call. The package imports only cosmoserr and internal
//     packages of cosmoskit, so anything can use the key without linking repository or
//     OpenTelemetry.
//
// Refused input is a *cosmoserr.ValidationError matching cosmoserr.ErrInvalidPartitionKey (and
// cosmoserr.ErrValidation) that names the field and never echoes the value.
//
// Everything here takes a plain *azcosmos.ContainerClient; values are immutable once built and
// safe to share between goroutines.
package partitionkey
