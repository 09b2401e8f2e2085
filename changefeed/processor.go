package changefeed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Processor is a change feed processor: it hands a container's changes to a handler in batches,
// checkpointing after each. Instances sharing a name and a lease container split the monitored
// container's feed ranges between them (one lease per range), each reading its leases' changes. It
// follows the .NET and Java processors: lease documents with their field names, equal-partitions
// balancing, leases of dead instances taken over after they expire, and splits handled by replacing
// a lease with its children. Run it with Run(ctx), or Start and Stop; it can run again after it
// stopped.
type Processor struct {
	name, instance string
	monitored      *azcosmos.ContainerClient
	leaseContainer LeaseContainer
	handler        Handler
	opts           Options

	mu       sync.Mutex
	state    int           // 0 idle (new or stopped), 1 starting, 2 running, 3 stopping
	stopping chan struct{} // closed when a stop begins
	finished chan struct{} // closed when every goroutine of the run has returned (state back to 0)
	unwatch  func() bool   // deregisters the stop on Start's context
	owned    map[string]*owned
	store    *store
	metrics  *metrics

	runCtx     context.Context // cancelled by Stop: reads, polls and balancing end
	runCancel  context.CancelFunc
	hardCtx    context.Context // cancelled when Stop's context ends: handlers too
	hardCancel context.CancelFunc
	kick       chan struct{}
	balancing  atomic.Bool    // a balancing round is running
	loops      sync.WaitGroup // balancer
	workers    sync.WaitGroup
	renewers   sync.WaitGroup // one per held lease
}

// owned is a lease this instance holds.
type owned struct {
	mu         sync.Mutex // serializes writes of the lease document (renew, checkpoint, release, split)
	l          *lease
	rng        azcosmos.FeedRange
	tok        string
	ctx        context.Context // reads and polls: cancelled when the lease is lost or the processor stops
	cancelRead context.CancelFunc
	hctx       context.Context // the handler's: cancelled when the lease is lost or Stop's context ends
	cancelH    context.CancelFunc
	rctx       context.Context // its renewer's: cancelled when the lease is released, dropped or Stop's context ends
	stopRenew  context.CancelFunc
	done       chan struct{} // closed when its worker has returned

	lost      atomic.Bool
	phase     atomic.Int32 // what its worker is doing: phaseReading, phaseHandling, ...
	stopped   error        // *PoisonError; under mu
	delivered uint64       // seq of the last delivered batch; worker only
	cpSeq     uint64       // seq of the last checkpointed batch; under mu
	lag       atomic.Int64
}

// New returns a processor reading monitored's change feed, configured by opts (Name, Instance,
// Leases and Handler are required). Invalid options are a *cosmoserr.ValidationError naming the
// field ("Options.Name", "monitored", ...); nothing is sent before Start or Run.
func New(monitored *azcosmos.ContainerClient, opts Options) (*Processor, error) {
	if monitored == nil {
		return nil, invalid("monitored", "nil container")
	}
	if err := validateName(opts.Name); err != nil {
		return nil, err
	}
	if err := validateHost(opts.AccountHost); err != nil {
		return nil, err
	}
	switch {
	case opts.Instance == "":
		return nil, invalid("Instance", "empty")
	case opts.Handler == nil:
		return nil, invalid("Handler", "nil")
	}
	if err := opts.Leases.validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return &Processor{name: opts.Name, instance: opts.Instance, monitored: monitored, leaseContainer: opts.Leases,
		handler: opts.Handler, opts: opts, owned: map[string]*owned{}, kick: make(chan struct{}, 1)}, nil
}

// validateName checks Options.Name (the processor's and the estimator's).
func validateName(name string) error {
	switch {
	case name == "":
		return invalid("Name", "empty")
	case len(name) > 100:
		return invalid("Name", "longer than 100 characters")
	case strings.ContainsAny(name, `/\#?`):
		return invalid("Name", `contains one of / \ # ? (not allowed in a document id)`)
	}
	return nil
}

