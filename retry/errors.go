package retry

import "github.com/cosmoskit/cosmoskit-go/cosmoserr"

// errHedgedWrite refuses a write run through Hedge without HedgingOptions.Writes on a multi-write
// account: each hedged attempt would apply it once more. It is a refusal before sending, so a
// *cosmoserr.ValidationError (the *cosmoserr.Error of the operation wraps it).
var errHedgedWrite error = &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "HedgingOptions.Writes",
	Reason: "a write is hedged only with it set, on a multi-write account (each hedged attempt would apply the write once more)"}

// finalError marks an error the policy has finished with, so that neither azcore's retry policy
// nor the Cosmos retry policy above it retries it again (azcore recognises the NonRetriable
// method). It unwraps to the error it carries.
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }
func (e *finalError) Unwrap() error { return e.err }

// NonRetriable tells azcore's retry policy not to retry this error.
func (e *finalError) NonRetriable() {}

// regionsError is the transport failure of the last region a read tried, after every region
// failed. It keeps the transport error's text and timeout classification but does not unwrap to
// it: the Cosmos retry policy above would otherwise classify it as a connection error and walk the
// regions again with its 1 s sleeps.
type regionsError struct {
	msg     string
	timeout bool
}

func (e *regionsError) Error() string { return e.msg }

// Timeout reports whether the last transport failure was a timeout.
func (e *regionsError) Timeout() bool { return e.timeout }

// Retryable reports true: a transport failure may succeed later.
func (e *regionsError) Retryable() bool { return true }
