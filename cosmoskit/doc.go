// Package cosmoskit is the one place a Go service gets its Azure Cosmos DB client.
//
// New returns a Client that shares one *azcosmos.Client per account and identity across the process
// (reference-counted; the last Close closes it), with credentials, regions and TLS checked up front:
//
//	client, err := cosmoskit.New(cosmoskit.ConfigFromEnv()) // COSMOS_ENDPOINT, COSMOS_KEY, ...
//	if err != nil { ... }
//	defer client.Close()
//	res, err := client.EnsureContainer(ctx, "shop", cosmoskit.ContainerSpec{
//		ID: "orders", PartitionKeyPaths: []string{"/customerId"},
//	})
//	if err != nil { ... }
//	orders := res.Container // res.Drift lists settings of an existing container that differ
//
// Every handle cosmoskit returns is a plain azcosmos type (*azcosmos.ContainerClient and so on), and
// NewFromClient wraps a client you already have, so code can adopt it one call site at a time.
// NewIndependent builds a client outside the process-wide registry, with the same policies and
// defaults, for the rare process that needs two differently configured clients of one account.
//
// Every client gets cosmoskit's policies (each can be turned off with its Disable field in Config): diagnostics (spans,
// metrics, logs, RU meters), retries (package retry: 429 budget, 404/1002 and 449 backoff,
// breakers, region routing, hedging) and the session container (package consistency:
// read-your-writes across regions, session-token hand-off between instances, per-request
// consistency relaxation).
//
// Safety rules New enforces: TLS verification is relaxed only for loopback endpoints (an emulator or
// cosmostest), or replaced by exactly the ServerCertificate you give; the public emulator key is
// refused for any other endpoint; keys never appear in errors, logs or a printed Config.
//
// EnsureDatabase and EnsureContainer provision with best-practice defaults: explicit partition key
// kind and version 2 (hierarchical keys up to three levels), composite indexes led by the /type
// discriminator, vector paths indexed by a vector index and excluded from the range index, TTL, unique
// keys and manual or autoscale throughput. Invalid specs are rejected before any request. An existing
// container that differs from its spec in what can change is not an error: ContainerResult.Drift says
// how (see DriftMode).
package cosmoskit
