package consistency

import (
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

var (
	// ErrValidation matches every *ValidationError, whichever package returned it (the same value
	// as cosmoserr.ErrValidation): nothing was sent.
	ErrValidation = cosmoserr.ErrValidation
	// ErrInvalidSessionToken: a session token that is not in the service's format, or longer than
	// the 16 KiB the library accepts (a token may come from an end user's cookie or header).
	ErrInvalidSessionToken = cosmoserr.ErrInvalidSessionToken
	// ErrInvalidLevel: a consistency level that is not one of azcosmos.ConsistencyLevelValues().
	ErrInvalidLevel = cosmoserr.ErrInvalidLevel
	// ErrLevelTooStrong matches the service's refusal (400) of a request whose consistency level
	// (WithLevel) is stronger than the account's default: a request may only relax it.
	ErrLevelTooStrong = cosmoserr.ErrLevelTooStrong
)

// ValidationError is a session token or consistency level refused before any request was sent
// (cosmoserr.ValidationError, the one type every cosmoskit package returns). It matches
// ErrValidation and its Kind (ErrInvalidSessionToken, ErrInvalidLevel) with errors.Is.
type ValidationError = cosmoserr.ValidationError

// LevelError is the service's refusal of a request whose consistency level is stronger than the
// account's. It matches ErrLevelTooStrong and unwraps to the service's *azcore.ResponseError (so
// it matches cosmoserr.ErrBadRequest as well).
type LevelError struct {
	// Requested is the level the request asked for (WithLevel).
	Requested azcosmos.ConsistencyLevel
	// Account is the account's default level, "" when the policy has not seen the account
	// metadata.
	Account azcosmos.ConsistencyLevel
	// Err is the service's 400.
	Err error
}

// Error names both levels.
func (e *LevelError) Error() string {
	acct := string(e.Account)
	if acct == "" {
		acct = "unknown"
	}
	return fmt.Sprintf("%v: requested %s, account default %s (a request can only relax the account's level): %v",
		ErrLevelTooStrong, e.Requested, acct, e.Err)
}

// Is reports whether target is ErrLevelTooStrong.
func (e *LevelError) Is(target error) bool { return target == ErrLevelTooStrong }

// Unwrap returns the service's error.
func (e *LevelError) Unwrap() error { return e.Err }
