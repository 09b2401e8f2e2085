package consistency

import (
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// LevelError is the service's refusal of a request whose consistency level is stronger than the
// account's. It matches cosmoserr.ErrLevelTooStrong and cosmoserr.ErrBadRequest (the service's
// status), whether the client is a plain *azcosmos.ContainerClient or a repository, and unwraps to
// the service's *azcore.ResponseError.
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
		cosmoserr.ErrLevelTooStrong, e.Requested, acct, e.Err)
}

// Is reports whether target is cosmoserr.ErrLevelTooStrong or cosmoserr.ErrBadRequest.
func (e *LevelError) Is(target error) bool {
	return target == cosmoserr.ErrLevelTooStrong || target == cosmoserr.ErrBadRequest
}

// Unwrap returns the service's error.
func (e *LevelError) Unwrap() error { return e.Err }
