package changefeed

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

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
		p.balancing.Store(true)
		p.balanceOnce(p.runCtx)
		p.balancing.Store(false)
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
	me := p.instance
	var resume []*lease
	p.mu.Lock()
	for _, l := range all {
		if _, held := p.owned[l.ID]; held { // trust our own view of leases we hold
			l.Owner, l.Timestamp = &me, leaseTime{now}
		} else if l.owner() == me {
			resume = append(resume, l)
		}
	}
	p.mu.Unlock()
	// Leases the store says are ours but we do not process: this instance restarted under the
	// same name (a crash, a StatefulSet pod). Resume them at once rather than wait for them to
	// expire (.NET's PartitionControllerCore.InitializeAsync → LoadLeasesAsync). They count as ours
	// in the balance below.
	for _, l := range resume {
		p.acquire(ctx, l, func(cur *lease) bool {
			return cur.owner() == me || cur.expired(p.store.now(), p.opts.LeaseExpirationInterval)
		})
	}
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
			return fmt.Errorf("%w: another instance took lease %s first", cosmoserr.ErrLeaseLost, cur.LeaseToken)
		}
		cur.Owner = &me
		return nil
	})
	if err != nil {
		if !errors.Is(err, cosmoserr.ErrLeaseLost) && ctx.Err() == nil {
			p.report(l.LeaseToken, fmt.Errorf("changefeed: acquiring lease: %w", err))
		}
		return
	}
	o := p.newOwned(nl)
	p.mu.Lock()
	if p.state != 2 || p.owned[nl.ID] != nil {
		p.mu.Unlock()
		// Stopping: give it back at once rather than let it expire.
		_ = p.release(context.WithoutCancel(ctx), o)
		o.cancelRead()
		o.cancelH()
		return
	}
	p.owned[nl.ID] = o
	p.workers.Add(1)
	p.renewers.Add(1)
	p.mu.Unlock()
	go p.renew(o)
	p.opts.Logger.Debug("changefeed: lease acquired", "processor", p.name, "instance", p.instance, "lease", o.tok)
	if p.opts.OnLeaseAcquired != nil {
		p.opts.OnLeaseAcquired(o.tok)
	}
	go p.work(o)
}

// newOwned returns the in-memory state of lease l, just acquired.
func (p *Processor) newOwned(l *lease) *owned {
	o := &owned{l: l, rng: l.feedRange(), tok: l.LeaseToken, done: make(chan struct{})}
	o.ctx, o.cancelRead = context.WithCancel(p.runCtx)
	o.hctx, o.cancelH = context.WithCancel(p.hardCtx)
	o.rctx, o.stopRenew = context.WithCancel(p.hardCtx)
	return o
}
