package changefeed

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// drop forgets a lease this instance no longer holds (lost or split).
func (p *Processor) drop(o *owned) {
	p.mu.Lock()
	cur, ok := p.owned[o.l.ID]
	if ok && cur == o {
		delete(p.owned, o.l.ID)
	}
	p.mu.Unlock()
	o.stopRenew()
	o.cancelRead()
	o.cancelH()
	if ok && cur == o {
		p.opts.Logger.Debug("changefeed: lease released", "processor", p.name, "instance", p.instance, "lease", o.tok)
		if p.opts.OnLeaseReleased != nil {
			p.opts.OnLeaseReleased(o.tok)
		}
	}
}

// lose marks lease o lost (another instance owns it, or it was deleted): its reads stop, its
// handler's context is cancelled, and the loss is reported to OnError once, as err (matching
// cosmoserr.ErrLeaseLost). Its worker then drops it.
func (p *Processor) lose(o *owned, err error) {
	if !o.lost.CompareAndSwap(false, true) {
		return
	}
	o.cancelRead()
	o.cancelH()
	o.stopRenew()
	if p.hardCtx.Err() == nil {
		p.report(o.tok, err)
	}
}

// release gives lease o up (Owner null), keeping its checkpoint.
func (p *Processor) release(ctx context.Context, o *owned) error {
	o.stopRenew() // and cancel a renewal in flight, which holds o.mu
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lost.Store(true) // manual checkpoints of its batches now fail with cosmoserr.ErrLeaseLost
	me := p.instance
	_, err := p.store.update(ctx, o.l, func(cur *lease) error {
		if cur.owner() != me {
			return fmt.Errorf("%w: lease %s is owned by another instance", cosmoserr.ErrLeaseLost, cur.LeaseToken)
		}
		cur.Owner = nil
		return nil
	})
	if p.opts.OnLeaseReleased != nil {
		p.opts.OnLeaseReleased(o.tok)
	}
	return err
}

// renew renews lease o every LeaseRenewInterval until it is released, dropped or lost, or Stop's
// context ends. Each lease has its own renewer (as in .NET), so a renewal that hangs delays only
// its own lease.
func (p *Processor) renew(o *owned) {
	defer p.renewers.Done()
	t := time.NewTicker(p.opts.LeaseRenewInterval)
	defer t.Stop()
	for {
		select {
		case <-o.rctx.Done():
			return
		case <-t.C:
		}
		if o.lost.Load() {
			return
		}
		if err := p.touch(o.rctx, o, nil); err != nil && !errors.Is(err, cosmoserr.ErrLeaseLost) && o.rctx.Err() == nil {
			p.report(o.tok, fmt.Errorf("changefeed: renewing lease: %w", err))
		}
	}
}

// touch writes lease o (renewing its timestamp) with change applied, if this instance still owns
// it. A lost lease is marked lost (see lose) and an error matching cosmoserr.ErrLeaseLost returned.
func (p *Processor) touch(ctx context.Context, o *owned, change func(*lease)) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	me := p.instance
	nl, err := p.store.update(ctx, o.l, func(cur *lease) error {
		if cur.owner() != me {
			return fmt.Errorf("%w: lease %s is now owned by %q", cosmoserr.ErrLeaseLost, cur.LeaseToken, cur.owner())
		}
		if change != nil {
			change(cur)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, cosmoserr.ErrLeaseLost) {
			p.lose(o, fmt.Errorf("changefeed: %w", err))
		}
		return err
	}
	o.l = nl
	return nil
}

// checkpoint records etag as lease o's continuation, for the batch seq (0: not a batch).
func (p *Processor) checkpoint(ctx context.Context, o *owned, etag string, seq uint64) error {
	if o.lost.Load() {
		return fmt.Errorf("%w: lease %s", cosmoserr.ErrLeaseLost, o.tok)
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
