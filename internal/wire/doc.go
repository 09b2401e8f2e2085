// Package wire is the one home of the Cosmos DB gateway protocol facts that more than one cosmoskit
// package needs: header names, the parsers of the response headers (retry hint, request charge,
// sub-status) and of the service's error body, the status and sub-status rules that name an
// outcome, the account metadata (GET /) and the canonical form of region names, and the naming of
// the operation an HTTP request performs. Everything here is a pure function of its input: no
// state, no logging, no OpenTelemetry.
package wire
