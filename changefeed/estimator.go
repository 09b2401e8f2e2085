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

// Estimator estimates how far a processor's leases are behind, like the .NET change feed
// estimator: per lease, it reads one change after the lease's checkpoint and subtracts that
// change's _lsn from the partition's current LSN (from the session token). It only reads: run it
// anywhere, with or without the processor. Estimates count every write since the checkpoint, so
// an item changed several times counts several times although the latest-version feed delivers it
// once; 0 means caught up.
type Estimator struct {
	name      string
	monitored *azcosmos.ContainerClient
	leases    LeaseContainer
	start     StartFrom

	once  sync.Mutex
	store *store
}

// NewEstimator returns an estimator for the processor name over monitored with its leases in
// leases. start must be the processor's Options.StartFrom: it says where leases without a
// checkpoint start (StartFromNow leases count as caught up until their first read).
func NewEstimator(name string, monitored *azcosmos.ContainerClient, leases LeaseContainer, start StartFrom) (*Estimator, error) {
	switch {
	case name == "":
		return nil, invalid("name", "empty")
	case monitored == nil:
		return nil, invalid("monitored", "nil container")
	case leases.c == nil && leases.client == nil:
		return nil, invalid("leases", "no lease container (use Leases or EnsureLeases)")
	}
	return &Estimator{name: name, monitored: monitored, leases: leases, start: start}, nil
}

// Estimator returns an estimator for p's leases.
func (p *Processor) Estimator() *Estimator {
	return &Estimator{name: p.name, monitored: p.monitored, leases: p.leaseContainer, start: p.opts.StartFrom}
}

func (e *Estimator) open(ctx context.Context) (*store, error) {
	e.once.Lock()
	defer e.once.Unlock()
	if e.store != nil {
		return e.store, nil
	}
	lc, err := e.leases.open(ctx)
	if err != nil {
		return nil, err
	}
	props, err := e.monitored.Read(ctx, nil)
	if err != nil {
		return nil, cosmoserr.FromError(cosmoserr.OpReadContainer, err)
	}
	e.store = &store{c: lc, ids: newIDs(e.name, props.ContainerProperties.ResourceID), now: time.Now}
	return e.store, nil
}

// Estimate returns every lease of the processor with its EstimatedLag, reading one change per
// lease (per child range for a lease whose range was split and not yet replaced).
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

func (e *Estimator) lag(ctx context.Context, r azcosmos.FeedRange, etag string, depth int) (int64, error) {
	if etag == "" && e.start.IsNow() {
		return 0, nil
	}
	token := buildToken(r, etag)
	opts := azcosmos.ChangeFeedOptions{MaxItemCount: 1, Continuation: &token}
	if t, ok := e.start.Time(); ok && etag == "" {
		opts.StartFrom = &t
	}
	resp, err := e.monitored.ReadChangeFeed(ctx, &opts)
	if err != nil {
		return 0, cosmoserr.FromError(cosmoserr.OpReadChangeFeed, err)
	}
	if ranges, err := parseToken(resp.ContinuationToken); err == nil && len(ranges) > 1 && depth < 3 {
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
		return 0, nil
	}
	first := itemLSN(resp.Items[0])
	cur, ok := int64(0), false
	if resp.RawResponse != nil {
		cur, ok = sessionLSN(resp.RawResponse.Header)
	}
	if !ok || first <= 0 {
		return 1, nil // something is pending, but how much is unknown
	}
	return max(1, cur-first+1), nil
}

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
	base := attribute.String("cosmoskit.changefeed.processor", e.name)
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
