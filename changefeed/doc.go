// Package changefeed is the .NET and Java SDKs' change feed processor for Go, for views,
// pipelines and migrations that follow a container's changes. It works on top of azcosmos's pull
// model (ReadChangeFeed with composite continuation tokens), which is all the Go SDK offers:
// the .NET and Java SDKs' processor, rebuilt with the same lease documents, intervals and
// balancing, plus typed dispatch through package repository and a lag estimator.
//
// Use it for what the change feed is for: materialized views and projections, event-driven
// pipelines, data migration. Delivery is at least once, so handlers must be idempotent (upsert
// by id; compare a version or _lsn before overwriting a newer view).
//
//	p, err := changefeed.New(orders, changefeed.Options{
//		Name:     "order-views",
//		Instance: hostname,
//		Leases:   changefeed.EnsureLeases(client.Cosmos(), "shop", "leases"),
//		Handler: func(ctx context.Context, b changefeed.Batch) error {
//			for _, doc := range b.Items { /* update the view, idempotently */ }
//			return nil
//		},
//		StartFrom: changefeed.StartFromBeginning(),
//	})
//	if err != nil { ... }
//	return p.Run(ctx) // until ctx ends, then stops gracefully (Options.StopTimeout)
//
// Start(ctx) and Stop(ctx) are the same in two steps: the processor runs until Stop or until
// Start's ctx ends; Stop waits for the batches in flight and releases the leases, and returns by
// its ctx's deadline (cancelling the handlers' contexts, and saying what it leaves running). A
// stopped processor can run again.
//
// # Leases
//
// A lease is a document in the lease container (partitioned by /id; EnsureLeases provisions it),
// one per feed range of the monitored container, written and read exactly as the .NET v3
// processor does (checked against its source; Java v4's partition-key-range leases are documented
// as the same layout but not checked here), so Go and .NET instances can share one lease store
// and hand it over in either direction: id ("{Name}{account host}_{database rid}_{container
// rid}..{LeaseToken}", see Options.AccountHost), version (0: a partition key range's lease, named
// by the range id, as .NET creates them; 1: an EPK range's lease, "<min>-<max>", which .NET
// creates when an EPK lease splits), FeedRange ({"Range":{"min","max"}}), Owner (the instance
// name, null when free), ContinuationToken (the etag of the last change checkpointed), properties,
// timestamp (last acquire, renewal or checkpoint, as .NET writes a UTC DateTime; a lease not
// renewed within LeaseExpirationInterval is free for others) and Mode ("Incremental Feed"). Every
// change is a replace with If-Match on the lease's _etag, so two instances never own one lease:
// the loser of a race re-reads and gives up. The first instance to start creates the leases under
// a "{prefix}.lock" document ({"id","ttl":30}) and marks the store ready with "{prefix}.info"
// ({"id"} as .NET writes it, plus "processorName" and "accountHost", which .NET ignores: it only
// asks whether .info exists). testdata/dotnet holds the .NET documents the tests compare with,
// field by field.
//
// A processor opens only its own leases: the ids that are exactly "{Name}{host}_{database
// rid}_{container rid}..{LeaseToken}" for a host it knows (Options.AccountHost, the host its
// requests go to, or the host named in a .info that names this processor), never a host read out
// of an id. .NET's layout runs the name and the host together, so two processors can make the
// same ids ("a" of host "bc.example" and "ab" of host "c.example", in one lease container with
// coinciding rids): the .info names the processor that owns the store, the second one refuses to
// start (a *cosmoserr.ValidationError of Options.Name), and a .NET store (whose .info names no
// one) is claimed by the first Go processor that opens it. A
// lease store of this package's earlier format ("{Name}_{container rid}.." ids) is migrated on
// Start (stop the instances of the earlier version first).
//
// # Balancing
//
// Every LeaseAcquireInterval each instance lists the leases and applies the equal-partitions
// strategy: the live instances are the owners of unexpired leases; each aims for
// ceil(leases/instances), clamped by MinLeases and MaxLeases; it takes free or expired leases up
// to its share, and when there are none, steals one lease per round from the busiest instance if
// that one holds more than its share. An instance that dies stops renewing, and its leases are
// taken over once they expire; an instance restarted under the same name (a stable host or pod
// name) resumes the leases the store says it owns at once, as .NET does. Each held lease is renewed on its own every
// LeaseRenewInterval (one renewer per lease, as in .NET), so a renewal that hangs endangers only
// that lease. A stolen lease's old owner finds out at its next renewal or checkpoint (412, owner
// changed): it stops reading it, cancels the context of the handler working on it, and reports
// the loss to OnError (matching cosmoserr.ErrLeaseLost), once: the handler's return from its
// cancelled context is not also a *HandlerError. The batch it was handling is delivered again by
// the new owner.
//
// # Batches, checkpoints and errors
//
// Each lease is read by one goroutine: a page of up to MaxItems changes is handed to the handler
// and, when the handler returns nil, the lease is checkpointed (ManualCheckpoint leaves that to
// Batch.Checkpoint). An empty page waits PollInterval. A handler error (or panic) is reported to
// OnError as a *HandlerError and the same batch is delivered again after a backoff (RetryBackoff
// doubling up to MaxRetryBackoff); nothing after it is read or checkpointed first. The
// poison-batch policy is explicit: with MaxDeliveries set, a batch failing that many times goes
// to OnPoison (which may take custody, e.g. write it to a dead-letter container, and the lease
// moves on) or, without OnPoison or when it fails, the lease stops and reports a *PoisonError
// (still owned, so no other instance spins on it; Processor.State shows it). A batch is never
// skipped silently. Failed reads (throttling beyond the SDK's retries, timeouts) are reported
// and retried with the same backoff.
//
// # Splits
//
// When a lease's range is split, azcosmos answers 410/1002 and expands the continuation into the
// child ranges. The processor then creates one lease per child, each starting at the parent's
// checkpoint, and deletes the parent, without handing over the page it just read (the children's
// owners read it): nothing is lost, and only a batch in flight but not checkpointed can be
// repeated.
//
// # Lag
//
// Estimator (Processor.Estimator or NewEstimator) tells per lease and in total how many changes
// follow each checkpoint: it reads and counts them up to EstimatorOptions.CountLimit (1,000 per
// lease; exact, after splits too), and estimates any rest like the .NET estimator (the
// partition's LSN from the session token minus the _lsn of the last change counted);
// RegisterGauge exports it as the OpenTelemetry gauge cosmoskit.changefeed.estimated_lag. The
// processor also exports per batch a
// span "changefeed.batch <container>" (with Options.Diagnostics) and, with Options.MeterProvider,
// cosmoskit.changefeed.items, cosmoskit.changefeed.request_charge and the gauge
// cosmoskit.changefeed.lag (per held lease, as of its last read, no extra reads).
//
// # Typed dispatch
//
// Dispatcher routes each change to a function per document type by the "type" discriminator
// that repository.Repository writes, decoding it to the repository's Go type and upgrading older
// schema versions through the repository; everything else can go to a raw function.
// MigrateHandler runs repository's schema migration on the change feed instead of a
// cross-partition query: a processor of its own rewrites every document below the current
// version, once, spread over instances and resumable.
//
// # Not supported
//
//   - The all-versions-and-deletes mode: azcosmos v1.5.0 reads the latest-version feed only
//     (deletes are not in it; use a soft-delete flag with TTL).
//   - Merges: azcosmos v1.5.0 does not send the EPK bounds of a range narrower than its physical
//     partition, so a lease whose range is narrower than its partition after a merge would read
//     its neighbours' changes too. Splits are handled.
//   - Lease containers partitioned by /partitionKey (.NET's optional layout; the leases then
//     carry a "partitionKey" field), and .NET v2 leases not yet given a FeedRange by a v3
//     processor (they are skipped).
package changefeed
