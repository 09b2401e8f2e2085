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

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
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
			return nil, cosmoserr.FromError(cosmoserr.OpReadContainer, err)
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
// *cosmoserr.ValidationError; nothing is sent before Start.
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
	props, err := p.monitored.Read(ctx, nil)
	if err != nil {
		return fail(cosmoserr.FromError(cosmoserr.OpReadContainer, err))
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
		if rerr := p.release(ctx, o); rerr != nil && err == nil && !errors.Is(rerr, cosmoserr.ErrLeaseLost) {
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
