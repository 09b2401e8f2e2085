package changefeed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
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
				if errors.Is(err, cosmoserr.ErrLeaseLost) {
					p.drop(o)
				} else if p.hardCtx.Err() == nil {
					p.report(o.tok, fmt.Errorf("changefeed: renewing lease: %w", err))
				}
			}
		}
	}
}

// touch writes lease o (renewing its timestamp) with change applied, if this instance still owns
// it. A lost lease is marked lost (its worker stops) and cosmoserr.ErrLeaseLost returned.
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
