package changefeed

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// Defaults of Options (the .NET and Java change feed processors' values).
const (
	// DefaultPollInterval is how long a lease waits after reading nothing new.
	DefaultPollInterval = 5 * time.Second
	// DefaultLeaseRenewInterval is how often an instance renews the leases it owns.
	DefaultLeaseRenewInterval = 17 * time.Second
	// DefaultLeaseAcquireInterval is how often an instance balances leases (takes free, expired
	// or stolen ones).
	DefaultLeaseAcquireInterval = 13 * time.Second
	// DefaultLeaseExpirationInterval is how long a lease stays owned without being renewed; after
	// it, other instances take it (its owner is presumed dead).
	DefaultLeaseExpirationInterval = 60 * time.Second
	// DefaultMaxItems is the most changes per batch (Java's default; the service's default page).
	DefaultMaxItems = 100
	// DefaultRetryBackoff is the first wait before a failed batch is delivered again (or a failed
	// read is retried); it doubles up to DefaultMaxRetryBackoff.
	DefaultRetryBackoff = time.Second
	// DefaultMaxRetryBackoff caps the doubling of RetryBackoff.
	DefaultMaxRetryBackoff = 30 * time.Second
	// DefaultStopTimeout bounds the graceful stop of Run, and of Start when its context ends.
	DefaultStopTimeout = 30 * time.Second
)

// StartFrom says where a lease without a checkpoint starts reading. The zero value is
// StartFromNow, as in .NET and Java. Once a lease has a checkpoint, it continues from there.
type StartFrom struct {
	kind int // 0 now, 1 beginning, 2 time
	t    time.Time
}

// StartFromNow starts at changes made after the lease is first read (the default).
func StartFromNow() StartFrom { return StartFrom{} }

// StartFromBeginning starts at the oldest change still in the feed: every live item in its latest
// version.
func StartFromBeginning() StartFrom { return StartFrom{kind: 1} }

// StartFromTime starts at changes whose last write (_ts) is at or after t (the service's
// If-Modified-Since; whole seconds).
func StartFromTime(t time.Time) StartFrom { return StartFrom{kind: 2, t: t.UTC()} }

// IsNow, IsBeginning and Time read the choice back.
func (s StartFrom) IsNow() bool { return s.kind == 0 }

// IsBeginning reports whether s is StartFromBeginning.
func (s StartFrom) IsBeginning() bool { return s.kind == 1 }

// Time returns the time of StartFromTime, and false for the other choices.
func (s StartFrom) Time() (time.Time, bool) { return s.t, s.kind == 2 }

// String names the choice: "now", "beginning" or the RFC 3339 time.
func (s StartFrom) String() string {
	switch s.kind {
	case 1:
		return "beginning"
	case 2:
		return s.t.Format(time.RFC3339)
	}
	return "now"
}