// validateHost checks Options.AccountHost ("" or a host name, as in an endpoint's URL: RFC 1123
// labels, or an IP address): with anything else in it (a "_", a ".." or a "/") the lease ids
// would not be .NET's "{Name}{host}_{database rid}_{container rid}..{token}".
func validateHost(host string) error {
	if host == "" {
		return nil
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	if len(host) > 253 {
		return invalid("AccountHost", "longer than a host name (253 characters)")
	}
	for label := range strings.SplitSeq(host, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' ||
			strings.IndexFunc(label, notHostChar) >= 0 {
			return invalid("AccountHost", "not a host name (letters, digits and hyphens in dot-separated labels) nor an IP address")
		}
	}
	return nil
}

func notHostChar(r rune) bool {
	return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '-'
}

// Options returns the options in effect, defaults filled in.
func (p *Processor) Options() Options { return p.opts }

// Name returns the processor name; Instance the instance name.
func (p *Processor) Name() string { return p.name }

// Instance returns the instance name.
func (p *Processor) Instance() string { return p.instance }

// Start starts the processor: balancing and processing run in the background. It first provisions
// the lease container if asked to, and creates the leases (one per feed range of the monitored
// container) if this is the processor's first start. The processor runs until Stop, or until ctx
// ends: then it stops as Stop does with a context of Options.StopTimeout (so pass a context that
// lives as long as the processor should, not a setup timeout). A stopped processor can be started
// again (Start or Run) once its previous run has fully stopped; before that, Start returns an error
// matching cosmoserr.ErrStarted.
func (p *Processor) Start(ctx context.Context) error {
	if err := p.start(ctx); err != nil {
		return err
	}
	unwatch := context.AfterFunc(ctx, func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.opts.StopTimeout)
		defer cancel()
		if err := p.Stop(sctx); err != nil {
			p.report("", err)
		}
	})
	p.mu.Lock()
	p.unwatch = unwatch
	p.mu.Unlock()
	return nil
}

// Run starts the processor (as Start), blocks until ctx ends, then stops it gracefully (as Stop).
// The stop gets a context of Options.StopTimeout, and Run returns Stop's error (nil when every
// batch in flight finished and every lease was released). It returns early, with nil, when Stop is
// called from elsewhere and that stop has finished; it returns Start's error if the processor
// cannot start. Run again after it returned runs the processor again.
func (p *Processor) Run(ctx context.Context) error {
	if err := p.start(ctx); err != nil {
		return err
	}
	p.mu.Lock()
	stopping, finished := p.stopping, p.finished
	p.mu.Unlock()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.opts.StopTimeout)
		defer cancel()
		return p.Stop(sctx)
	case <-stopping:
		<-finished
		return nil
	}
}

func (p *Processor) start(ctx context.Context) error {
	p.mu.Lock()
	switch p.state {
	case 0:
	case 3:
		p.mu.Unlock()
		return fmt.Errorf("%w: the previous run is still stopping (a handler has not returned)", cosmoserr.ErrStarted)
	default:
		p.mu.Unlock()
		return cosmoserr.ErrStarted
	}
	p.state = 1
	p.mu.Unlock()
	fail := func(err error) error {
		p.mu.Lock()
		p.state = 0
		p.mu.Unlock()
		return err
	}
	lc, err := p.leaseContainer.open(ctx)
	if err != nil {
		return fail(err)
	}
	st, legacy, err := openStore(ctx, lc, p.monitored, p.name, p.opts.AccountHost, true, p.opts.Logger)
	if err != nil {
		return fail(err)
	}
	for {
		done, err := st.bootstrap(ctx, p.monitored, legacy)
		if err != nil {
			return fail(err)
		}
		if done {
			break
		}
		select {
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-time.After(min(p.opts.LeaseAcquireInterval, time.Second)):
		}
	}
	m, err := newMetrics(p)
	if err != nil {
		return fail(err)
	}
	p.mu.Lock()
	p.store, p.metrics, p.state = st, m, 2
	p.owned = map[string]*owned{}
	p.stopping, p.finished, p.unwatch = make(chan struct{}), make(chan struct{}), nil
	p.runCtx, p.runCancel = context.WithCancel(context.WithoutCancel(ctx))
	p.hardCtx, p.hardCancel = context.WithCancel(context.WithoutCancel(ctx))
	p.mu.Unlock()
	p.loops.Add(1)
	go p.balanceLoop()
	return nil
}

