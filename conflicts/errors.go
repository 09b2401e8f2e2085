package conflicts

import "errors"

var (
	// ErrValidation matches every *ValidationError: an argument rejected before anything was sent.
	ErrValidation = errors.New("conflicts: invalid argument")
	// ErrNoCredential is returned by New for a client made by cosmoskit.NewFromClient: cosmoskit
	// does not hold its credential, so it cannot sign the requests azcosmos has no API for. Build
	// the client with cosmoskit.New.
	ErrNoCredential = errors.New("conflicts: the client has no credential cosmoskit can sign with (cosmoskit.NewFromClient); build it with cosmoskit.New")
)

// ValidationError is an argument rejected before anything was sent. It matches ErrValidation.
type ValidationError struct {
	// Field names the argument ("database", "container", "Conflict.ID").
	Field string
	// Problem says what is wrong with it.
	Problem string
}

func (e *ValidationError) Error() string { return "conflicts: invalid " + e.Field + ": " + e.Problem }

// Is makes errors.Is(err, ErrValidation) true.
func (e *ValidationError) Is(target error) bool { return target == ErrValidation }
