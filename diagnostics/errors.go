package diagnostics

import "github.com/cosmoskit/cosmoskit-go/cosmoserr"

// Error is cosmoserr.Error, the typed error every cosmoskit package returns for a failed Cosmos DB
// call (the same type: errors.As works with either name).
type Error = cosmoserr.Error

// Sentinel errors: the cosmoserr values themselves, so errors.Is works whichever package name the
// caller uses.
var (
	ErrBadRequest         = cosmoserr.ErrBadRequest         // 400
	ErrUnauthorized       = cosmoserr.ErrUnauthorized       // 401: wrong key or token
	ErrNotFound           = cosmoserr.ErrNotFound           // 404 (not 404/1002)
	ErrConflict           = cosmoserr.ErrConflict           // 409
	ErrPreconditionFailed = cosmoserr.ErrPreconditionFailed // 412
	ErrThrottled          = cosmoserr.ErrThrottled          // 429 after every retry
	ErrUnavailable        = cosmoserr.ErrUnavailable        // 503
	// ErrSessionNotAvailable: 404/1002, the session token was ahead of the regions reached.
	ErrSessionNotAvailable = cosmoserr.ErrSessionNotAvailable
)

// FromError is cosmoserr.FromError: err as an *Error for operation op.
func FromError(op string, err error) error { return cosmoserr.FromError(op, err) }

// IsRetryable is cosmoserr.IsRetryable.
func IsRetryable(err error) bool { return cosmoserr.IsRetryable(err) }

// IsTimeout is cosmoserr.IsTimeout.
func IsTimeout(err error) bool { return cosmoserr.IsTimeout(err) }

// Operation names (the values of Error.Operation and of the db.operation.name attribute); the
// cosmoserr constants.
const (
	OpReadAccount            = cosmoserr.OpReadAccount
	OpCreateDatabase         = cosmoserr.OpCreateDatabase
	OpQueryDatabases         = cosmoserr.OpQueryDatabases
	OpReadDatabase           = cosmoserr.OpReadDatabase
	OpDeleteDatabase         = cosmoserr.OpDeleteDatabase
	OpCreateContainer        = cosmoserr.OpCreateContainer
	OpQueryContainers        = cosmoserr.OpQueryContainers
	OpReadContainer          = cosmoserr.OpReadContainer
	OpReplaceContainer       = cosmoserr.OpReplaceContainer
	OpDeleteContainer        = cosmoserr.OpDeleteContainer
	OpReadPartitionKeyRanges = cosmoserr.OpReadPartitionKeyRanges
	OpCreateItem             = cosmoserr.OpCreateItem
	OpUpsertItem             = cosmoserr.OpUpsertItem
	OpReadItem               = cosmoserr.OpReadItem
	OpReplaceItem            = cosmoserr.OpReplaceItem
	OpPatchItem              = cosmoserr.OpPatchItem
	OpDeleteItem             = cosmoserr.OpDeleteItem
	OpQueryItems             = cosmoserr.OpQueryItems
	OpQueryPlan              = cosmoserr.OpQueryPlan
	OpExecuteBatch           = cosmoserr.OpExecuteBatch
	OpReadChangeFeed         = cosmoserr.OpReadChangeFeed
	OpReadAllItems           = cosmoserr.OpReadAllItems
	OpQueryOffers            = cosmoserr.OpQueryOffers
	OpReadThroughput         = cosmoserr.OpReadThroughput
	OpReplaceThroughput      = cosmoserr.OpReplaceThroughput
	OpOther                  = cosmoserr.OpOther
)