// Stop stops the processor gracefully: no new batches are read, batches being handled finish
// and are checkpointed, then the leases are released so other instances take them at once.
//
// Stop returns by ctx's deadline. If ctx ends first, the handlers' contexts are cancelled and Stop
// returns an error matching ctx.Err() that names what it leaves behind, lease by lease: the
// handlers still running (their batches are not checkpointed and will be delivered again), the
// leases still being checkpointed, split or read (their handlers have returned), and the leases
// not released (other instances take them when they expire, after LeaseExpirationInterval). The
// processor's goroutines end when those handlers return; a further Stop waits for that (bounded
// by its own context), and the processor can be started again once they have.
//
// Stop on a processor not started, or stopped, does nothing.
func (p *Processor) Stop(ctx context.Context) error {
	p.mu.Lock()
	switch p.state {
	case 2:
	case 3:
		finished := p.finished
		p.mu.Unlock()
		select {
		case <-finished:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("changefeed: stopping processor %s: %w: handlers of the previous stop are still running", p.name, ctx.Err())
		}
	default:
		p.mu.Unlock()
		return nil
	}
	p.state = 3
	close(p.stopping)
	unwatch := p.unwatch
	p.mu.Unlock()
	if unwatch != nil {
		unwatch()
	}
	p.runCancel()
	done := make(chan struct{})
	go func() {
		p.loops.Wait()
		p.workers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		// Cancel the handlers and return now: what is still running finishes in the background.
		p.hardCancel()
		left := p.leftBehind()
		go func() {
			<-done
			p.finish()
		}()
		return fmt.Errorf("changefeed: stopping processor %s: %w: %s", p.name, ctx.Err(), left)
	}
	p.mu.Lock()
	held := slices.Collect(maps.Values(p.owned))
	p.mu.Unlock()
	var err error
	for _, o := range held {
		if rerr := p.release(ctx, o); rerr != nil && err == nil && !errors.Is(rerr, cosmoserr.ErrLeaseLost) {
			err = rerr
		}
	}
	p.finish()
	return err
}

// leftBehind describes what a Stop whose context ended leaves running: each lease's worker that
// has not returned, by what it is doing (only those in the handler are "handlers still running"),
// the balancer if it is still taking or giving back a lease, and the leases not released.
func (p *Processor) leftBehind() string {
	byPhase := map[int32][]string{}
	var held []string
	p.mu.Lock()
	for _, o := range p.owned {
		held = append(held, o.tok)
		select {
		case <-o.done:
		default:
			ph := o.phase.Load()
			byPhase[ph] = append(byPhase[ph], o.tok)
		}
	}
	p.mu.Unlock()
	var parts []string
	for _, c := range []struct {
		phase int32
		what  string
	}{
		{phaseHandling, "handlers still running on leases %q (their contexts are cancelled; their batches are not checkpointed)"},
		{phaseCheckpointing, "still checkpointing leases %q (their last batches may be delivered again)"},
		{phaseSplitting, "still splitting leases %q (the next start finishes the split)"},
		{phaseReading, "still reading the change feed of leases %q"},
		{phaseWaiting, "workers of leases %q still returning"},
	} {
		if toks := byPhase[c.phase]; len(toks) > 0 {
			slices.Sort(toks)
			parts = append(parts, fmt.Sprintf(c.what, toks))
		}
	}
	if p.balancing.Load() {
		parts = append(parts, "the balancer still listing, taking or giving back leases")
	}
	if len(held) > 0 {
		slices.Sort(held)
		parts = append(parts, fmt.Sprintf("leases %q not released (they expire after LeaseExpirationInterval)", held))
	}
	if len(parts) == 0 {
		parts = append(parts, "its goroutines still returning")
	}
	return strings.Join(parts, "; ")
}

// finish ends a run whose balancer and workers have returned: renewers stop, metrics are
// unregistered, and the processor can start again.
func (p *Processor) finish() {
	p.hardCancel()
	p.renewers.Wait()
	p.metrics.close()
	p.mu.Lock()
	p.owned = map[string]*owned{}
	p.state = 0
	close(p.finished)
	p.mu.Unlock()
}

// State returns the leases this instance holds.
func (p *Processor) State() []LeaseState {
	p.mu.Lock()
	held := slices.Collect(maps.Values(p.owned))
	p.mu.Unlock()
	out := make([]LeaseState, 0, len(held))
	for _, o := range held {
		o.mu.Lock()
		s := o.l.state()
		s.Stopped = o.stopped
		o.mu.Unlock()
		s.EstimatedLag = o.lag.Load()
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b LeaseState) int { return strings.Compare(a.LeaseToken, b.LeaseToken) })
	return out
}

// report hands err to OnError, or logs it.
func (p *Processor) report(token string, err error) {
	if p.opts.OnError != nil {
		p.opts.OnError(token, err)
		return
	}
	p.opts.Logger.Warn("changefeed: "+err.Error(), "processor", p.name, "instance", p.instance, "lease", token)
}

// sleep waits d, returning false early if done is closed.
func sleep(done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return false
	case <-t.C:
		return true
	}
}

// kill stops the processor as a crash would: goroutines end without releasing leases or
// checkpointing in-flight batches (tests use it to simulate a dead instance).
func (p *Processor) kill() {
	p.mu.Lock()
	if p.state != 2 {
		p.mu.Unlock()
		return
	}
	p.state = 3
	close(p.stopping)
	unwatch := p.unwatch
	p.mu.Unlock()
	if unwatch != nil {
		unwatch()
	}
	p.runCancel()
	p.hardCancel()
	p.loops.Wait()
	p.workers.Wait()
	p.finish()
}
