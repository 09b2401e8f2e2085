package repository

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/plural"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

func invalid(kind error, field, reason string) error {
	return &cosmoserr.ValidationError{Kind: kind, Field: field, Reason: reason}
}

// DocumentError describes a stored document that cannot be read as the repository's type: another
// type, or a schema version it cannot upgrade. It matches cosmoserr.ErrTypeMismatch or
// cosmoserr.ErrUnknownSchemaVersion (its Kind) with errors.Is.
type DocumentError struct {
	// Kind is cosmoserr.ErrTypeMismatch, cosmoserr.ErrUnknownSchemaVersion, or cosmoserr.ErrValidation for a document that is
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

// tooManyAttempts joins cosmoserr.ErrTooManyAttempts with the last 412.
type tooManyAttempts struct {
	attempts int
	last     error
}

func (e *tooManyAttempts) Error() string {
	return fmt.Sprintf("%v (%s): %v", cosmoserr.ErrTooManyAttempts, plural.Count(e.attempts, "attempt", "attempts"), e.last)
}

func (e *tooManyAttempts) Unwrap() []error { return []error{cosmoserr.ErrTooManyAttempts, e.last} }

// opError wraps err from the SDK as a *cosmoserr.Error for operation op and adds what the caller
// needs to act: the repository type and the item id.
func (r *core) opError(op, id string, err error) error {
	if err == nil {
		return nil
	}
	return &OpError{Op: op, Type: r.typeName, ID: id, Err: cosmoserr.FromError(op, err)}
}

// OpError is a failed call of a repository method. It names the operation, the repository type and
// the item id, and unwraps to a *cosmoserr.Error (and through it to the SDK's
// *azcore.ResponseError), so errors.Is(err, cosmoserr.ErrNotFound) and errors.As work.
type OpError struct {
	// Op is the operation, one of cosmoserr's Op constants ("read_item", "replace_item", ...).
	Op string
	// Type is the repository's type discriminator; ID the item id, "" for queries and batches.
	Type, ID string
	// Err is the *cosmoserr.Error of the failed call.
	Err error
}

// Error returns the message of the *cosmoserr.Error it wraps with the repository type and the item
// id added. Each of operation, resource, status, sub-status and activity id appears once:
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

// Is matches cosmoserr.ErrInvalidPartitionKey when the service refused the item because its
// partition key properties differ from the key it was sent with (400, sub-status 1001). The
// repository makes the same check itself before sending when it can read both keys (see
// PartitionKey).
func (e *OpError) Is(target error) bool {
	if target != cosmoserr.ErrInvalidPartitionKey {
		return false
	}
	var de *cosmoserr.Error
	return errors.As(e.Err, &de) && de.StatusCode == http.StatusBadRequest && de.SubStatus == wire.SubStatusPartitionKeyMismatch
}
