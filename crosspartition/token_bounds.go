package crosspartition

import (
	"github.com/cosmoskit/cosmoskit-go/internal/epk"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// What a token may make a page cost. Without Options.TokenSigningKey the tag's key is public, so
// every field of a token may be chosen by an end user; none of them may make a page cost more than
// a legitimate resume of the same query with the same options:
//
//   - page sizes come from the pager's own options (PageSizeHint, the plan's TOP/LIMIT), never
//     from the token;
//   - a plain query's position in a range (N rows of a backend page already consumed) must fall
//     inside one backend page of that size, and its row hashes are those N rows;
//   - a split's drop group (rows of the parent's page that its children must not return again)
//     holds at most one backend page of rows, and only a range that is not finished carries one;
//   - an unordered DISTINCT token holds the hashes of the rows returned (at most
//     defaultMaxTokenHashes), which a page drops when they come again; a legitimate token is
//     returned before the next new row (the page reads past the duplicates that follow it), so a
//     resumed page starts with a row it returns. Rows dropped as duplicates of the token's hashes
//     count against distinctBudget (one backend page per range): beyond it the page ends with the
//     rows it has (a short page whose token resumes after the duplicates), or, if it has none, the
//     token is refused;
//   - an ORDER BY token holds no per-range state at all: each range is queried afresh from the last
//     row's ORDER BY values (resume_orderby.go), so a resumed page costs what a fresh page costs,
//     plus, in the range that returned the last row, the rows tied with those values up to its
//     _rid: what a legitimate token at the end of the same tie group costs too;
//   - the ranges map onto the container's current partition key ranges (mapOntoCurrent).
//
// A page's discards (rows read again and dropped because the token says they were returned) are
// counted against discardBudget; a page that would exceed it is refused with
// cosmoserr.ErrInvalidToken. A legitimate token never reaches it (its discards are at most one
// backend page per range); it is the backstop if a rule above is ever wrong.

// validatePlainRanges checks a plain query's ranges for what does not depend on the query or the
// container: ids and continuations that can be sent as headers, EPK bounds, order, hash encodings.
func validatePlainRanges(t *token) error {
	if t.Order != nil || len(t.Ranges) == 0 {
		return bad("is not a token of this package")
	}
	for i, r := range t.Ranges {
		// The id and the backend continuation are sent as request headers: anything but what
		// the service issues (digits; printable ASCII) is refused here, before a request is built.
		if !wire.ValidRangeID(r.ID) || !wire.ValidHeaderValue(r.Tok) {
			return bad("has a malformed range")
		}
		if r.N < 0 || r.Drop < 0 || r.Drop > len(t.Groups) || !validEPK(r.Min) || !validEPK(r.Max) || isEnd(r.Min) && r.Min != "" {
			return bad("has a malformed range")
		}
		if !isEnd(r.Max) && epk.Compare(r.Min, r.Max) >= 0 {
			return bad("has an empty range")
		}
		if i > 0 && (isEnd(t.Ranges[i-1].Max) || epk.Compare(t.Ranges[i-1].Max, r.Min) > 0) {
			return bad("has overlapping ranges")
		}
		seen, err := hashes(r.Seen)
		if err != nil {
			return err
		}
		// A position inside a page names the rows it consumed; a finished or unopened range has none.
		if len(seen) != r.N || r.N > 0 && (!r.Open || r.Done) || r.Done && r.Drop != 0 {
			return bad("has a malformed range")
		}
	}
	for _, g := range t.Groups {
		if _, err := hashes(g.Hashes); err != nil {
			return err
		}
	}
	return nil
}

// checkPlainBounds checks a plain query's token against the pager's own backend page size
// (cap: the largest page a legitimate pager of this query and these options asks a range for).
func checkPlainBounds(t *token, cap int) error {
	for _, r := range t.Ranges {
		if r.N >= cap {
			return bad("holds a position beyond one page of this query (resume with the PageSizeHint that returned it)")
		}
	}
	used := make([]bool, len(t.Groups))
	for _, r := range t.Ranges {
		if r.Drop > 0 {
			used[r.Drop-1] = true
		}
	}
	for i, g := range t.Groups {
		hs, _ := hashes(g.Hashes)
		if len(hs) == 0 || len(hs) > cap || !used[i] {
			return bad("holds a drop group that no split of one page could leave")
		}
	}
	return nil
}

// discardBudget bounds the rows a resumed page may read and drop because its token says they were
// returned: one backend page per range the token names, twice (a re-read page and a drop group).
func discardBudget(ranges, cap int) int { return 2 * (ranges + 1) * cap }

// distinctBudget bounds the rows a resumed page drops as duplicates of its token's DISTINCT hashes.
func distinctBudget(ranges, cap int) int { return max(1, ranges) * cap }

// discard counts n rows dropped on the token's word; beyond the budget the token is refused.
func (ex *execution) discard(n int) error {
	if ex.discardLeft < 0 || n == 0 {
		return nil // not resumed from a token, or nothing dropped
	}
	ex.discardLeft -= n
	if ex.discardLeft < 0 {
		ex.discardLeft = 0
		return bad("makes a page read more than a legitimate resume of this query can")
	}
	return nil
}
