package changefeed

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Handler handles one batch of changes from one lease. Delivery is at least once: a batch is
// delivered again after an error, after the lease moves to another instance before its
// checkpoint, or after a crash, so make handlers idempotent (upsert by id, compare versions).
// Changes of one logical partition arrive in order (the order of their last writes), one batch at
// a time per lease; batches of different leases are handled concurrently. ctx is cancelled when
// the lease is lost to another instance (the new owner delivers the batch again; reported to
// OnError) and when Processor.Stop's context ends before the batch does.
type Handler func(ctx context.Context, b Batch) error

// Batch is a page of changes of one lease, each the latest version of a created or replaced item.
// Deletes are not in the latest-version change feed; use a soft-delete flag and TTL.
type Batch struct {
	// LeaseToken names the lease: its partition key range id, or "<min>-<max>" of its feed range
	// for an EPK lease (see LeaseState).
	LeaseToken string
	// FeedRange is the lease's range of effective partition keys.
	FeedRange azcosmos.FeedRange
	// Items are the changed documents as raw JSON, in the order of their last writes, each with
	// the system properties (_rid, _ts, _etag, _lsn).
	Items [][]byte
	// RequestCharge is the request units the read of this batch cost.
	RequestCharge float32
	// Delivery counts the deliveries of this batch, 1 for the first.
	Delivery int
	// Lag estimates the changes left in the lease's range after this batch.
	Lag int64

	cp   *owned
	p    *Processor
	etag string // position after the batch
	seq  uint64
}

// Checkpoint records that this batch and every earlier one of its lease are handled, so they are
// not delivered again. It is for Options.ManualCheckpoint (elsewhere it returns
// cosmoserr.ErrNotCheckpointable); it may be called after the handler returned, while the lease is still
// owned by this instance (else an error matching cosmoserr.ErrLeaseLost). A checkpoint older than one
// already written does nothing.
func (b Batch) Checkpoint(ctx context.Context) error {
	if b.cp == nil || b.p == nil || !b.p.opts.ManualCheckpoint {
		return fmt.Errorf("%w: Options.ManualCheckpoint is off", cosmoserr.ErrNotCheckpointable)
	}
	return b.p.checkpoint(ctx, b.cp, b.etag, b.seq)
}
