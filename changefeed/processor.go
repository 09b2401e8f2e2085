package changefeed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// LeaseContainer says where a processor keeps its leases: a ready container (Leases) or one
// provisioned on Start if missing (EnsureLeases). Any container partitioned by /id works; several
// processors and monitored containers can share one (lease ids start with the processor name and
// name the monitored container).
type LeaseContainer struct {
	c        *azcosmos.ContainerClient
	client   *cosmoskit.Client
	database string
	id       string
}

// Leases uses c, which must exist and be partitioned by /id.
func Leases(c *azcosmos.ContainerClient) LeaseContainer { return LeaseContainer{c: c} }

// EnsureLeases provisions the container id in database with client.EnsureContainer on Start
// (partitioned by /id, no type indexes) if it is missing, and uses it.
func EnsureLeases(client *cosmoskit.Client, database, id string) LeaseContainer {
	return LeaseContainer{client: client, database: database, id: id}
}

func (lc LeaseContainer) open(ctx context.Context) (*azcosmos.ContainerClient, error) {
	if lc.c != nil {
		props, err := lc.c.Read(ctx, nil)
		if err != nil {
			return nil, diagnostics.FromError(diagnostics.OpReadContainer, err)
		}
		if paths := props.ContainerProperties.PartitionKeyDefinition.Paths; len(paths) != 1 || paths[0] != "/id" {
			return nil, invalid("leases", fmt.Sprintf("container %s is partitioned by %v; a lease container must be partitioned by /id", lc.c.ID(), paths))
		}
		return lc.c, nil
	}
	return lc.client.EnsureContainer(ctx, lc.database, cosmoskit.ContainerSpec{
		ID: lc.id, PartitionKeyPaths: []string{"/id"}, DisableTypeCompositeIndexes: true,
	})
}

// Processor is a change feed processor: instances sharing a name and a lease container split the
// monitored container's feed ranges between them (one lease per range), each reading its leases'
// changes and handing them to the handler in batches, checkpointing after each. It follows the
// .NET and Java processors: lease documents with their field names, equal-partitions balancing,
// leases of dead instances taken over after they expire, and splits handled by replacing a lease
// with its children. A Processor runs once: New, Start, Stop.
type Processor struct {
	name, instance string
	monitored      *azcosmos.ContainerClient
	leaseContainer LeaseContainer
	handler        Handler
	opts           Options

	mu      sync.Mutex
	state   int // 0 new, 1 starting, 2 running, 3 stopped
	owned   map[string]*owned
	store   *store
	metrics *metrics

	runCtx     context.Context // cancelled by Stop: reads, polls and balancing end
	runCancel  context.CancelFunc
	hardCtx    context.Context // cancelled when Stop's context ends: handlers too
	hardCancel context.CancelFunc
	kick       chan struct{}
	loops      sync.WaitGroup // balancer
	workers    sync.WaitGroup
	renewStop  chan struct{}
	renewDone  chan struct{}
}

// owned is a lease this instance holds.
type owned struct {
	mu   sync.Mutex // serializes writes of the lease document (renew, checkpoint, release, split)
	l    *lease
	rng  azcosmos.FeedRange
	tok  string
	ctx  context.Context // cancelled when the lease is lost or the processor stops
	lose context.CancelFunc
	done chan struct{} // closed when its worker has returned

	lost      atomic.Bool
	stopped   error  // *PoisonError; under mu
	delivered uint64 // seq of the last delivered batch; worker only
	cpSeq     uint64 // seq of the last checkpointed batch; under mu
	lag       atomic.Int64
}

// New returns a processor named name (the lease ids' prefix, shared by its instances) for the
// instance instance (unique among them, e.g. the host name), reading monitored's change feed,
// keeping leases in leases, and handing batches to handler. Invalid arguments are a
// *ValidationError; nothing is sent before Start.
func New(name, instance string, monitored *azcosmos.ContainerClient, leases LeaseContainer, handler Handler, opts Options) (*Processor, error) {
	switch {
	case name == "":
		return nil, invalid("name", "empty")
	case len(name) > 100:
		return nil, invalid("name", "longer than 100 characters")
	case strings.ContainsAny(name, `/\#?`):
		return nil, invalid("name", `contains one of / \ # ? (not allowed in a document id)`)
	case instance == "":
		return nil, invalid("instance", "empty")
	case monitored == nil:
		return nil, invalid("monitored", "nil container")
	case leases.c == nil && leases.client == nil:
		return nil, invalid("leases", "no lease container (use Leases or EnsureLeases)")
	case leases.c == nil && (leases.database == "" || leases.id == ""):
		return nil, invalid("leases", "EnsureLeases needs a database and a container id")
	case handler == nil:
		return nil, invalid("handler", "nil")
	}
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return &Processor{name: name, instance: instance, monitored: monitored, leaseContainer: leases,
		handler: handler, opts: opts, owned: map[string]*owned{}, kick: make(chan struct{}, 1)}, nil
}

