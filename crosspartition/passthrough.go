package crosspartition

import (
	"context"
	"slices"
)

// A query whose plan targets one logical partition and needs no client-side merge is passed
// through, as the .NET SDK's CosmosQueryExecutionContextFactory does (its
// streamingSinglePartitionQuery: the plan's queryRanges are one single-value range, and the
// query has no aggregates, DISTINCT or GROUP BY): the original query text and parameters go to
// the one partition key range holding that logical partition (x-ms-documentdb-partitionkeyrangeid),
// which answers ORDER BY, TOP and OFFSET/LIMIT itself; each page is one backend page (one request,
// empty backend pages with a continuation skipped), and the page's token carries the backend
// continuation (a plain query's token with one range and no position inside a page).
//
// This package also leaves out ORDER BY VectorDistance (non-streaming), ORDER BY RANK (hybrid
// search) and COUNT(DISTINCT), which the .NET rule does not name: they keep the general path, its
// bounds and its refusals. The refusals of the general path (configure) apply before the choice,
// so a query refused before is still refused.
//
// A range that holds several logical partitions is not passed through even when it is the only
// one the plan targets (a container with one physical partition): its backend continuation of an
// ORDER BY, TOP or OFFSET query cannot go on over the two children of a split, while a single
// logical partition lies in one child, which resumes the parent's continuation (as the service
// does for the .NET and Java SDKs). Plain queries over such a range already send the original text
// (the plan rewrites nothing) and take the general path.

// isPoint reports a query range that is one EPK value: one logical partition (or, for the
// service's ["",""], a query that reads no document, sent once to the first range).
func isPoint(q queryRange) bool { return q.Min == q.Max && q.IsMinInclusive && q.IsMaxInclusive }

// passThrough makes ex send query as it is when its plan allows it (see above); it reports
// whether it does. It runs after configure.
func (ex *execution) passThrough(query string, p *plan) bool {
	if len(p.QueryRanges) != 1 || !isPoint(p.QueryRanges[0]) || ex.distinct != "" {
		return false
	}
	if ex.shape != shapePlain && ex.shape != shapeOrderBy {
		return false
	}
	ex.passthrough = true
	ex.query, ex.shape, ex.skip, ex.take, ex.desc = query, shapePlain, 0, -1, nil
	return true
}

// resumePassthrough makes the source of a passed-through query from its token: the backend
// continuation of its one range, sent to the range the routing map has for the query's logical
// partition now (the token's range or, after a split or merge, the one that covers it now, as
// the .NET SDK maps a continuation onto the current ranges). A legitimate token holds nothing
// else, so anything else (positions inside a page, drop groups, finished ranges, several ranges)
// is refused: a crafted token costs what a legitimate one does, one request.
func (ex *execution) resumePassthrough(t *token, all []pkRange) error {
	if len(t.Ranges) != 1 || len(t.Groups) > 0 {
		return bad("does not hold one range of this query")
	}
	tr := t.Ranges[0]
	if tr.N != 0 || tr.Seen != "" || tr.Drop != 0 || tr.Done {
		return bad("holds a position this query's tokens do not have")
	}
	if !slices.ContainsFunc(ex.targets, pkRange{Min: tr.Min, Max: tr.Max}.overlaps) {
		return bad("it names a range the query does not target")
	}
	rs := targets(all, ex.targets)
	if len(rs) != 1 {
		return &PlanError{Reason: "no single partition key range holds the query's partition key"}
	}
	ex.srcs = []*source{{r: rs[0], pageTok: tr.Tok}}
	return nil
}

// passPage returns the next page of a passed-through query: the rows of its next backend page
// that has any (a 410 on the range is followed onto its child, as on the general path).
func (ex *execution) passPage(ctx context.Context) ([][]byte, error) {
	s, err := ex.head(ctx)
	if err != nil {
		return nil, err
	}
	if s == nil {
		ex.ended = true
		return nil, nil
	}
	items := make([][]byte, 0, len(s.buf)-s.pos)
	for _, r := range s.buf[s.pos:] {
		items = append(items, r.out)
		if ex.c.observe != nil {
			ex.c.observe(nil, r.out)
		}
	}
	n := len(s.buf) - s.pos
	s.pos, s.used, ex.used = len(s.buf), s.used+n, ex.used+n
	ex.ended = !slices.ContainsFunc(ex.srcs[ex.cur:], func(s *source) bool { return !s.finished() })
	return items, nil
}
