package changefeed

import (
	"errors"
	"fmt"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/epk"
)

// work processes lease o until it is lost, split, stopped on a poison batch, or the processor
// stops: read a page from the lease's position, hand it to the handler (again after a backoff
// until it succeeds), checkpoint, and poll again after PollInterval when nothing was new.
func (p *Processor) work(o *owned) {
	defer p.workers.Done()
	defer close(o.done)
	exit := p.process(o)
	switch {
	case exit == exitPoison:
		// Keep the lease (renewed, unread past the batch) so no other instance spins on it.
	case o.lost.Load() || exit == exitSplit:
		p.drop(o)
	}
}

type exitReason int

const (
	exitStop exitReason = iota
	exitLost
	exitSplit
	exitPoison
	exitDelivered
)

func (p *Processor) process(o *owned) exitReason {
	o.mu.Lock()
	pos := o.l.continuation()
	o.mu.Unlock()
	start, hasTime := p.opts.StartFrom.Time()
	if pos == "" && p.opts.StartFrom.IsNow() {
		pos = startNow
	}
	backoff := p.opts.RetryBackoff
	fail := func(err error) bool {
		if o.ctx.Err() != nil {
			return false
		}
		p.report(o.tok, err)
		o.phase.Store(phaseWaiting)
		ok := sleep(o.ctx.Done(), backoff)
		backoff = min(2*backoff, p.opts.MaxRetryBackoff)
		return ok
	}
	for {
		if o.ctx.Err() != nil {
			return p.why(o)
		}
		token := buildToken(o.rng, pos)
		cfo := azcosmos.ChangeFeedOptions{MaxItemCount: int32(p.opts.MaxItems), Continuation: &token}
		if pos == "" && hasTime {
			cfo.StartFrom = &start
		}
		o.phase.Store(phaseReading)
		resp, err := p.monitored.ReadChangeFeed(o.ctx, &cfo)
		if err != nil {
			if !fail(fmt.Errorf("changefeed: reading lease %s: %w", o.tok, cosmoserr.FromError(cosmoserr.OpReadChangeFeed, err))) {
				return p.why(o)
			}
			continue
		}
		ranges, err := parseToken(resp.ContinuationToken)
		if err != nil {
			if !fail(fmt.Errorf("changefeed: reading lease %s: %w", o.tok, err)) {
				return p.why(o)
			}
			continue
		}
		if len(ranges) > 1 {
			// The range was split: the SDK expanded it into its children. Hand the lease over to
			// child leases starting at its checkpoint, without delivering what was just read
			// (the children's workers read it), so nothing is lost and nothing extra repeated.
			o.phase.Store(phaseSplitting)
			if err := p.split(o, ranges); err != nil {
				if !fail(fmt.Errorf("changefeed: splitting lease %s: %w", o.tok, err)) {
					return p.why(o)
				}
				continue
			}
			return exitSplit
		}
		backoff = p.opts.RetryBackoff
		next := ranges[0].etag()
		lag := int64(0)
		if n := len(resp.Items); n > 0 && resp.RawResponse != nil {
			if cur, ok := sessionLSN(resp.RawResponse.Header); ok {
				lag = max(0, cur-itemLSN(resp.Items[n-1]))
			}
		}
		o.lag.Store(lag)
		if len(resp.Items) > 0 {
			o.delivered++
			b := Batch{LeaseToken: o.tok, FeedRange: o.rng, Items: resp.Items, RequestCharge: resp.RequestCharge,
				Lag: lag, cp: o, p: p, etag: next, seq: o.delivered}
			r := p.deliver(o, &b)
			o.phase.Store(phaseWaiting)
			switch r {
			case exitStop, exitLost, exitPoison:
				return r
			}
		}
		pos = next
		o.mu.Lock()
		clean := o.cpSeq == o.delivered
		cur := o.l.continuation()
		o.mu.Unlock()
		// After a batch, checkpoint it (auto mode); after an empty page, persist the position if
		// everything delivered is checkpointed (seq 0: not a batch, never stale).
		seq := uint64(0)
		if len(resp.Items) > 0 {
			seq = o.delivered
		}
		if next != "" && next != cur && (!p.opts.ManualCheckpoint || clean) {
			o.phase.Store(phaseCheckpointing)
			if err := p.checkpoint(p.hardCtx, o, next, seq); err != nil {
				if errors.Is(err, cosmoserr.ErrLeaseLost) {
					return exitLost
				}
				if p.hardCtx.Err() == nil {
					p.report(o.tok, fmt.Errorf("changefeed: checkpointing lease %s: %w", o.tok, err))
				}
			}
		}
		o.phase.Store(phaseWaiting)
		if len(resp.Items) == 0 && !sleep(o.ctx.Done(), p.opts.PollInterval) {
			return p.why(o)
		}
	}
}

// What a lease's worker is doing (owned.phase), for Stop's account of what it leaves behind.
const (
	phaseWaiting       int32 = iota // between reads (poll interval, backoff), or exiting
	phaseReading                    // reading the change feed
	phaseHandling                   // in the handler (or OnPoison)
	phaseCheckpointing              // writing the checkpoint
	phaseSplitting                  // replacing the lease by its children
)

