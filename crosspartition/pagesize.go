package crosspartition

import (
	"math"
)

// rangePageSize is the page size a range is asked for: the pager's page size, or for a streaming
// query what its TOP/LIMIT (and OFFSET) still needs if that is less; every row for the others.
func (ex *execution) rangePageSize() int {
	switch {
	case ex.shape != shapePlain && ex.shape != shapeOrderBy:
		return maxBackendPageSize
	case ex.take >= 0:
		return max(1, min(ex.pageSize, ex.take+ex.skip))
	}
	return ex.pageSize
}

// adapt turns on adaptive page sizes for a streaming ORDER BY with TOP/LIMIT over several
// ranges: rather than asking every range for the rows it could have to supply (the page size, or k
// = TOP+OFFSET when smaller: that many rows per range, times the ranges in all), each range is
// first asked for its share of them with a margin, ceil(m + 2√m) + 1 for m = min(page size, k) /
// ranges, so that uniformly spread data is served by one request per range. A range whose rows
// the merge has used up is asked for more (sizeFor). The plan and the per-range query text are
// those of a fixed page size; an ORDER BY token holds no backend continuation (resume_orderby.go),
// so a resumed page starts every range afresh with its share.
func (ex *execution) adapt() {
	if ex.shape != shapeOrderBy || ex.take < 0 {
		return
	}
	n := 0
	for _, s := range ex.srcs {
		if !s.finished() {
			n++
		}
	}
	if n < 2 {
		return
	}
	m := float64(ex.backend) / float64(n)
	share := int(math.Ceil(m+2*math.Sqrt(m))) + 1
	if share >= ex.backend {
		return
	}
	ex.adaptive, ex.share = true, share
}

// sizeFor is the page size of the next request to s. Without adaptive sizes it is ex.backend.
// With them: the share for a range's first page; for its second, an estimate from the rows
// returned so far, the fraction f of the merged rows that came from s times the rows r still
// needed, with the same margin (on data skewed so that s holds every remaining row, f = 1 and that
// is all of r: one extra round trip); for any later page, all of r. While the execution builds its
// first page, r is what that page still needs (ex.backend at most): a caller that reads one page
// and resumes from its token in another request pays for one page, not for the whole TOP. Once a
// page has been returned the caller is reading on in this process, and r is what the whole query
// still needs, up to lookaheadPages pages (a request asks for at most maxBackendPageSize rows):
// fewer, larger requests than one round per page, with what is fetched ahead (held in memory, and
// charged if the caller stops early) bounded by those pages whatever the TOP. So a
// range costs at most two extra round trips per page, one when the data is skewed towards it.
// fetch calls it for different sources concurrently: it reads ex's fields that the merge changes
// only between rounds of reads, and changes only s.
func (ex *execution) sizeFor(s *source) int {
	if s.skipN > 0 {
		// A resumed range of a plain query re-reads the page it was in from that page's start
		// (skipN < ex.backendCap: token_bounds.go).
		return min(ex.backendCap, max(ex.backend, s.skipN+1))
	}
	if !ex.adaptive {
		return ex.backend
	}
	rem, limit := min(ex.take+ex.skip, lookaheadPages*ex.backend), maxBackendPageSize
	if ex.pages == 0 {
		rem, limit = ex.pageNeed, ex.backend
	}
	size := ex.share
	if s.open {
		size = rem
		if s.refills == 0 && ex.used > 0 {
			e := float64(rem) * float64(s.used) / float64(ex.used)
			size = min(rem, int(math.Ceil(e+2*math.Sqrt(e)))+1)
		}
		s.refills++
	}
	return max(1, min(size, limit))
}

// lookaheadPages bounds what adaptive page sizes fetch ahead of the caller (sizeFor).
const lookaheadPages = 10
