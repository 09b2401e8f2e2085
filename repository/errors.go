package repository

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Error is cosmoserr.Error, the error of a failed Cosmos DB call (an *OpError wraps it).
type Error = cosmoserr.Error

// Sentinels shared with every cosmoskit package: these are the cosmoserr values (re-exported by
// cosmoskit and diagnostics too), so errors.Is works whichever package the caller imports.
var (
	// ErrNotFound: the item does not exist (404).
	ErrNotFound = cosmoserr.ErrNotFound
	// ErrConflict: Create found an item with the same id in the partition (409).
	ErrConflict = cosmoserr.ErrConflict
	// ErrPreconditionFailed: an If-Match ETag or a patch condition did not match (412).
	ErrPreconditionFailed = cosmoserr.ErrPreconditionFailed
	// ErrThrottled: the request rate was too large after every retry (429).
	ErrThrottled = cosmoserr.ErrThrottled
	// ErrBadRequest: the service rejected the request (400).
	ErrBadRequest = cosmoserr.ErrBadRequest
	// ErrUnauthorized: wrong key or token (401).
	ErrUnauthorized = cosmoserr.ErrUnauthorized
	// ErrUnavailable: the service was unavailable (503).
	ErrUnavailable = cosmoserr.ErrUnavailable
	// ErrSessionNotAvailable: the session token a read carried was ahead of every region the
	// read reached, after the retries (404/1002). Retryable.
	ErrSessionNotAvailable = cosmoserr.ErrSessionNotAvailable
	// ErrCircuitOpen is cosmoserr.ErrCircuitOpen.
	//
	// Deprecated: the breakers never refuse every region, so nothing returns it.
	ErrCircuitOpen = cosmoserr.ErrCircuitOpen //nolint:staticcheck // kept for compatibility
)

// Errors of the repository itself. ErrTypeMismatch and ErrUnknownSchemaVersion describe a document
// that was read (or an item about to be written), ErrTooManyAttempts a lost ETag race; the others
// are rejections before any request.
var (
	// ErrTypeMismatch: a document read has a "type" other than the repository's (or none).
	ErrTypeMismatch = cosmoserr.ErrTypeMismatch
	// ErrUnknownSchemaVersion: a document's "schemaVersion" is newer than the code knows, missing,
	// or has no registered upgrade path to the current version.
	ErrUnknownSchemaVersion = cosmoserr.ErrUnknownSchemaVersion
	// ErrValidation matches every *ValidationError: nothing was sent.
	ErrValidation = cosmoserr.ErrValidation
	// ErrInvalidID: an id that is empty, longer than 1,023 bytes or contains / \ ? #.
	ErrInvalidID = cosmoserr.ErrInvalidID
	// ErrInvalidPartitionKey: a partition key with the wrong number of components or a value
	// longer than the container allows.
	ErrInvalidPartitionKey = cosmoserr.ErrInvalidPartitionKey
	// ErrItemTooLarge: the serialized item exceeds 2 MB.
	ErrItemTooLarge = cosmoserr.ErrItemTooLarge
	// ErrNestingTooDeep: the item nests objects and arrays more than 128 levels deep.
	ErrNestingTooDeep = cosmoserr.ErrNestingTooDeep
	// ErrUnsafeInteger: an integer beyond ±2^53, which Cosmos DB would silently round; encode it
	// as a string (`json:",string"`).
	ErrUnsafeInteger = cosmoserr.ErrUnsafeInteger
	// ErrInvalidQuery: a query template with a literal value, OFFSET, an unsafe field name, or
	// without a partition key and without CrossPartition.
	ErrInvalidQuery = cosmoserr.ErrInvalidQuery
	// ErrInvalidPatch: more than 10 patch operations, or one on id, type, schemaVersion or a
	// system property.
	ErrInvalidPatch = cosmoserr.ErrInvalidPatch
	// ErrCommittedResult matches the per-operation error (TxResult.Err, BatchResult.Err) of a
	// transactional batch that committed but whose result for that operation could not be read
	// or decoded (a document of another type or a newer schema version, a response the SDK could
	// not parse). The batch was applied: do not run it again. The error also matches the decode
	// failure's own sentinel (ErrTypeMismatch, ErrUnknownSchemaVersion, ...).
	ErrCommittedResult = cosmoserr.ErrCommittedResult
	// ErrInvalidToken: a page token that was not returned by Page for the same query.
	ErrInvalidToken = cosmoserr.ErrInvalidToken
	// ErrTooManyAttempts: Update lost the ETag race on every attempt. It also matches
	// ErrPreconditionFailed.
	ErrTooManyAttempts = cosmoserr.ErrTooManyAttempts
)

