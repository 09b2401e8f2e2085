// Package retry holds cosmoskit's resilience layer for Azure Cosmos DB: an application-level
// retry helper ([Do]) for work that must be repeated as a whole, such as an ETag
// read-modify-write loop, and the azcore pipeline policy ([NewPipelinePolicy]) that gives the azcosmos
// client what the .NET, Java and Python SDKs have and the Go SDK lacks: 429 retries that follow
// the server's x-ms-retry-after-ms within a count and a time budget, circuit breakers per region
// endpoint and partition key range, excluded regions (per client, changeable at runtime, and per
// request), and opt-in cross-region read hedging.
//
// The package imports diagnostics and none of cosmoskit's other packages; package cosmoskit
// installs the policy for you.
package retry
