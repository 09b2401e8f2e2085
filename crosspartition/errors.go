package crosspartition

import (
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
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

// Unwrap returns cosmoserr.ErrUnsupported.
func (e *UnsupportedError) Unwrap() error { return cosmoserr.ErrUnsupported }

// NotResumableError names the construct whose results cannot resume from a token.
type NotResumableError struct{ Construct string }

func (e *NotResumableError) Error() string {
	return "crosspartition: a query with " + e.Construct + " cannot resume from a continuation token: read all its pages with one pager"
}

// Unwrap returns cosmoserr.ErrNotResumable.
func (e *NotResumableError) Unwrap() error { return cosmoserr.ErrNotResumable }

// PlanError is a query plan or routing map this engine cannot use.
type PlanError struct{ Reason string }

func (e *PlanError) Error() string { return "crosspartition: " + e.Reason }

// Unwrap returns cosmoserr.ErrUnsupported: a plan that cannot be used is a query that is not answered.
func (e *PlanError) Unwrap() error { return cosmoserr.ErrUnsupported }
