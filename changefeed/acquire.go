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
