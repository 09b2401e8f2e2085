package conflicts

import (
	"errors"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

var (
	// ErrValidation matches every *ValidationError, whichever package returned it (the same value
	// as cosmoserr.ErrValidation): an argument rejected before anything was sent.
	ErrValidation = cosmoserr.ErrValidation
	// ErrInvalidArgument is the Kind of this package's *ValidationError.
	ErrInvalidArgument = errors.New("conflicts: invalid argument")
	// ErrNoCredential is returned by New for a client made by cosmoskit.NewFromClient: cosmoskit
	// does not hold its credential, so it cannot sign the requests azcosmos has no API for. Build
	// the client with cosmoskit.New.
	ErrNoCredential = cosmoserr.ErrNoCredential
)

// ValidationError is an argument rejected before anything was sent (cosmoserr.ValidationError,
// the one type every cosmoskit package returns). It matches ErrValidation and ErrInvalidArgument.
type ValidationError = cosmoserr.ValidationError
