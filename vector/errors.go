package vector

import (
	"fmt"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

var (
	// ErrValidation matches every search rejected before a request was sent (the same value as
	// cosmoserr.ErrValidation, which every cosmoskit package's *ValidationError matches).
	ErrValidation = cosmoserr.ErrValidation
	// ErrInvalidVector: the query vector has the wrong number of dimensions, a NaN or an
	// infinity, or a value its data type cannot hold. It also matches ErrValidation.
	ErrInvalidVector = cosmoserr.ErrInvalidVector
	// ErrNotUnit: a vector for a cosine search is not of unit length within UnitTolerance (see
	// CheckUnit).
	ErrNotUnit = cosmoserr.ErrNotUnit
	// ErrNoPolicy: the container has no vector embedding policy for the path (read from the
	// container's properties).
	ErrNoPolicy = cosmoserr.ErrNoPolicy
)

// ValidationError is a search rejected before any request was sent (cosmoserr.ValidationError,
// the one type every cosmoskit package returns). It matches ErrValidation and its Kind
// (ErrInvalidVector, ErrNoPolicy, ...) with errors.Is. Field is one of "Vector", "K", "Where",
// "Filter", "PartitionKey", "Fields", "Path"; Reason never echoes a vector or parameter value.
type ValidationError = cosmoserr.ValidationError

func invalid(kind error, field, format string, args ...any) error {
	return &ValidationError{Kind: kind, Field: field, Reason: fmt.Sprintf(format, args...)}
}