// Options returns the options in effect, defaults filled in.
func (p *Processor) Options() Options { return p.opts }

// Name returns the processor name; Instance the instance name.
func (p *Processor) Name() string { return p.name }

// Instance returns the instance name.
func (p *Processor) Instance() string { return p.instance }

// Start provisions the lease container if asked to, creates the leases (one per feed range of the
// monitored container) if this is the processor's first start, and starts balancing and
// processing in the background. ctx bounds this setup only; the processor runs until Stop.
func (p *Processor) Start(ctx context.Context) error {
	p.mu.Lock()
	if p.state != 0 {
		p.mu.Unlock()
		return ErrStarted
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
	props, err := p.monitored.Read(ctx, nil)
	if err != nil {
		return fail(diagnostics.FromError(diagnostics.OpReadContainer, err))
	}
	st := &store{c: lc, ids: newIDs(p.name, props.ContainerProperties.ResourceID), now: time.Now}
	for {
		done, err := st.bootstrap(ctx, p.monitored, p.instance)
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
	p.runCtx, p.runCancel = context.WithCancel(context.WithoutCancel(ctx))
	p.hardCtx, p.hardCancel = context.WithCancel(context.WithoutCancel(ctx))
	p.renewStop, p.renewDone = make(chan struct{}), make(chan struct{})
	p.mu.Unlock()
	p.loops.Add(1)
	go p.balanceLoop()
	go p.renewLoop()
	return nil
}

// Stop stops the processor gracefully: no new batches are read, batches being handled finish
// and are checkpointed, then the leases are released so other instances take them at once. If
// ctx ends first, handlers' contexts are cancelled, Stop waits for them to return, and the
// leases left unreleased expire after LeaseExpirationInterval. No goroutine of the processor
// outlives Stop. Stop on a processor not started, or stopped, does nothing.
func (p *Processor) Stop(ctx context.Context) error {
	p.mu.Lock()
	if p.state != 2 {
		p.mu.Unlock()
		return nil
	}
	p.state = 3
	p.mu.Unlock()
	p.runCancel()
	done := make(chan struct{})
	go func() {
		p.loops.Wait()
		p.workers.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		p.hardCancel()
		<-done
	}
	close(p.renewStop)
	<-p.renewDone
	p.mu.Lock()
	held := slices.Collect(maps.Values(p.owned))
	p.owned = map[string]*owned{}
	p.mu.Unlock()
	for _, o := range held {
		if rerr := p.release(ctx, o); rerr != nil && err == nil && !errors.Is(rerr, ErrLeaseLost) {
			err = rerr
		}
	}
	p.hardCancel()
	p.metrics.close()
	return err
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

// balanceLoop runs a balancing round every LeaseAcquireInterval (and at once when kicked, after a
// split created child leases) until Stop.
func (p *Processor) balanceLoop() {
	defer p.loops.Done()
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-p.runCtx.Done():
			return
		case <-t.C:
		case <-p.kick:
		}
		p.balanceOnce(p.runCtx)
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(p.opts.LeaseAcquireInterval)
	}
}

func (p *Processor) kickBalance() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// balanceOnce lists the leases and takes this instance's share.
func (p *Processor) balanceOnce(ctx context.Context) {
	all, err := p.store.list(ctx)
	if err != nil {
		if ctx.Err() == nil {
			p.report("", fmt.Errorf("changefeed: listing leases: %w", err))
		}
		return
	}
	now := p.store.now()
	p.mu.Lock()
	for _, l := range all {
		if _, mine := p.owned[l.ID]; mine { // trust our own view of leases we hold
			me := p.instance
			l.Owner, l.Timestamp = &me, now
		}
	}
	p.mu.Unlock()
	pl := balance(all, p.instance, now, p.opts.LeaseExpirationInterval, p.opts.MinLeases, p.opts.MaxLeases)
	exp := p.opts.LeaseExpirationInterval
	for _, l := range pl.take {
		p.acquire(ctx, l, func(cur *lease) bool { return cur.expired(p.store.now(), exp) })
	}
	if v := pl.steal; v != nil {
		victim := v.owner()
		p.acquire(ctx, v, func(cur *lease) bool { return cur.owner() == victim || cur.expired(p.store.now(), exp) })
	}
}

// acquire takes lease l if ok still holds for its current version, and starts its worker.
func (p *Processor) acquire(ctx context.Context, l *lease, ok func(*lease) bool) {
	me := p.instance
	// Not ctx: Stop must not cancel a replace the service may already have applied, or the lease
	// would stay owned (until it expires) by an instance that never learnt it won it.
	nl, err := p.store.update(p.hardCtx, l, func(cur *lease) error {
		if !ok(cur) {
			return fmt.Errorf("%w: another instance took lease %s first", ErrLeaseLost, cur.LeaseToken)
		}
		cur.Owner = &me
		return nil
	})
	if err != nil {
		if !errors.Is(err, ErrLeaseLost) && ctx.Err() == nil {
			p.report(l.LeaseToken, fmt.Errorf("changefeed: acquiring lease: %w", err))
		}
		return
	}
	octx, cancel := context.WithCancel(p.runCtx)
	o := &owned{l: nl, rng: nl.feedRange(), tok: nl.LeaseToken, ctx: octx, lose: cancel, done: make(chan struct{})}
	p.mu.Lock()
	if p.state != 2 || p.owned[nl.ID] != nil {
		p.mu.Unlock()
		cancel()
		// Stopping: give it back at once rather than let it expire.
		_ = p.release(context.WithoutCancel(ctx), o)
		return
	}
	p.owned[nl.ID] = o
	p.workers.Add(1)
	p.mu.Unlock()
	p.opts.Logger.Debug("changefeed: lease acquired", "processor", p.name, "instance", p.instance, "lease", o.tok)
	if p.opts.OnLeaseAcquired != nil {
		p.opts.OnLeaseAcquired(o.tok)
	}
	go p.work(o)
}

// drop forgets a lease this instance no longer holds (lost or split).
func (p *Processor) drop(o *owned) {
	p.mu.Lock()
	cur, ok := p.owned[o.l.ID]
	if ok && cur == o {
		delete(p.owned, o.l.ID)
	}
	p.mu.Unlock()
	o.lose()
	if ok && cur == o {
		p.opts.Logger.Debug("changefeed: lease released", "processor", p.name, "instance", p.instance, "lease", o.tok)
		if p.opts.OnLeaseReleased != nil {
			p.opts.OnLeaseReleased(o.tok)
		}
	}
}

// release gives lease o up (Owner null), keeping its checkpoint.
func (p *Processor) release(ctx context.Context, o *owned) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lost.Store(true) // manual checkpoints of its batches now fail with ErrLeaseLost
	me := p.instance
	_, err := p.store.update(ctx, o.l, func(cur *lease) error {
		if cur.owner() != me {
			return fmt.Errorf("%w: lease %s is owned by another instance", ErrLeaseLost, cur.LeaseToken)
		}
		cur.Owner = nil
		return nil
	})
	if p.opts.OnLeaseReleased != nil {
		p.opts.OnLeaseReleased(o.tok)
	}
	return err
}

