package crosspartition

import (
	"slices"

	"github.com/cosmoskit/cosmoskit-go/internal/epk"
)

// resume rebuilds the sources from a token: for ORDER BY from the last row's values
// (resume_orderby.go), for a plain query from each range's position, within the bounds a
// legitimate token of this query and these options keeps (token_bounds.go).
func (ex *execution) resume(t *token, all []pkRange) error {
	want := kindPlain
	switch ex.shape {
	case shapeOrderBy:
		want = kindOrderBy
	case shapePlain:
	default:
		return &NotResumableError{Construct: "aggregates, GROUP BY or ORDER BY VectorDistance"}
	}
	if t.Kind != want {
		return bad("it was returned for another query")
	}
	if err := ex.resumeLimits(t); err != nil {
		return err
	}
	if ex.shape == shapeOrderBy {
		return ex.resumeOrderBy(t.Order, all)
	}
	if ex.passthrough {
		return ex.resumePassthrough(t, all)
	}
	return ex.resumePlain(t, all)
}

// resumeLimits takes the token's TOP/LIMIT and OFFSET still to apply, which a legitimate token
// holds no more of than the query, and its DISTINCT state.
func (ex *execution) resumeLimits(t *token) error {
	if t.Take > ex.take || (ex.take < 0) != (t.Take < 0) || t.Skip > ex.skip {
		return bad("its limits do not match the query's")
	}
	ex.skip, ex.take = t.Skip, t.Take
	hs, _ := hashes(t.Dist)
	switch {
	case ex.distinct == "Ordered" && len(hs) == 1:
		ex.distLast = &hs[0]
	case ex.distinct == "Ordered" && len(hs) > 1, ex.distinct == "" && len(hs) > 0:
		return bad("holds DISTINCT state of another query")
	case ex.distinct == "Unordered":
		ex.dist = multisetOf(hs)
		ex.distToken = make(map[uint64]bool, len(hs))
		for _, h := range hs {
			ex.distToken[h] = true
		}
	}
	return nil
}

// resumePlain makes a plain query's sources from each of the token's ranges, with their positions
// and drop groups.
func (ex *execution) resumePlain(t *token, all []pkRange) error {
	if err := checkPlainBounds(t, ex.backendCap); err != nil {
		return err
	}
	groups := make([]*dropGroup, len(t.Groups))
	for i, g := range t.Groups {
		gh, _ := hashes(g.Hashes)
		groups[i] = &dropGroup{seen: multisetOf(gh), fromToken: true}
	}
	if err := mapOntoCurrent(t.Ranges, all); err != nil {
		return err
	}
	for _, tr := range t.Ranges {
		if !slices.ContainsFunc(ex.targets, func(x queryRange) bool { return pkRange{Min: tr.Min, Max: tr.Max}.overlaps(x) }) {
			return bad("it names a range the query does not target")
		}
		if i := slices.IndexFunc(all, func(r pkRange) bool { return r.ID == tr.ID }); i >= 0 && (all[i].Min != tr.Min || all[i].Max != tr.Max) {
			return bad("it names a range with other bounds")
		}
		s := &source{r: pkRange{ID: tr.ID, Min: tr.Min, Max: tr.Max}, pageTok: tr.Tok}
		if tr.Drop > 0 {
			s.drop = groups[tr.Drop-1]
		}
		switch {
		case tr.Done:
			s.open = true
		case tr.Open && tr.N > 0:
			sh, _ := hashes(tr.Seen)
			s.skipN, s.seen = tr.N, multisetOf(sh)
		}
		// A range id that is not in the routing map any more is resolved on its first request
		// (410/1002 -> children), as during a read.
		ex.srcs = append(ex.srcs, s)
	}
	ex.discardLeft = discardBudget(len(t.Ranges), ex.backendCap)
	for ex.cur < len(ex.srcs) && ex.srcs[ex.cur].finished() {
		ex.cur++
	}
	return nil
}

// mapOntoCurrent checks that a token's ranges map onto the container's current partition key
// ranges (all, sorted by Min), as the .NET SDK maps a continuation onto the current ranges: a
// range id the routing map still has must have its bounds (checked by resume), one it does not
// have any more is resolved by EPK overlap (taking the id of a current range with the same
// bounds; a split parent keeps its id and is resolved into its children), and no current range may be
// overlapped by two of the token's ranges. A token's ranges are therefore at most the container's
// physical partitions, each read with at most one request per page (a split parent's first
// request answers 410 and is replaced by its children, as during a read): a token whose ranges
// were cut into many slices of the hash space, or that names ranges the container does not have,
// is refused before any request, whatever its tag (an unkeyed tag can be recomputed).
// A token made before a merge of partitions may be refused too: the query is then restarted.
func mapOntoCurrent(trs []tokenRange, all []pkRange) error {
	if len(trs) > len(all) {
		return bad("it holds more ranges than the container has partition key ranges")
	}
	owner := make(map[string]int, len(all)) // current range id -> index+1 of the token range on it
	j := 0                                  // first current range that may overlap trs[i] (both sorted)
	for i, tr := range trs {
		q := queryRange{Min: tr.Min, Max: tr.Max}
		for j < len(all) && !isEnd(all[j].Max) && tr.Min != "" && epk.Compare(all[j].Max, tr.Min) <= 0 {
			j++
		}
		found := false
		for k := j; k < len(all) && all[k].overlaps(q); k++ {
			found = true
			if all[k].Min == tr.Min && all[k].Max == tr.Max {
				trs[i].ID = all[k].ID // an unknown id with a current range's bounds is that range
			}
			if o := owner[all[k].ID]; o != 0 && o != i+1 {
				return bad("two of its ranges fall in one partition key range")
			}
			owner[all[k].ID] = i + 1
		}
		if !found {
			return bad("it names a range outside the container's partition key ranges")
		}
	}
	return nil
}

// dropConsumed removes from a resumed range's re-read page the rows the caller had consumed before
// the token was issued, and returns how many it removed. The consumed rows were the first skipN
// rows of that page; the service returns a range's rows in _rid order, so those of them still in
// the page come first now too, followed by the rows not yet returned. Skipping skipN rows by count
// would lose one unseen row for each consumed row that left the page in between (deleted, or
// updated out of the filter, as a backfill does), so a row among the first skipN is dropped only
// when its hash is one of the consumed rows' (each hash once). A consumed row changed since is not
// recognised and comes again, with its new values; a row equal in every returned value to a
// consumed one that left cannot be told from it (rows are compared by content: a plain query's
// rows carry no _rid unless its projection has one).
func (s *source) dropConsumed() int {
	n := min(s.skipN, len(s.buf))
	kept := s.buf[:0]
	dropped := 0
	for i, r := range s.buf {
		if i < n && s.seen.take(r.hash) {
			dropped++
			continue
		}
		kept = append(kept, r)
	}
	s.buf, s.pos = kept, 0
	s.skipN, s.seen = 0, nil
	return dropped
}