func (p *Processor) why(o *owned) exitReason {
	if o.lost.Load() {
		return exitLost
	}
	return exitStop
}

// deliver hands b to the handler until it succeeds (exitDelivered), backing
// off between failures, and applies the poison-batch policy after MaxDeliveries failures. A
// failing batch is abandoned (not checkpointed, delivered again later) when the processor stops
// or the lease is lost; a failure of a handler whose context was cancelled for that is not
// reported as a *HandlerError.
func (p *Processor) deliver(o *owned, b *Batch) exitReason {
	backoff := p.opts.RetryBackoff
	for attempt := 1; ; attempt++ {
		b.Delivery = attempt
		o.phase.Store(phaseHandling)
		err := p.call(o, b)
		if err == nil {
			return exitDelivered
		}
		if o.hctx.Err() != nil {
			// The handler's context was cancelled: its lease was lost (reported once, by lose)
			// or Stop's context ended (Stop's error names it). Its failure is that event, not a
			// second one: the batch is delivered again by the next owner.
			return p.why(o)
		}
		p.report(o.tok, &HandlerError{LeaseToken: o.tok, Attempt: attempt, Items: len(b.Items), Err: err})
		if p.opts.MaxDeliveries > 0 && attempt >= p.opts.MaxDeliveries {
			if p.opts.OnPoison != nil {
				o.phase.Store(phaseHandling)
				perr := p.safe(func() error { return p.opts.OnPoison(o.hctx, *b, err) })
				if perr == nil {
					if p.opts.ManualCheckpoint {
						o.phase.Store(phaseCheckpointing)
						_ = p.checkpoint(p.hardCtx, o, b.etag, b.seq)
					}
					return exitDelivered
				}
				err = perr
			}
			pe := &PoisonError{LeaseToken: o.tok, Deliveries: attempt, Batch: *b, Err: err}
			pe.Batch.cp, pe.Batch.p = nil, nil
			o.mu.Lock()
			o.stopped = pe
			o.mu.Unlock()
			p.report(o.tok, pe)
			return exitPoison
		}
		o.phase.Store(phaseWaiting)
		if !sleep(o.ctx.Done(), backoff) {
			return p.why(o)
		}
		backoff = min(2*backoff, p.opts.MaxRetryBackoff)
	}
}

// call runs the handler on b in a span, recovering a panic as an error.
func (p *Processor) call(o *owned, b *Batch) (err error) {
	ctx, end := p.opts.Diagnostics.StartOperation(o.hctx, "changefeed.batch", "", p.monitored.ID())
	defer func() { end(err) }()
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(
			attribute.String("cosmoskit.changefeed.processor", p.name),
			attribute.String("cosmoskit.changefeed.lease", o.tok),
			attribute.Int("cosmoskit.changefeed.items", len(b.Items)),
			attribute.Int64("cosmoskit.changefeed.lag", b.Lag),
			attribute.Int("cosmoskit.changefeed.delivery", b.Delivery),
			attribute.Float64("cosmoskit.changefeed.read_request_charge", float64(b.RequestCharge)),
		)
	}
	err = p.safe(func() error { return p.handler(ctx, *b) })
	if err == nil {
		p.metrics.batch(ctx, o.tok, len(b.Items), b.RequestCharge)
	}
	return err
}

// safe runs fn, turning a panic into an error.
func (p *Processor) safe(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("changefeed: handler panicked: %v", r)
		}
	}()
	return fn()
}

// split replaces lease o by one lease per child range, each starting at o's checkpoint, then
// deletes o. Creating a child that exists is not an error, so a split interrupted half way is
// finished by the next attempt.
func (p *Processor) split(o *owned, children []tokenRange) error {
	ctx := p.hardCtx
	o.mu.Lock()
	defer o.mu.Unlock()
	etag := o.l.continuation()
	children = slices.Clone(children)
	slices.SortFunc(children, func(a, b tokenRange) int { return epk.Compare(a.MinInclusive, b.MinInclusive) })
	for i, c := range children {
		r := c.feedRange()
		var child *lease
		if o.l.Version == leaseVersionPKRange {
			// As .NET: a partition's lease splits into the child partitions' leases, by range id.
			id, err := rangeID(ctx, p.monitored, r)
			if err != nil {
				return err
			}
			child = p.store.newRangeLease(id, r, etag)
		} else {
			// As .NET: an EPK lease splits into EPK leases covering exactly its range.
			if i == 0 {
				r.MinInclusive = o.rng.MinInclusive
			}
			if i == len(children)-1 {
				r.MaxExclusive = o.rng.MaxExclusive
			}
			child = p.store.newEPKLease(r, etag)
		}
		if _, err := p.store.create(ctx, child); err != nil {
			return err
		}
	}
	if err := p.store.remove(ctx, o.l); err != nil {
		if errors.Is(err, cosmoserr.ErrLeaseLost) {
			p.lose(o, fmt.Errorf("changefeed: %w", err))
		}
		return err
	}
	o.lost.Store(true) // replaced by its children: not a loss
	p.kickBalance()
	return nil
}
