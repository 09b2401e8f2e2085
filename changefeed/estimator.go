package changefeed

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Estimator estimates how far a processor's leases are behind. It only reads: run it anywhere,
// with or without the processor. 0 means caught up.
//
// Per lease, it counts the changes after the lease's checkpoint by reading them (up to
// EstimatorOptions.CountLimit, exact, also after splits), and estimates any rest from the
// partition's current LSN (from the session token) minus the _lsn of the last change counted, as
// the .NET estimator does from the checkpoint.
type Estimator struct {
	monitored *azcosmos.ContainerClient
	opts      EstimatorOptions

	once  sync.Mutex
	store *store
}

// EstimatorOptions configure an Estimator. Name and Leases are required (NewEstimator refuses
// their zero values with a *cosmoserr.ValidationError naming the field); every other zero value
// is the documented default. Estimator.Options returns the options in effect.
type EstimatorOptions struct {
	// Name is the processor's Options.Name (required).
	Name string
	// Leases is the processor's Options.Leases (required).
	Leases LeaseContainer
	// AccountHost is the processor's Options.AccountHost. Default: found as the processor does
	// (the estimator writes nothing: it never claims a store).
	AccountHost string
	// StartFrom must be the processor's Options.StartFrom: it says where leases without a
	// checkpoint start (StartFromNow leases count as caught up until their first read). Default:
	// StartFromNow(), as the processor's.
	StartFrom StartFrom
	// CountLimit bounds the changes counted per lease per estimate. Up to it, the estimate is
	// exact: the changes after the checkpoint are read (in pages of up to 1,000) and counted, as
	// the processor would deliver them (a document changed several times once), after splits
	// too. Past it, the rest is estimated from the partition's LSN (every write after the last
	// change counted). Reading costs request units in proportion to the changes read. Default:
	// DefaultCountLimit (1,000).
	CountLimit int
}

// DefaultCountLimit is the default EstimatorOptions.CountLimit.
const DefaultCountLimit = 1000

// NewEstimator returns an estimator for the processor opts.Name over monitored. Invalid options
// are a *cosmoserr.ValidationError naming the field; nothing is sent before Estimate.
func NewEstimator(monitored *azcosmos.ContainerClient, opts EstimatorOptions) (*Estimator, error) {
	if monitored == nil {
		return nil, invalid("monitored", "nil container")
	}
	if err := validateName(opts.Name); err != nil {
		return nil, err
	}
	if err := validateHost(opts.AccountHost); err != nil {
		return nil, err
	}
	if err := opts.Leases.validate(); err != nil {
		return nil, err
	}
	if opts.CountLimit < 0 {
		return nil, invalid("CountLimit", "negative")
	}
	if opts.CountLimit == 0 {
		opts.CountLimit = DefaultCountLimit
	}
	return &Estimator{monitored: monitored, opts: opts}, nil
}

// Options returns the options in effect.
func (e *Estimator) Options() EstimatorOptions { return e.opts }

// Estimator returns an estimator for p's leases.
func (p *Processor) Estimator() *Estimator {
	return &Estimator{monitored: p.monitored,
		opts: EstimatorOptions{Name: p.name, Leases: p.leaseContainer, StartFrom: p.opts.StartFrom, CountLimit: DefaultCountLimit, AccountHost: p.opts.AccountHost}}
}

func (e *Estimator) open(ctx context.Context) (*store, error) {
	e.once.Lock()
	defer e.once.Unlock()
	if e.store != nil {
		return e.store, nil
	}
	lc, err := e.opts.Leases.open(ctx)
	if err != nil {
		return nil, err
	}
	st, _, err := openStore(ctx, lc, e.monitored, e.opts.Name, e.opts.AccountHost, false, nil)
	if err != nil {
		return nil, err
	}
	e.store = st
	return e.store, nil
}

