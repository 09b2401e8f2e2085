package crosspartition

import (
	"context"
)

// dropHead skips the rows at the head of s that were consumed before: for ORDER BY those before
// the position s resumes from (resume_orderby.go); for a plain query the rows of a split parent's
// page that it had consumed, which come first on its children (they resume from that page's
// continuation, and the service returns a range's rows in _rid order).
func (ex *execution) dropHead(s *source) error {
	if ex.shape == shapeOrderBy {
		if s.from != nil {
			ex.dropResumed(s)
		}
		return nil
	}
	for s.drop != nil && s.pos < len(s.buf) {
		if !s.drop.seen.take(s.buf[s.pos].hash) {
			s.drop = nil // past the parent's consumed rows
			return nil
		}
		s.pos++
		if s.drop.fromToken {
			if err := ex.discard(1); err != nil {
				return err
			}
		}
	}
	return nil
}

// consume takes the head row of s (for ORDER BY, recording it as the position a token or a
// split resumes from).
func (ex *execution) consume(s *source) row {
	r := s.buf[s.pos]
	s.pos++
	s.used++
	ex.used++
	if ex.shape == shapeOrderBy {
		ex.consumeOrdered(s, &r)
	}
	return r
}

// emit applies DISTINCT, OFFSET and TOP/LIMIT to r; it reports whether r is returned.
func (ex *execution) emit(r row) bool {
	if r.out == nil { // the projection is undefined for this document: no row, as on one partition
		return false
	}
	if ex.distinct != "" {
		h := rowHash(r.out)
		switch ex.distinct {
		case "Ordered":
			if ex.distLast != nil && *ex.distLast == h {
				return false
			}
			ex.distLast = &h
		default:
			if ex.dist[h] > 0 {
				if ex.distToken[h] {
					ex.distDrops++ // dropped on the token's word (token_bounds.go)
				}
				return false
			}
			ex.dist.add(h)
		}
	}
	if ex.skip > 0 {
		ex.skip--
		return false
	}
	if ex.take == 0 {
		return false
	}
	if ex.take > 0 {
		ex.take--
	}
	return true
}

// stream returns a page of a plain or ORDER BY query.
func (ex *execution) stream(ctx context.Context) ([][]byte, error) {
	n := ex.pageSize
	if ex.take >= 0 {
		n = min(n, ex.take)
	}
	items := make([][]byte, 0, n) // one allocation for the page's rows
	for len(items) < ex.pageSize && ex.take != 0 {
		ex.pageNeed = ex.skip + ex.pageSize - len(items)
		if ex.take >= 0 {
			ex.pageNeed = ex.skip + min(ex.pageSize-len(items), ex.take)
		}
		s, err := ex.head(ctx)
		if err != nil {
			return nil, err
		}
		if s == nil {
			ex.ended = true
			return items, nil
		}
		if r := ex.consume(s); ex.emit(r) {
			items = append(items, r.out)
			if ex.c.observe != nil {
				ex.c.observe(r.keys, r.out)
			}
		}
		if ex.distDrops > ex.distBudget {
			if len(items) == 0 {
				return nil, bad("makes a page read more than a legitimate resume of this query can")
			}
			return items, nil // a short page: the token resumes after the duplicates dropped so far
		}
	}
	if ex.take == 0 {
		ex.ended = true
		return items, nil
	}
	if err := ex.settle(ctx); err != nil {
		return nil, err
	}
	return items, nil
}

// settle follows a full page: it makes sure a token is not returned for a query that has nothing
// left, and that it does not stop before rows this page's DISTINCT drops (a resumed page then
// starts with a new row).
func (ex *execution) settle(ctx context.Context) error {
	ex.pageNeed = 1
	for ex.distDrops <= ex.distBudget {
		s, err := ex.head(ctx)
		if err != nil {
			return err
		}
		if s == nil {
			ex.ended = true
			return nil
		}
		if !ex.duplicate(s.buf[s.pos]) {
			return nil
		}
		ex.emit(ex.consume(s))
	}
	return nil
}

// duplicate reports whether emit would drop r as undefined or as a DISTINCT duplicate.
func (ex *execution) duplicate(r row) bool {
	if r.out == nil {
		return true
	}
	switch ex.distinct {
	case "Ordered":
		return ex.distLast != nil && *ex.distLast == rowHash(r.out)
	case "Unordered":
		return ex.dist[rowHash(r.out)] > 0
	}
	return false
}

// head returns the source whose head row comes next, nil at the end.
func (ex *execution) head(ctx context.Context) (*source, error) {
	if ex.shape == shapePlain {
		for ex.cur < len(ex.srcs) {
			if err := ex.ready(ctx); err != nil {
				return nil, err
			}
			s := ex.srcs[ex.cur] // a split replaced it with its first child
			if s.pos < len(s.buf) {
				return s, nil
			}
			if s.finished() {
				ex.cur++
			}
		}
		return nil, nil
	}
	if err := ex.ready(ctx); err != nil {
		return nil, err
	}
	var best *source
	for _, s := range ex.srcs {
		if s.pos >= len(s.buf) {
			continue
		}
		// Strictly smaller wins: ties go to the range earlier in EPK order, as the SDKs do.
		if best == nil || compareKeys(s.buf[s.pos].keys, best.buf[best.pos].keys, ex.desc) < 0 {
			best = s
		}
	}
	return best, nil
}
