package vector

import (
	"errors"
	"fmt"
)

var (
	// ErrValidation matches every search rejected before a request was sent.
	ErrValidation = errors.New("vector: invalid search")
	// ErrInvalidVector: the query vector has the wrong number of dimensions, a NaN or an
	// infinity, or a value its data type cannot hold. It also matches ErrValidation.
	ErrInvalidVector = errors.New("vector: invalid query vector")
	// ErrNotUnit: a vector for a cosine search is not of unit length within UnitTolerance (see
	// CheckUnit).
	ErrNotUnit = errors.New("vector: vector is not of unit length")
	// ErrNoPolicy: the container has no vector embedding policy for the path (read from the
	// container's properties).
	ErrNoPolicy = errors.New("vector: no vector embedding policy")
)

// ValidationError is a search rejected before any request was sent. It matches ErrValidation and
// its Kind (ErrInvalidVector, ErrNoPolicy, ...) with errors.Is.
type ValidationError struct {
	Kind   error
	Field  string // "Vector", "K", "Where", "Filter", "PartitionKey", "Fields", "Path"
	Reason string // never echoes a vector or parameter value
}

func (e *ValidationError) Error() string { return fmt.Sprintf("%v: %s: %s", e.Kind, e.Field, e.Reason) }

// Is reports whether target is ErrValidation or the error's Kind.
func (e *ValidationError) Is(target error) bool { return target == ErrValidation || target == e.Kind }

// Unwrap returns Kind.
func (e *ValidationError) Unwrap() error { return e.Kind }

func invalid(kind error, field, format string, args ...any) error {
	return &ValidationError{Kind: kind, Field: field, Reason: fmt.Sprintf(format, args...)}
}
