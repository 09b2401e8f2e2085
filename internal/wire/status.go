package wire

import "net/http"

// Sub-status codes the client acts on (rest_protocol §12).
const (
	// SubStatusReadSessionNotAvailable (404/1002): the replica has not caught up with the session
	// token yet; the SDK retries in the write region. Not a missing resource.
	SubStatusReadSessionNotAvailable = 1002
	// SubStatusWriteForbidden (403/3): the region no longer accepts writes; the SDK refreshes the
	// account and fails over.
	SubStatusWriteForbidden = 3
	// SubStatusDatabaseAccountNotFound (403/1008): the regional account is gone (region removed).
	SubStatusDatabaseAccountNotFound = 1008
	// SubStatusPartitionKeyMismatch (400/1001): the partition key properties of the item differ
	// from the partition key the request was sent with.
	SubStatusPartitionKeyMismatch = 1001
)

// StatusRetryWith (449 RetryWith) asks the client to retry the request: a write conflicted with a
// concurrent operation on the same resource and was not applied. Nothing in azcosmos retries it;
// package retry does, with backoff (the .NET and Java SDKs' GoneAndRetryWithRetryPolicy).
const StatusRetryWith = 449

// Kind names what a status and sub-status mean to a caller. Package cosmoserr maps each Kind to
// its sentinel error; every cosmoskit package (point operations, queries, batches and each batch
// operation's result) classifies statuses with [KindOf], so they agree.
type Kind int

// Kinds.
const (
	KindNone                Kind = iota // success, or a status callers do not test by name
	KindBadRequest                      // 400
	KindUnauthorized                    // 401
	KindNotFound                        // 404, except 404/1002
	KindConflict                        // 409
	KindPreconditionFailed              // 412
	KindThrottled                       // 429
	KindUnavailable                     // 503
	KindSessionNotAvailable             // 404/1002
)

// KindOf classifies a status and sub-status.
func KindOf(status, subStatus int) Kind {
	switch status {
	case http.StatusBadRequest:
		return KindBadRequest
	case http.StatusUnauthorized:
		return KindUnauthorized
	case http.StatusNotFound:
		if subStatus == SubStatusReadSessionNotAvailable {
			return KindSessionNotAvailable
		}
		return KindNotFound
	case http.StatusConflict:
		return KindConflict
	case http.StatusPreconditionFailed:
		return KindPreconditionFailed
	case http.StatusTooManyRequests:
		return KindThrottled
	case http.StatusServiceUnavailable:
		return KindUnavailable
	}
	return KindNone
}

// SDKRetries reports the statuses the azcosmos retry policy handles with an endpoint choice of
// its own: 404/1002 (retried in the write region) and 403/3 and 403/1008 (account refresh and
// failover).
func SDKRetries(status, subStatus int) bool {
	return (status == http.StatusNotFound && subStatus == SubStatusReadSessionNotAvailable) ||
		(status == http.StatusForbidden && (subStatus == SubStatusWriteForbidden || subStatus == SubStatusDatabaseAccountNotFound))
}
