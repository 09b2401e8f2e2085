package changefeed

import (
	"fmt"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/plural"
)

// invalid is the package's refusal of an argument or option (an exported field name is prefixed
// "Options."): a *cosmoserr.ValidationError of Kind cosmoserr.ErrValidation.
func invalid(field, problem string) error {
	if len(field) > 0 && field[0] >= 'A' && field[0] <= 'Z' {
		field = "Options." + field // an option, of Options or EstimatorOptions
	}
	return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: field, Reason: problem}
}

// HandlerError is one failed delivery of a batch: the batch is delivered again (after a backoff)
// until the handler succeeds or the poison-batch policy takes over. It matches cosmoserr.ErrHandler and
// unwraps to what the handler returned.
type HandlerError struct {
	// LeaseToken names the lease (see LeaseState.LeaseToken).
	LeaseToken string
	// Attempt counts the deliveries of this batch so far, 1 for the first.
	Attempt int
	// Items is the number of changes in the batch.
	Items int
	// Err is what the handler returned; a panic is recovered and reported as an error.
	Err error
}

func (e *HandlerError) Error() string {
	return fmt.Sprintf("changefeed: handler failed on lease %s (delivery %d of a batch of %d): %v", e.LeaseToken, e.Attempt, e.Items, e.Err)
}

// Unwrap returns the handler's error.
func (e *HandlerError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, cosmoserr.ErrHandler) true.
func (e *HandlerError) Is(target error) bool { return target == cosmoserr.ErrHandler }

// PoisonError reports a lease stopped on a batch that failed Options.MaxDeliveries times (and that
// OnPoison, if set, refused). The lease stays owned by this instance, unread past the batch,
// until the processor stops; restarting the processor delivers the batch again. It matches
// cosmoserr.ErrPoisonBatch and unwraps to the last handler error.
type PoisonError struct {
	// LeaseToken names the stopped lease.
	LeaseToken string
	// Deliveries is the number of failed deliveries.
	Deliveries int
	// Batch is the batch that could not be handled.
	Batch Batch
	// Err is the last error (the handler's, or OnPoison's).
	Err error
}

func (e *PoisonError) Error() string {
	return fmt.Sprintf("changefeed: lease %s stopped: a batch of %s failed %s: %v", e.LeaseToken,
		plural.Count(len(e.Batch.Items), "change", "changes"), plural.Count(e.Deliveries, "delivery", "deliveries"), e.Err)
}

// Unwrap returns the last error.
func (e *PoisonError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, cosmoserr.ErrPoisonBatch) true.
func (e *PoisonError) Is(target error) bool { return target == cosmoserr.ErrPoisonBatch }
