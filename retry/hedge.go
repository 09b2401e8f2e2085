package retry

import (
	"context"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

type pinnedKey struct{}

// withRegion returns a context whose requests the policy sends to the named region only
// (canonical name), with no failover of their own: the hedge is their failover.
func withRegion(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, pinnedKey{}, key)
}

func pinnedFromContext(ctx context.Context) string {
	k, _ := ctx.Value(pinnedKey{}).(string)
	return k
}

// Hedge runs the operation fn with cross-region hedging, as p's Options.Hedging says (or
// WithHedging / WithoutHedging on ctx).
//
// fn is called with a context pinned to the first region of the effective read order (regions with
// an open breaker last). When it has no final answer after Threshold, fn is called again, pinned to
// the next region, then to the one after every Step, and at once after an attempt that failed
// transiently. The first final answer (a success, or an error that cosmoserr.IsRetryable rejects,
// such as a 404) wins; the other attempts are cancelled, and Hedge returns once they have stopped.
// When every attempt failed transiently, the last failure is returned.
//
// Each attempt is a whole operation of its own through the client's pipeline (its own request,
// span and retry state), so fn must be safe to run concurrently with itself and should only read:
// a point read, a query page. Writes go through a region only on multi-write accounts and only
// with HedgingOptions.Writes (expect extra 409s and 412s). Without hedging enabled, with a nil p, or
// with fewer than two regions to go to, Hedge calls fn once with ctx.
//
//	item, err := retry.Hedge(ctx, client.Retry(), func(ctx context.Context) (azcosmos.ItemResponse, error) {
//		return container.ReadItem(ctx, pk, id, nil)
//	})
func Hedge[T any](ctx context.Context, p *PipelinePolicy, fn func(ctx context.Context) (T, error)) (T, error) {
	if p == nil {
		return fn(ctx)
	}
	h := p.hedging
	if hc, ok := hedgingFromContext(ctx); ok {
		h = hc
	}
	regions := p.hedgeRegions(ctx)
	if !h.Enable || len(regions) < 2 {
		return fn(ctx)
	}
	h = h.withDefaults()

	type result struct {
		v   T
		err error
	}
	results := make(chan result, len(regions))
	cancels := make([]context.CancelFunc, 0, len(regions))
	launch := func() {
		actx, cancel := context.WithCancel(withRegion(ctx, regions[len(cancels)]))
		cancels = append(cancels, cancel)
		go func() {
			v, err := fn(actx)
			results <- result{v, err}
		}()
	}
	pending := 0
	stop := func() {
		for _, c := range cancels {
			c()
		}
		for ; pending > 0; pending-- {
			<-results
		}
	}
	launch()
	pending++
	timer := time.NewTimer(h.Threshold)
	defer timer.Stop()
	var last result
	for {
		var tick <-chan time.Time
		if len(cancels) < len(regions) {
			tick = timer.C
		}
		select {
		case r := <-results:
			pending--
			if r.err == nil || !cosmoserr.IsRetryable(r.err) {
				stop()
				return r.v, r.err
			}
			last = r
			switch {
			case len(cancels) < len(regions): // a transient failure: hedge at once
				launch()
				pending++
				timer.Reset(h.Step)
			case pending == 0:
				stop()
				return last.v, last.err
			}
		case <-tick:
			launch()
			pending++
			timer.Reset(h.Step)
		case <-ctx.Done():
			stop()
			var zero T
			return zero, ctx.Err()
		}
	}
}

// hedgeRegions returns the canonical names of the regions a hedged read of ctx goes to, in order:
// the effective read order with the regions whose breaker is open moved last.
func (p *PipelinePolicy) hedgeRegions(ctx context.Context) []string {
	t := p.topo.Load()
	if t == nil {
		return nil
	}
	var ok, open []string
	for _, r := range p.candidates(ctx, t, false) {
		if isOpen, _ := p.br.open(r, "", false); isOpen {
			open = append(open, r.key)
		} else {
			ok = append(ok, r.key)
		}
	}
	return append(ok, open...)
}
