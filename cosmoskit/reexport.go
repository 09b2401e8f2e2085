package cosmoskit

import (
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// Error is the typed error cosmoskit returns for a failed Cosmos DB call: operation, status,
// sub-status, activity id, request charge, retry-after and the SDK's diagnostics. It is
// diagnostics.Error (the same type), unwraps to the SDK's *azcore.ResponseError, and matches the
// sentinels below with errors.Is.
type Error = diagnostics.Error

// Sentinels matched through errors.Is. They are the diagnostics and retry packages' values, so
// errors.Is works whichever package name the caller uses.
var (
	ErrBadRequest         = diagnostics.ErrBadRequest         // 400
	ErrUnauthorized       = diagnostics.ErrUnauthorized       // 401: wrong key or token
	ErrNotFound           = diagnostics.ErrNotFound           // 404 (not 404/1002)
	ErrConflict           = diagnostics.ErrConflict           // 409
	ErrPreconditionFailed = diagnostics.ErrPreconditionFailed // 412
	ErrThrottled          = diagnostics.ErrThrottled          // 429 after every retry
	ErrUnavailable        = diagnostics.ErrUnavailable        // 503
	ErrCircuitOpen        = retry.ErrCircuitOpen              //nolint:staticcheck // deprecated there: the breakers never refuse every region, so nothing returns it
)

// IsRetryable reports whether err is a transient Cosmos DB failure (see diagnostics.IsRetryable).
func IsRetryable(err error) bool { return diagnostics.IsRetryable(err) }

// IsTimeout reports whether err is a timeout (see diagnostics.IsTimeout).
func IsTimeout(err error) bool { return diagnostics.IsTimeout(err) }