// Estimate returns every lease of the processor with its EstimatedLag. It reads the changes after
// each lease's checkpoint up to CountLimit (per child range for a lease whose range was split and
// not yet replaced).
func (e *Estimator) Estimate(ctx context.Context) ([]LeaseState, error) {
	st, err := e.open(ctx)
	if err != nil {
		return nil, err
	}
	all, err := st.list(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]LeaseState, 0, len(all))
	for _, l := range all {
		s := l.state()
		if s.EstimatedLag, err = e.lag(ctx, s.FeedRange, s.ContinuationToken, 0); err != nil {
			return nil, fmt.Errorf("changefeed: estimating lease %s: %w", s.LeaseToken, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// Total returns the sum of the leases' estimated lags.
func (e *Estimator) Total(ctx context.Context) (int64, error) {
	states, err := e.Estimate(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, s := range states {
		n += s.EstimatedLag
	}
	return n, nil
}

// lag counts the changes in r after etag: by reading them, in pages, up to CountLimit; past it,
// what follows the last change counted is estimated from LSNs.
func (e *Estimator) lag(ctx context.Context, r azcosmos.FeedRange, etag string, depth int) (int64, error) {
	if etag == "" && e.opts.StartFrom.IsNow() {
		return 0, nil
	}
	token := buildToken(r, etag)
	var counted, lastLSN int64
	for first := true; ; first = false {
		page := int32(min(countPage, int64(e.opts.CountLimit)-counted))
		opts := azcosmos.ChangeFeedOptions{MaxItemCount: page, Continuation: &token}
		if t, ok := e.opts.StartFrom.Time(); ok && etag == "" && first {
			opts.StartFrom = &t
		}
		resp, err := e.monitored.ReadChangeFeed(ctx, &opts)
		if err != nil {
			return 0, cosmoserr.FromError(cosmoserr.OpReadChangeFeed, err)
		}
		ranges, err := parseToken(resp.ContinuationToken)
		if err != nil {
			return 0, err
		}
		if len(ranges) > 1 && depth < 3 {
			// r was split since the checkpoint: count each child from the same position (the
			// service answered from the first child only; nothing of this page is counted twice).
			if counted > 0 {
				return 0, fmt.Errorf("changefeed: range %s split while being counted", leaseToken(r))
			}
			var sum int64
			for _, c := range ranges {
				n, err := e.lag(ctx, c.feedRange(), etag, depth+1)
				if err != nil {
					return 0, err
				}
				sum += n
			}
			return sum, nil
		}
		if len(resp.Items) == 0 {
			return counted, nil // caught up: the count is exact
		}
		counted += int64(len(resp.Items))
		lastLSN = itemLSN(resp.Items[len(resp.Items)-1])
		token = resp.ContinuationToken
		if counted >= int64(e.opts.CountLimit) {
			// The rest is estimated: every write after the last change counted.
			if resp.RawResponse != nil && lastLSN > 0 {
				if cur, ok := sessionLSN(resp.RawResponse.Header); ok {
					return counted + max(0, cur-lastLSN), nil
				}
			}
			return counted, nil
		}
	}
}

// countPage is the page size of the estimator's counting reads.
const countPage = 1000

// RegisterGauge registers the observable gauge cosmoskit.changefeed.estimated_lag (per lease,
// attribute cosmoskit.changefeed.lease) on mp: each collection runs Estimate, bounded by timeout
// (0: 10 s). Unregister the returned registration when done.
func (e *Estimator) RegisterGauge(mp metric.MeterProvider, timeout time.Duration) (metric.Registration, error) {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	meter := mp.Meter("github.com/cosmoskit/cosmoskit-go/changefeed")
	g, err := meter.Int64ObservableGauge("cosmoskit.changefeed.estimated_lag", metric.WithUnit("{change}"),
		metric.WithDescription("Estimated changes after each lease's checkpoint."))
	if err != nil {
		return nil, err
	}
	base := attribute.String("cosmoskit.changefeed.processor", e.opts.Name)
	return meter.RegisterCallback(func(ctx context.Context, obs metric.Observer) error {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		states, err := e.Estimate(ctx)
		if err != nil {
			return err
		}
		for _, s := range states {
			obs.ObserveInt64(g, s.EstimatedLag, metric.WithAttributes(base, attribute.String("cosmoskit.changefeed.lease", s.LeaseToken)))
		}
		return nil
	}, g)
}
