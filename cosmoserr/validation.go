package cosmoserr

import (
	"errors"
	"fmt"
)

// ErrValidation matches every [*ValidationError]: input refused before any request was sent,
// whichever package refused it.
var ErrValidation = errors.New("cosmoskit: invalid argument")

// ValidationError is input refused before any request was sent: an item, key, query, option,
// session token, search, Config or ContainerSpec, whichever package refused it. Every package
// returns this one type (or an error that wraps it), so one errors.As finds it. It matches ErrValidation and its
// Kind with errors.Is.
type ValidationError struct {
	// Kind is the sentinel for the rule broken (ErrInvalidID, ErrInvalidVector,
	// ErrInvalidSessionToken, ...), or ErrValidation when no finer one applies.
	Kind error
	// Field names what was rejected: an argument ("id", "token"), an option ("Options.MaxItems"),
	// a partition key path or a JSON pointer into an item.
	Field string
	// Reason says why, without echoing the value (it may be an end user's input or a secret).
	Reason string
}

// Error returns "<kind>: <field>: <reason>".
func (e *ValidationError) Error() string {
	kind := e.Kind
	if kind == nil {
		kind = ErrValidation
	}
	return fmt.Sprintf("%v: %s: %s", kind, e.Field, e.Reason)
}

// Is reports whether target is ErrValidation or the error's Kind.
func (e *ValidationError) Is(target error) bool { return target == ErrValidation || target == e.Kind }

// Unwrap returns Kind.
func (e *ValidationError) Unwrap() error { return e.Kind }
