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
// returns this one type (or an error that wraps it), so one errors.As finds it. It matches
// ErrValidation and its Kind with errors.Is.
type ValidationError struct {
	// Kind is the sentinel for the rule broken (ErrInvalidID, ErrInvalidVector,
	// ErrInvalidSessionToken, ...), or ErrValidation when no finer one applies.
	Kind error
	// Field names what was rejected: an argument ("id", "token"), a field of an options or
	// settings struct ("Options.MaxItems", "Config.Endpoint (from COSMOS_ENDPOINT)",
	// "ContainerSpec.PartitionKeyPaths[0]"), a partition key path or a JSON pointer into an item.
	Field string
	// Reason says why, without echoing the value (it may be an end user's input or a secret).
	Reason string
	// Err is the underlying cause, nil for most refusals: the parse error of a certificate, for
	// example. It never carries the refused value or a secret.
	Err error
}

// Error returns "<kind>: <field>: <reason>", followed by ": <cause>" when Err is set.
func (e *ValidationError) Error() string {
	kind := e.Kind
	if kind == nil {
		kind = ErrValidation
	}
	if e.Err != nil {
		return fmt.Sprintf("%v: %s: %s: %v", kind, e.Field, e.Reason, e.Err)
	}
	return fmt.Sprintf("%v: %s: %s", kind, e.Field, e.Reason)
}

// Is reports whether target is ErrValidation or the error's Kind.
func (e *ValidationError) Is(target error) bool { return target == ErrValidation || target == e.Kind }

// Unwrap returns Kind and, when set, Err.
func (e *ValidationError) Unwrap() []error {
	switch {
	case e.Err == nil:
		return []error{e.Kind}
	case e.Kind == nil:
		return []error{e.Err}
	}
	return []error{e.Kind, e.Err}
}
