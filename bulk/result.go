package bulk

import (
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// Result is the outcome of one operation.
type Result struct {
	// Index is the operation's position in the input, from 0.
	Index int
	// Kind, ID and PartitionKey name the operation (ID is the document's id for writes that
	// left Operation.ID empty).
	Kind         Kind
	ID           string
	PartitionKey partitionkey.Key
	// StatusCode is the service's status for the operation (201 created, 200, 204 deleted, 404,
	// 409, 412, 429 after the last attempt, ...); 0 when it was never answered (refused before
	// sending, or not sent because the job was cancelled).
	StatusCode int
	// SubStatus is the operation's sub-status, 0 if none.
	SubStatus int
	// RequestCharge is the request units the operation consumed over all its attempts.
	RequestCharge float64
	// ETag is the document's ETag after a successful write or read.
	ETag azcore.ETag
	// Body is the document of a Read (and of writes with Options.ContentResponseOnWrite).
	Body []byte
	// Attempts is how many times the operation was sent (0 when it never was).
	Attempts int
	// Err is nil on success; otherwise a *cosmoserr.Error for an answer of the service (match
	// it with errors.Is and cosmoserr.ErrConflict, ErrNotFound, ErrThrottled, ...), a
	// *cosmoserr.ValidationError for an operation refused before sending, or the context's
	// error for an operation not sent because the job was cancelled.
	Err error
}

// Progress is a job's progress, as Options.OnProgress receives it.
type Progress struct {
	// Done operations have their result: Succeeded plus Failed.
	Done, Succeeded, Failed int64
	// Pending operations were read from the input and have no result yet.
	Pending int
	// RequestCharge is the request units consumed so far; RUPerSecond over the last interval.
	RequestCharge, RUPerSecond float64
	// Requests sent so far, and how many of them were throttled (answered 429 as a whole or for
	// some of their operations); ThrottleRate is that fraction over the last interval.
	Requests, ThrottledRequests int64
	ThrottleRate                float64
	// Elapsed is the time since the job started; ETA the estimated time left (0 when
	// Options.Total is unknown or nothing is done yet): the operations left divided by the rate
	// of the last 10 s, or, during the first 10 s of a job whose partitions are paced (the
	// container's offer read, or a throughput group's target), by the rate that pacing allows at
	// the average charge of an operation so far.
	Elapsed, ETA time.Duration
}
