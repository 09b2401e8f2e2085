// Package integration runs one end-to-end scenario through the real azcosmos client: database and
// container provisioning, item CRUD with ETags, patch, queries within and across partitions,
// transactional batches, feed ranges and ReadManyItems across physical partitions. It runs three ways:
//
//   - in process, against cosmostest.NewServer (always; no Docker needed);
//   - against the cosmostest image (cosmoskit/cosmostest:dev, or COSMOSTEST_IMAGE), built from this
//     checkout by scripts/build-image.sh when it is missing or older than the sources
//     (COSMOSKIT_REBUILD_IMAGE=1 always rebuilds, =0 never does), through the Testcontainers Cosmos DB
//     module exactly as code written for the vNext emulator runs it: once with the module's
//     host-pinning ContainerPolicy, once with a plain client and GATEWAY_PUBLIC_ENDPOINT;
//   - against the official vNext emulator image (COSMOSKIT_EMULATOR_IMAGE, default
//     mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator:vnext-preview), the same two ways, only
//     if that image is already present locally: these tests never pull.
//
// Docker tests skip with a one-line reason when no Docker engine answers. Ryuk (the Testcontainers
// reaper) is disabled unless TESTCONTAINERS_RYUK_DISABLED is set; every container is terminated by the
// test that started it. A step the server declares unsupported (501, or an error naming cosmostest and
// the missing feature) is skipped with the server's message.
package integration