// renewLoop renews every held lease each LeaseRenewInterval until Stop has released them.
func (p *Processor) renewLoop() {
	defer close(p.renewDone)
	t := time.NewTicker(p.opts.LeaseRenewInterval)
	defer t.Stop()
	for {
		select {
		case <-p.renewStop:
			return
		case <-t.C:
		}
		p.mu.Lock()
		held := slices.Collect(maps.Values(p.owned))
		p.mu.Unlock()
		for _, o := range held {
			if o.lost.Load() {
				continue
			}
			if err := p.touch(p.hardCtx, o, nil); err != nil {
				if errors.Is(err, ErrLeaseLost) {
					p.drop(o)
				} else if p.hardCtx.Err() == nil {
					p.report(o.tok, fmt.Errorf("changefeed: renewing lease: %w", err))
				}
			}
		}
	}
}

// touch writes lease o (renewing its timestamp) with change applied, if this instance still owns
// it. A lost lease is marked lost (its worker stops) and ErrLeaseLost returned.
func (p *Processor) touch(ctx context.Context, o *owned, change func(*lease)) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	me := p.instance
	nl, err := p.store.update(ctx, o.l, func(cur *lease) error {
		if cur.owner() != me {
			return fmt.Errorf("%w: lease %s is now owned by %q", ErrLeaseLost, cur.LeaseToken, cur.owner())
		}
		if change != nil {
			change(cur)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrLeaseLost) {
			o.lost.Store(true)
			o.lose()
		}
		return err
	}
	o.l = nl
	return nil
}

// checkpoint records etag as lease o's continuation, for the batch seq (0: not a batch).
func (p *Processor) checkpoint(ctx context.Context, o *owned, etag string, seq uint64) error {
	if o.lost.Load() {
		return fmt.Errorf("%w: lease %s", ErrLeaseLost, o.tok)
	}
	o.mu.Lock()
	stale := seq != 0 && seq <= o.cpSeq
	o.mu.Unlock()
	if stale {
		return nil
	}
	err := p.touch(ctx, o, func(cur *lease) { cur.ContinuationToken = &etag })
	if err == nil && seq != 0 {
		o.mu.Lock()
		o.cpSeq = max(o.cpSeq, seq)
		o.mu.Unlock()
	}
	return err
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
	p.mu.Unlock()
	p.runCancel()
	p.hardCancel()
	close(p.renewStop)
	<-p.renewDone
	p.loops.Wait()
	p.workers.Wait()
	p.metrics.close()
}
