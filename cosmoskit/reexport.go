package cosmoskit

import (
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Error is the typed error cosmoskit returns for a failed Cosmos DB call: operation, resource,
// status, sub-status, activity id, request charge, retry-after and the SDK's diagnostics. It is
// cosmoserr.Error (the same type, as is diagnostics.Error), unwraps to the SDK's
// *azcore.ResponseError, and matches the sentinels below with errors.Is.
type Error = cosmoserr.Error

// Sentinels matched through errors.Is. They are the cosmoserr values (re-exported by diagnostics,
// retry and repository too), so errors.Is works whichever package name the caller uses.
var (
	ErrBadRequest         = cosmoserr.ErrBadRequest         // 400
	ErrUnauthorized       = cosmoserr.ErrUnauthorized       // 401: wrong key or token
	ErrNotFound           = cosmoserr.ErrNotFound           // 404 (not 404/1002)
	ErrConflict           = cosmoserr.ErrConflict           // 409
	ErrPreconditionFailed = cosmoserr.ErrPreconditionFailed // 412
	ErrThrottled          = cosmoserr.ErrThrottled          // 429 after every retry
	ErrUnavailable        = cosmoserr.ErrUnavailable        // 503
	// ErrSessionNotAvailable: 404/1002, the session token was ahead of the regions reached.
	ErrSessionNotAvailable = cosmoserr.ErrSessionNotAvailable
	ErrCircuitOpen         = cosmoserr.ErrCircuitOpen //nolint:staticcheck // deprecated there: the breakers never refuse every region, so nothing returns it
)

// IsRetryable reports whether err is a transient Cosmos DB failure (see cosmoserr.IsRetryable).
func IsRetryable(err error) bool { return cosmoserr.IsRetryable(err) }

// IsTimeout reports whether err is a timeout (see cosmoserr.IsTimeout).
func IsTimeout(err error) bool { return cosmoserr.IsTimeout(err) }
