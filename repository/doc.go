// Package repository gives a Go service typed access to Azure Cosmos DB documents, with the
// modeling rules built in. The rules: point reads by id and partition key, ETag concurrency, a
// "type" discriminator, schema versions with upgrades on read, parameterized queries and
// continuation-token paging, and validation before any request.
//
//	orders, err := repository.New(container, repository.Options[Order]{
//		Type: "order",
//		Key:  func(o Order) (string, azcosmos.PartitionKey) { return o.ID, azcosmos.NewPartitionKeyString(o.CustomerID) },
//	})
//	o, err := orders.Get(ctx, azcosmos.NewPartitionKeyString("c1"), "o1")
//
// A Repository works over a plain *azcosmos.ContainerClient (or one from a cosmoskit.Client, with
// NewFromClient) and the user's own structs; embedding Meta is optional and only adds the ETag and
// timestamp the service stores.
//
// Writes stamp "type" and "schemaVersion" into the JSON of the item (T needs no fields for them).
// Reads refuse documents of another type (cosmoserr.ErrTypeMismatch; documents without a "type",
// written before adoption, too unless Options.ReadUntyped) and of a version newer than
// the code (cosmoserr.ErrUnknownSchemaVersion); older versions run through Options.Upgrades, in Get, Page and All as
// in the projections of PageOf and AllOf. Delete refuses a document of another type too (it reads
// the item first unless given IfMatch). Several repositories may
// share a container; Mixed reads a partition of it decoding each document to its Go type, and Tx
// changes items of one or several of them in one partition atomically.
//
// Queries are a template plus parameters (SQL) or built from filters (NewQuery), and run in one
// partition unless CrossPartition is called, which is logged. Page returns a URL-safe token for
// the next page; All and AllOf are iterators over every result.
//
// Errors from the service are *cosmoserr.Error values ([cosmoserr.Error]), wrapped in *OpError, which adds
// the repository type and the item id to the message so that each part is printed once: use
// errors.Is with cosmoserr.ErrNotFound, cosmoserr.ErrConflict, cosmoserr.ErrPreconditionFailed, ...
// and errors.As to reach *cosmoserr.Error or the SDK's *azcore.ResponseError. Rejections before
// any request are *cosmoserr.ValidationError, matching cosmoserr.ErrValidation and the rule's own sentinel.
//
// With a client from cosmoskit.New (NewFromClient, or Options.Diagnostics), every repository call
// is one OpenTelemetry span, "repository.Update <container>", parent of the spans of the SDK calls
// it made, with their total request charge.
//
// Session tokens and consistency (package consistency) travel in the context, like every
// per-request choice: consistency.Capture records the session token of every read and write a
// context's calls produce or see (Session.Token, to hand to another instance), and
// consistency.WithSessionToken and consistency.WithLevel send a token or relax the level of the
// reads. They are applied by consistency.Policy in the client's pipeline, the one home for them,
// so they work the same for Repository, Mixed, Tx, vector and changefeed: cosmoskit.New installs
// it; a plain azcosmos client needs it in ClientOptions.PerCallPolicies, or the context options do
// nothing.
//
// Queries and Count: a query scoped to a partition key (Query.Partition) is one request to the
// gateway through the SDK's pager. A Query.CrossPartition query runs through package
// crosspartition (the service's query plan, the physical partitions' pages merged on the client),
// so ORDER BY, TOP, DISTINCT, GROUP BY and aggregates work across partitions, and Count sums the
// counts of the physical partitions. Count needs a partition key or CrossPartition (otherwise
// cosmoserr.ErrInvalidQuery before sending); a query the engine cannot answer exactly is cosmoserr.ErrInvalidQuery too
// (it also matches cosmoserr.ErrUnsupported), never a partial answer.
//
// Partition keys: writes check the partition key against the item's own JSON at
// Options.PartitionKeyPaths, as typed values the repository reads itself. A caller's key is a
// PartitionKey: a partitionkey.Key (partitionkey.Of or a partitionkey builder), whose component
// count and lengths are checked before sending, or an azcosmos.PartitionKey, which has no
// exported accessor: its components are read by reflection (no unsafe) and checked the same way.
// Page tokens are bound to the account endpoint and database id, which the SDK's ContainerClient
// also keeps unexported and internal/tokenmac reads by reflection. Both layouts are those of
// azcosmos v1.5.0; what degrades when an upgrade changes them, and how it is reported, is in the
// repository's docs/versioning.md.
package repository
