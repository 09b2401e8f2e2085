package wire

import "encoding/json"

// The batch body (transactional and bulk), as the Java SDK's BatchRequestResponseConstants and
// ItemBulkOperation write it and its BatchResponseParser reads the answer, in gateway mode (JSON).
// A bulk request is a non-atomic batch (HeaderBatchAtomic "false", HeaderBatchContinueOnError
// "true") addressed to one physical partition by HeaderPKRangeID, each operation carrying its own
// partition key as JSON text in a string.

// Batch operation types (the operationType field).
const (
	BatchCreate  = "Create"
	BatchUpsert  = "Upsert"
	BatchReplace = "Replace"
	BatchDelete  = "Delete"
	BatchRead    = "Read"
	BatchPatch   = "Patch"
)

// Batch limits.
const (
	// MaxBatchOperations is the service's limit on operations in one batch request, atomic or not
	// (more is a 400).
	MaxBatchOperations = 100
	// MaxRequestBodyBytes is the service's limit on a request body: an item, or a whole batch
	// (more is a 413).
	MaxRequestBodyBytes = 2 << 20
	// BulkTargetBodyBytes is how much operation JSON the Java and .NET bulk executors pack into
	// one request (MAX_DIRECT_MODE_BATCH_REQUEST_BODY_SIZE_IN_BYTES, 220201): a bulk request
	// closes at this size or at MaxBatchOperations, whichever comes first; a single operation
	// larger than this travels alone.
	BulkTargetBodyBytes = 220201
)

// BatchOperation is one element of a batch request body. PartitionKey is the key's JSON array
// as a string (`"[\"tenant-1\"]"`), sent on bulk operations only.
type BatchOperation struct {
	OperationType           string          `json:"operationType"`
	ID                      string          `json:"id,omitempty"`
	PartitionKey            string          `json:"partitionKey,omitempty"`
	IfMatch                 string          `json:"ifMatch,omitempty"`
	IfNoneMatch             string          `json:"ifNoneMatch,omitempty"`
	ResourceBody            json.RawMessage `json:"resourceBody,omitempty"`
	MinimalReturnPreference bool            `json:"minimalReturnPreference,omitempty"`
	// Per-operation options the Java SDK may send; cosmostest refuses them (not supported).
	TimeToLiveInSeconds *int   `json:"timeToLiveInSeconds,omitempty"`
	IndexingDirective   string `json:"indexingDirective,omitempty"`
}

// BatchResult is one element of a batch response body: the operation's status, sub-status,
// charge, ETag and body, and for a throttled (429) operation the wait the service asks for.
type BatchResult struct {
	StatusCode             int             `json:"statusCode"`
	SubStatusCode          int             `json:"subStatusCode,omitempty"`
	RequestCharge          float64         `json:"requestCharge"`
	ETag                   string          `json:"eTag,omitempty"`
	ResourceBody           json.RawMessage `json:"resourceBody,omitempty"`
	RetryAfterMilliseconds int64           `json:"retryAfterMilliseconds,omitempty"`
}
