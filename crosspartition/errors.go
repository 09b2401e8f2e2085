package crosspartition

import (
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Sentinels; the typed errors below match them with errors.Is.
var (
	// ErrUnsupported is a query this engine cannot answer correctly; it is refused before any
	// result is returned, never answered wrongly.
	ErrUnsupported = cosmoserr.ErrUnsupported
	// ErrInvalidToken is a continuation token that was not returned for this query (tampered,
	// truncated, from another query, parameters or container, or from a newer version). It is
	// cosmoserr.ErrInvalidToken, the same value repository returns.
	ErrInvalidToken = cosmoserr.ErrInvalidToken
	// ErrNotResumable is a continuation token asked of a query whose results cannot be resumed
	// (aggregates, GROUP BY, DISTINCT without ORDER BY is resumable; see the package doc).
	ErrNotResumable = cosmoserr.ErrNotResumable
)

// UnsupportedError names the construct of a refused query.
type UnsupportedError struct {
	Construct string // e.g. "ORDER BY VectorDistance without TOP or LIMIT"
	Reason    string
}

func (e *UnsupportedError) Error() string {
	s := "crosspartition: " + e.Construct + " is not supported across partitions"
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// Unwrap returns ErrUnsupported.
func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// TokenError is an invalid continuation token; it never quotes the token.
type TokenError struct{ Reason string }

func (e *TokenError) Error() string { return "crosspartition: invalid continuation token: " + e.Reason }

// Unwrap returns ErrInvalidToken.
func (e *TokenError) Unwrap() error { return ErrInvalidToken }

// NotResumableError names the construct whose results cannot resume from a token.
type NotResumableError struct{ Construct string }

func (e *NotResumableError) Error() string {
	return "crosspartition: a query with " + e.Construct + " cannot resume from a continuation token: read all its pages with one pager"
}

// Unwrap returns ErrNotResumable.
func (e *NotResumableError) Unwrap() error { return ErrNotResumable }

// PlanError is a query plan or routing map this engine cannot use.
type PlanError struct{ Reason string }

func (e *PlanError) Error() string { return "crosspartition: " + e.Reason }

// Unwrap returns ErrUnsupported: a plan that cannot be used is a query that is not answered.
func (e *PlanError) Unwrap() error { return ErrUnsupported }
