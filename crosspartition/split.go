package crosspartition

import (
	"context"
	"slices"
)

// dropGroup is shared by the children of a split of a plain query: the rows of the parent's
// page that the parent had consumed, which the children (resuming from that page's continuation)
// must not return again. Siblings share it so that, of two equal rows, only as many are dropped
// as were consumed.
type dropGroup struct {
	seen      multiset
	fromToken bool // it came with a token: its drops count against the page's discard budget
}

// errGone carries a range that split while being read.
type errGone struct{ s *source }

func (e errGone) Error() string { return "partition key range " + e.s.r.ID + " is gone" }

// children returns fresh sources for the ranges that now cover the gone source s.
func (ex *execution) children(ctx context.Context, s *source) ([]*source, error) {
	all, err := ex.c.refreshRanges(ctx, s.r)
	if err != nil {
		return nil, err
	}
	var kids []*source
	for _, r := range all {
		if !r.overlaps(queryRange{Min: s.r.Min, Max: s.r.Max}) || !slices.ContainsFunc(ex.targets, r.overlaps) {
			continue
		}
		kids = append(kids, &source{r: r})
	}
	if len(kids) == 0 {
		return nil, &PlanError{Reason: "partition key range " + s.r.ID + " is gone and no range covers it"}
	}
	return kids, nil
}

// split replaces the gone source s with its children. For ORDER BY they start from the position s
// had reached (resume_orderby.go). For a plain query they resume from the continuation s was
// sending, as the .NET and Java SDKs do (the service resumes a parent's continuation on its
// children): after a whole page, nothing to drop; on a page s re-read from a token, the rows of
// it that s had consumed, shared by the siblings so that of two equal rows only as many are
// dropped as were consumed.
func (ex *execution) split(ctx context.Context, s *source) ([]*source, error) {
	kids, err := ex.children(ctx, s)
	if err != nil {
		return nil, err
	}
	if ex.shape == shapeOrderBy {
		splitOrdered(s, kids)
		return kids, nil
	}
	tok, seen := s.next, multiset{}
	if !s.open {
		tok = s.pageTok
		for h, n := range s.seen {
			seen[h] += n
		}
	}
	fromToken := false
	if s.drop != nil {
		for h, n := range s.drop.seen {
			seen[h] += n
		}
		fromToken = s.drop.fromToken
	}
	var g *dropGroup
	if len(seen) > 0 {
		g = &dropGroup{seen: seen, fromToken: fromToken || !s.open && s.seen != nil}
	}
	for _, k := range kids {
		k.pageTok, k.drop = tok, g
	}
	return kids, nil
}

// replace puts kids in place of s in ex.srcs.
func (ex *execution) replace(s *source, kids []*source) {
	i := slices.Index(ex.srcs, s)
	ex.srcs = slices.Replace(ex.srcs, i, i+1, kids...)
}