// ValidationError is an item, key, query or patch rejected before any request was sent
// (cosmoserr.ValidationError, the one type every cosmoskit package returns). It matches
// ErrValidation and its Kind sentinel (ErrInvalidID, ErrItemTooLarge, ...) with errors.Is. Field
// names what was rejected: "id", "partitionKey", "partitionKey[i]" (component i of a key), "item",
// "query", "patch", a partition key path ("/customerId"), or a JSON pointer into the item such as
// "/lines/3/amount"; Reason says why, without echoing the value.
type ValidationError = cosmoserr.ValidationError

func invalid(kind error, field, reason string) error {
	return &ValidationError{Kind: kind, Field: field, Reason: reason}
}

// DocumentError describes a stored document that cannot be read as the repository's type: another
// type, or a schema version it cannot upgrade. It matches ErrTypeMismatch or
// ErrUnknownSchemaVersion (its Kind) with errors.Is.
type DocumentError struct {
	// Kind is ErrTypeMismatch, ErrUnknownSchemaVersion, or ErrValidation for a document that is
	// not valid JSON for T.
	Kind error
	// ID is the document's id, "" if it has none.
	ID string
	// Type is the repository's type name; Found is the document's ("" if it has none).
	Type, Found string
	// Version is the document's schemaVersion (0 if missing) and Current the repository's.
	Version, Current int
	// Reason is a short explanation.
	Reason string
}

// Error returns a message naming the id, the types and the versions involved.
func (e *DocumentError) Error() string {
	return fmt.Sprintf("%v: document %q of type %q (version %d), want %q (version %d): %s",
		e.Kind, e.ID, e.Found, e.Version, e.Type, e.Current, e.Reason)
}

// Unwrap returns Kind.
func (e *DocumentError) Unwrap() error { return e.Kind }

// tooManyAttempts joins ErrTooManyAttempts with the last 412.
type tooManyAttempts struct {
	attempts int
	last     error
}

func (e *tooManyAttempts) Error() string {
	return fmt.Sprintf("%v (%d attempts): %v", ErrTooManyAttempts, e.attempts, e.last)
}

func (e *tooManyAttempts) Unwrap() []error { return []error{ErrTooManyAttempts, e.last} }

// opError wraps err from the SDK as a cosmoserr *Error for operation op and adds what the caller
// needs to act: the repository type and the item id.
func (r *core) opError(op, id string, err error) error {
	if err == nil {
		return nil
	}
	return &OpError{Op: op, Type: r.typeName, ID: id, Err: cosmoserr.FromError(op, err)}
}

// OpError is a failed call of a repository method: it names the operation, the repository type and
// the item id, and unwraps to a *cosmoserr.Error (and through it to the SDK's
// *azcore.ResponseError), so errors.Is(err, ErrNotFound) and errors.As work.
type OpError struct {
	// Op is the operation, one of cosmoserr's Op constants ("read_item", "replace_item", ...).
	Op string
	// Type is the repository's type discriminator; ID the item id, "" for queries and batches.
	Type, ID string
	// Err is the *cosmoserr.Error of the failed call.
	Err error
}

// Error returns the message of the *cosmoserr.Error it wraps with the repository type and the item
// id added, so that each of operation, resource, status, sub-status and activity id appears once:
//
//	cosmoskit: read_item shop/orders order "o-1": 404 Not Found (sub-status 0, activity id …, 1 RU): Entity with the specified id does not exist in the system.
//
// When Err is another error, it returns "cosmoskit: <op> <type> "<id>": <Err>".
func (e *OpError) Error() string {
	var ce *cosmoserr.Error
	if errors.As(e.Err, &ce) && ce.Error() == e.Err.Error() {
		c := *ce
		if c.Operation == "" {
			c.Operation = e.Op
		}
		c.Type = e.Type
		if e.ID != "" {
			c.ID = e.ID
		}
		return c.Error()
	}
	msg := "cosmoskit: " + e.Op + " " + e.Type
	if e.ID != "" {
		msg += " " + strconv.Quote(e.ID)
	}
	return msg + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *OpError) Unwrap() error { return e.Err }

// Is matches ErrInvalidPartitionKey when the service refused the item because its partition key
// properties differ from the key it was sent with (400, sub-status 1001): the check the repository
// makes itself before sending when it can read both keys (see PartitionKey).
func (e *OpError) Is(target error) bool {
	if target != ErrInvalidPartitionKey {
		return false
	}
	var de *cosmoserr.Error
	return errors.As(e.Err, &de) && de.StatusCode == http.StatusBadRequest && de.SubStatus == wire.SubStatusPartitionKeyMismatch
}