// Options configure a Processor. Name, Instance, Leases and Handler are required (New refuses
// their zero values with a *cosmoserr.ValidationError naming the field, e.g. "Options.Handler");
// every other zero value is the documented default. Processor.Options returns the options in
// effect with the defaults filled in.
type Options struct {
	// Name names the processor (required): the instances sharing a name and a lease container
	// share the work, and it prefixes the ids of its lease documents (the .NET/Java "lease
	// prefix"). At most 100 characters, none of / \ # ?. Names may be prefixes of each other
	// ("views" and "views-audit"): a processor opens only the leases whose ids are exactly its
	// own (see AccountHost), and Start refuses a name whose ids are another processor's store.
	Name string
	// Instance names this instance among them (required, unique among the running instances, e.g.
	// the host name or a StatefulSet pod name). An instance restarted under the same name resumes
	// the leases it owned at once.
	Instance string
	// Leases says where the leases are kept (required): Leases(container) or
	// EnsureLeases(azcosmosClient, database, id).
	Leases LeaseContainer
	// Handler handles each batch (required).
	Handler Handler

	// AccountHost is the account's host name in the lease ids, which .NET v3 builds as
	// "{Name}{account host}_{database rid}_{container rid}" from the host of the account endpoint
	// (e.g. "myaccount.documents.azure.com"): a host name or an IP address (New refuses anything
	// else). Set it to continue a lease store a .NET processor created, or to share a new one with
	// .NET processors started later. Default: the host the monitored container's requests go to
	// (the account endpoint's, unless the client routes them to a regional endpoint), or the host
	// of a lease store this processor created earlier under another host (found by its .info,
	// which names the processor and its host). The host is never read out of an id: "views" +
	// "-audit..." and "views-audit" + "..." are the same characters, so a store of another name
	// (or a .NET store under another host) is not adopted; one that may be this processor's is
	// logged at Warn when a new store is started instead.
	AccountHost string

	// StartFrom is where leases without a checkpoint start. Default: StartFromNow().
	StartFrom StartFrom

	// MaxItems is the most changes in one batch (the service may return fewer). Default:
	// DefaultMaxItems (100).
	MaxItems int

	// PollInterval is the wait after a read that found nothing new. Default: DefaultPollInterval
	// (5 s). Durations may be as short as a millisecond (for tests).
	PollInterval time.Duration
	// LeaseRenewInterval is how often owned leases are renewed. Default: 17 s.
	LeaseRenewInterval time.Duration
	// LeaseAcquireInterval is how often leases are balanced between instances. Default: 13 s.
	LeaseAcquireInterval time.Duration
	// LeaseExpirationInterval is how long an unrenewed lease stays with its owner. It must be
	// longer than LeaseRenewInterval. Default: 60 s.
	LeaseExpirationInterval time.Duration

	// MinLeases and MaxLeases bound the leases this instance aims for (the equal share is clamped
	// to them). Default: 0, no bound.
	MinLeases, MaxLeases int

	// ManualCheckpoint turns automatic checkpoints off: the handler calls Batch.Checkpoint when
	// the batch's effects are durable (for handlers that buffer their writes). Without a
	// checkpoint a batch is delivered again after the lease moves to another instance or the
	// processor restarts. Default: false, a batch is checkpointed as soon as the handler returns
	// nil.
	ManualCheckpoint bool

	// RetryBackoff is the first wait before a batch whose handler failed is delivered again, and
	// before a failed read is retried; it doubles up to MaxRetryBackoff. Default: 1 s.
	RetryBackoff time.Duration
	// MaxRetryBackoff caps the backoff. Default: 30 s.
	MaxRetryBackoff time.Duration

	// StopTimeout bounds the graceful stop that Run makes when its context ends (and Start when
	// its context ends): batches in flight get this long to finish and be checkpointed, then
	// their handlers' contexts are cancelled (see Stop). Default: DefaultStopTimeout (30 s).
	StopTimeout time.Duration

	// MaxDeliveries is the poison-batch threshold: after this many failed deliveries of one batch,
	// OnPoison gets it; without OnPoison the lease stops (it stays owned and renewed by this
	// instance so no other instance spins on it, nothing after the batch is read, and the stop is
	// reported to OnError as a *PoisonError and in Processor.State). Default: 0, a failing batch is
	// delivered again forever (as in .NET and Java). A batch is never skipped silently.
	MaxDeliveries int
	// OnPoison receives a batch that failed MaxDeliveries times. If it returns nil, the batch
	// counts as handled (the callback took custody, e.g. wrote it to a dead-letter container) and
	// is checkpointed; if it returns an error, the lease stops as without OnPoison. Default: nil.
	OnPoison func(ctx context.Context, b Batch, lastErr error) error

	// OnError receives every error the processor recovers from or stops a lease for, once each: a
	// *HandlerError per failed delivery (not when the handler's context was cancelled because its
	// lease was lost, reported as the loss, or because Stop's context ended, which Stop reports),
	// *PoisonError, failed reads and lease operations
	// (wrapped with the lease token), and each lease this instance held and lost to another
	// instance or a deletion (an error matching cosmoserr.ErrLeaseLost; the lease's handler
	// context is cancelled and OnLeaseReleased follows). It is called from the processor's goroutines and must not
	// block for long. Default: nil (errors are logged to Logger at Warn).
	OnError func(leaseToken string, err error)
	// OnLeaseAcquired and OnLeaseReleased are told when this instance starts or stops processing a
	// lease. Default: nil.
	OnLeaseAcquired, OnLeaseReleased func(leaseToken string)

	// Diagnostics is the diagnostics policy of the monitored container's client
	// (cosmoskit.Client.Diagnostics()). With it every batch (handler plus checkpoint) is a span
	// "changefeed.batch <container>" carrying the request charge, items and lag. Default: nil, a
	// span only when ctx carries one.
	Diagnostics *diagnostics.Policy
	// MeterProvider receives per-batch metrics (cosmoskit.changefeed.items,
	// cosmoskit.changefeed.request_charge) and the gauge cosmoskit.changefeed.lag (estimated
	// remaining changes per lease as of its last read). Default: nil, no metrics.
	MeterProvider metric.MeterProvider
	// Logger receives errors when OnError is nil, and lease movements at Debug. Default:
	// slog.Default().
	Logger *slog.Logger
}

// withDefaults returns o with every zero field set to its default.
func (o Options) withDefaults() Options {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if o.MaxItems <= 0 {
		o.MaxItems = DefaultMaxItems
	}
	set(&o.PollInterval, DefaultPollInterval)
	set(&o.LeaseRenewInterval, DefaultLeaseRenewInterval)
	set(&o.LeaseAcquireInterval, DefaultLeaseAcquireInterval)
	set(&o.LeaseExpirationInterval, DefaultLeaseExpirationInterval)
	set(&o.RetryBackoff, DefaultRetryBackoff)
	set(&o.MaxRetryBackoff, DefaultMaxRetryBackoff)
	set(&o.StopTimeout, DefaultStopTimeout)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// validate checks the options in effect (after withDefaults).
func (o Options) validate() error {
	switch {
	case o.MaxItems > 1<<31-1:
		return invalid("MaxItems", "more than the service accepts (2^31-1)")
	case o.LeaseExpirationInterval <= o.LeaseRenewInterval:
		return invalid("LeaseExpirationInterval", "must be longer than LeaseRenewInterval, or leases expire between renewals")
	case o.MinLeases < 0:
		return invalid("MinLeases", "negative")
	case o.MaxLeases < 0:
		return invalid("MaxLeases", "negative")
	case o.MaxLeases > 0 && o.MinLeases > o.MaxLeases:
		return invalid("MinLeases", "greater than MaxLeases")
	case o.MaxDeliveries < 0:
		return invalid("MaxDeliveries", "negative")
	case o.MaxRetryBackoff < o.RetryBackoff:
		return invalid("MaxRetryBackoff", "shorter than RetryBackoff")
	}
	return nil
}
