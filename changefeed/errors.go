package changefeed

import (
	"errors"
	"fmt"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

var (
	// ErrValidation matches every *ValidationError, whichever package returned it (the same value
	// as cosmoserr.ErrValidation): a processor or estimator was given bad arguments; nothing was
	// sent.
	ErrValidation = cosmoserr.ErrValidation
	// ErrInvalidArgument is the Kind of this package's *ValidationError.
	ErrInvalidArgument = errors.New("changefeed: invalid argument")
	// ErrLeaseLost matches a lease operation that found the lease owned by another instance (it
	// was stolen or taken after expiry) or deleted (split); this instance stops processing it and
	// its uncheckpointed batch is delivered again by the new owner.
	ErrLeaseLost = cosmoserr.ErrLeaseLost
	// ErrPoisonBatch matches a *PoisonError: a batch failed Options.MaxDeliveries times.
	ErrPoisonBatch = cosmoserr.ErrPoisonBatch
	// ErrHandler matches a *HandlerError: the handler returned an error (or panicked).
	ErrHandler = cosmoserr.ErrHandler
	// ErrStarted is returned by Start on a processor already started (a Processor runs once).
	ErrStarted = cosmoserr.ErrStarted
	// ErrNotCheckpointable is returned by Batch.Checkpoint outside manual-checkpoint mode, or for
	// a batch whose lease this instance no longer owns.
	ErrNotCheckpointable = cosmoserr.ErrNotCheckpointable
)

// ValidationError is an argument rejected before anything was sent (cosmoserr.ValidationError,
// the one type every cosmoskit package returns). It matches ErrValidation and ErrInvalidArgument.
type ValidationError = cosmoserr.ValidationError

func invalid(field, problem string) error {
	if len(field) > 0 && field[0] >= 'A' && field[0] <= 'Z' {
		field = "Options." + field // an option, of Options or EstimatorOptions
	}
	return &ValidationError{Kind: ErrInvalidArgument, Field: field, Reason: problem}
}

// HandlerError is one failed delivery of a batch: the batch is delivered again (after a backoff)
// until the handler succeeds or the poison-batch policy takes over. It matches ErrHandler and
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

// Is makes errors.Is(err, ErrHandler) true.
func (e *HandlerError) Is(target error) bool { return target == ErrHandler }

// PoisonError reports a lease stopped on a batch that failed Options.MaxDeliveries times (and that
// OnPoison, if set, refused). The lease stays owned by this instance, unread past the batch,
// until the processor stops; restarting the processor delivers the batch again. It matches
// ErrPoisonBatch and unwraps to the last handler error.
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
	return fmt.Sprintf("changefeed: lease %s stopped: a batch of %d changes failed %d deliveries: %v", e.LeaseToken, len(e.Batch.Items), e.Deliveries, e.Err)
}

// Unwrap returns the last error.
func (e *PoisonError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrPoisonBatch) true.
func (e *PoisonError) Is(target error) bool { return target == ErrPoisonBatch }
