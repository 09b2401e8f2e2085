package diagnostics

import (
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// Attribute keys: the OpenTelemetry database semantic conventions for Cosmos DB, plus
// azure.cosmosdb.activity_id (the .NET SDK's key; not in the conventions) and a few cosmoskit.*
// keys for what the conventions do not cover.
const (
	keySystemName       = string(semconv.DBSystemNameKey)
	valSystemName       = "azure.cosmosdb"
	keyNamespace        = string(semconv.DBNamespaceKey)
	keyCollection       = string(semconv.DBCollectionNameKey)
	keyOperation        = string(semconv.DBOperationNameKey)
	keyStatusCode       = string(semconv.DBResponseStatusCodeKey)
	keySubStatus        = string(semconv.AzureCosmosDBResponseSubStatusCodeKey)
	keyRequestCharge    = string(semconv.AzureCosmosDBOperationRequestChargeKey)
	keyConsistency      = string(semconv.AzureCosmosDBConsistencyLevelKey)
	keyConnMode         = string(semconv.AzureCosmosDBConnectionModeKey)
	keyQueryText        = string(semconv.DBQueryTextKey)
	keyContactedRegions = string(semconv.AzureCosmosDBOperationContactedRegionsKey)
	keyReturnedRows     = string(semconv.DBResponseReturnedRowsKey)
	keyServerAddress    = string(semconv.ServerAddressKey)
	keyServerPort       = string(semconv.ServerPortKey)
	keyErrorType        = string(semconv.ErrorTypeKey)
	keyActivityID       = "azure.cosmosdb.activity_id"
	keyAttempts         = "cosmoskit.attempts"
	keyPKRangeID        = "cosmoskit.partition_key_range_id"
	keyThrottles        = "cosmoskit.throttles"
	keyBreakerState     = "cosmoskit.circuit_breaker.state"
	keyBreakerFrom      = "cosmoskit.circuit_breaker.previous_state"
)

// Metric instrument names.
const (
	// MetricOperationDuration is the operation duration histogram, in seconds.
	MetricOperationDuration = "db.client.operation.duration"
	// MetricRequestCharge is the request charge histogram, in request units (a float histogram:
	// the conventions' int histogram would round 1.23 RU down to 1).
	MetricRequestCharge = "azure.cosmosdb.client.operation.request_charge"
	// MetricThrottles counts attempts answered with 429, retried or not.
	MetricThrottles = "cosmoskit.client.throttled_requests"
	// MetricThrottleWait sums the seconds waited before retrying throttled attempts, as reported
	// by the retry layer (package retry's PipelinePolicy).
	MetricThrottleWait = "cosmoskit.client.throttle_wait"
	// MetricRetries counts HTTP attempts beyond the first of each operation.
	MetricRetries = "cosmoskit.client.retries"
	// MetricCircuitBreakerStateChanges counts circuit breaker state changes.
	MetricCircuitBreakerStateChanges = "cosmoskit.client.circuit_breaker.state_changes"
	// MetricSDKLayoutMismatches counts, at client construction (cosmoskit.New, NewIndependent), each
	// unexported azcosmos layout cosmoskit reads (an azcosmos.PartitionKey's components, a
	// ContainerClient's account and database) that the linked azcosmos does not have: an
	// unsupported azcosmos version. Attributes: cosmoskit.sdk_layout (partition_key,
	// container_identity) and cosmoskit.azcosmos_version. Recorded on Diagnostics.MeterProvider;
	// alert on any value above zero (docs/versioning.md says what degrades).
	MetricSDKLayoutMismatches = "cosmoskit.client.sdk_layout_mismatches"
)

// instrumentationName is the tracer and meter scope name.
const instrumentationName = "github.com/cosmoskit/cosmoskit-go/diagnostics"
