package crosspartition

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"golang.org/x/sync/errgroup"
)

// fetch reads pages of s until it holds an unread row or has ended. It runs concurrently for
// different sources, so it leaves drop groups (shared by siblings) to the merge (dropHead).
func (ex *execution) fetch(ctx context.Context, s *source) error {
	for s.pos >= len(s.buf) && !s.finished() {
		tok := s.pageTok
		if s.open {
			tok = s.next
		}
		text, params := ex.queryFor(s)
		if s.hdr == nil {
			s.hdr = rangeHeader(s.r.ID)
		}
		resp, err := ex.c.page(policy.WithHTTPHeader(ctx, s.hdr), ex.prefix, text, params, tok, ex.sizeFor(s), ex.opts)
		ex.mu.Lock()
		ex.charge += resp.RequestCharge
		ex.touched[s.r.ID] = true
		ex.rows += len(resp.Items)
		ex.requests++
		ex.mu.Unlock()
		if isGone(err) {
			return errGone{s}
		}
		if err != nil {
			return err
		}
		rows, err := ex.parseRows(resp.Items)
		if err != nil {
			return err
		}
		s.pageTok, s.buf, s.pos, s.open = tok, rows, 0, true
		s.next = ""
		if resp.ContinuationToken != nil {
			s.next = *resp.ContinuationToken
		}
		if s.skipN > 0 {
			if err := ex.discard(s.dropConsumed()); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseRows decodes a page of the per-range query.
func (ex *execution) parseRows(items [][]byte) ([]row, error) {
	rows := make([]row, 0, len(items))
	var slab []any // the ORDER BY keys of the page's rows, one allocation
	for _, it := range items {
		switch ex.shape {
		case shapeOrderBy, shapeNonStreaming:
			if len(slab) < len(ex.desc) {
				slab = make([]any, len(ex.desc)*(len(items)-len(rows)))
			}
			r, err := ex.parseOrderedRow(it, &slab)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
		case shapePlain:
			if !json.Valid(it) {
				return nil, &PlanError{Reason: "a row is not JSON"}
			}
			rows = append(rows, row{out: it, hash: rawHash(it)})
		default:
			if !json.Valid(it) {
				if _, err := decode(it); err != nil {
					return nil, err
				}
			}
			rows = append(rows, row{out: it, hash: rowHash(it)})
		}
	}
	return rows, nil
}

// parseOrderedRow decodes a row of an ORDER BY query ({"orderByItems": [...], "payload": ...,
// "_rid": ...}), its ORDER BY values taken from slab (which it advances) when it can.
func (ex *execution) parseOrderedRow(it []byte, slab *[]any) (row, error) {
	keys := (*slab)[:len(ex.desc):len(ex.desc)]
	kraw, out, rid, ok := []byte(nil), []byte(nil), []byte(nil), false
	if json.Valid(it) {
		kraw, out, rid, ok = parseOrderByRow(it, keys)
	}
	if ok {
		*slab = (*slab)[len(ex.desc):]
	} else {
		var err error
		if keys, kraw, out, rid, err = parseOrderByRowSlow(it, len(ex.desc)); err != nil {
			return row{}, err
		}
	}
	r := row{out: out, keys: keys, kraw: kraw, rid: rid}
	if rid == nil {
		r.hash = rawHash(it) // told apart by content when tied (resume_orderby.go)
	}
	return r, nil
}

// fetchAll makes every unfinished source hold a row, reading ranges in parallel (one range, the
// common case once the first pages are in, is read on the caller's goroutine).
func (ex *execution) fetchAll(ctx context.Context, need []*source) error {
	for len(need) > 0 {
		gone, err := ex.fetchRound(ctx, need)
		if err != nil {
			return err
		}
		need = need[:0:0]
		for _, s := range gone {
			kids, err := ex.split(ctx, s)
			if err != nil {
				return err
			}
			ex.replace(s, kids)
			need = append(need, kids...)
		}
	}
	return nil
}

// fetchRound fetches a page of every source of need, at most Options.MaxConcurrency at a time, and
// returns those whose range is gone.
func (ex *execution) fetchRound(ctx context.Context, need []*source) ([]*source, error) {
	if len(need) == 1 {
		err := ex.fetch(ctx, need[0])
		var eg errGone
		if errors.As(err, &eg) {
			return need[:1:1], nil
		}
		return nil, err
	}
	var gone []*source
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(ex.c.opts.MaxConcurrency)
	var mu sync.Mutex
	for _, s := range need {
		g.Go(func() error {
			err := ex.fetch(gctx, s)
			var eg errGone
			if errors.As(err, &eg) {
				mu.Lock()
				gone = append(gone, s)
				mu.Unlock()
				return nil
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return gone, nil
}

// ready makes the sources the merge looks at (every source for ORDER BY, the current one for a
// plain query) hold an unread row that no drop group removes, or end. Splits replace sources in
// ex.srcs, so the list is looked at again after each round of reads.
func (ex *execution) ready(ctx context.Context) error {
	for {
		srcs := ex.srcs
		if ex.shape == shapePlain {
			srcs = ex.srcs[ex.cur : ex.cur+1]
		}
		var need []*source
		for _, s := range srcs {
			if err := ex.dropHead(s); err != nil {
				return err
			}
			if s.pos >= len(s.buf) && !s.finished() {
				need = append(need, s)
			}
		}
		if len(need) == 0 {
			return nil
		}
		if err := ex.fetchAll(ctx, need); err != nil {
			return err
		}
	}
}
