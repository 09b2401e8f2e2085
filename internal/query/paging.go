package query

import (
	"cmp"
	"encoding/json"
	"slices"
	"sort"
)

// execution is the state of one Execute call.
type execution struct {
	q        *Query
	ev       *evaluator
	docs     []Document
	items    []item // results of a root FROM subquery, used instead of docs when set
	index    *Index
	pageSize int
	maxBytes int
	hash     string
	skip     int // results still to skip (OFFSET)
	take     int // results still to return (TOP/LIMIT), -1 for no limit

	page    Page
	bytes   int
	scanned int
}

// item is one input of the root query when its FROM is a subquery: a result of that subquery.
type item struct {
	key string
	val any
}

func (x *execution) n() int {
	if x.items != nil {
		return len(x.items)
	}
	return len(x.docs)
}

func (x *execution) key(i int) string {
	if x.items != nil {
		return x.items[i].key
	}
	return x.docs[i].Key
}

func (x *execution) val(i int) any {
	if x.items != nil {
		return x.items[i].val
	}
	return x.docs[i].root()
}

// add appends one result if the page has room; it returns false when the page is full.
func (x *execution) add(b []byte) bool {
	n := len(x.page.Results)
	if n >= x.pageSize || n > 0 && x.bytes+len(b) > x.maxBytes {
		return false
	}
	x.page.Results = append(x.page.Results, json.RawMessage(b))
	x.bytes += len(b)
	return true
}

// stream serves queries whose results follow document order: the token is the Key of the last
// document consumed and the index of the last row emitted from it. Like the service, it does not
// look ahead: a page that reaches the page size ends there with a token even when nothing follows,
// and the next page is empty (a TOP or LIMIT that is used up ends the query instead).
func (x *execution) stream(tok *contToken) *Page {
	q := x.q.sel
	ev := x.ev
	start := 0
	lastKey, lastRow := "", -1
	if tok != nil {
		lastKey, lastRow = tok.Key, tok.Row
		start = sort.Search(x.n(), func(i int) bool { return x.key(i) >= lastKey })
	}
	more := false
	done := x.take == 0
	scratch := &env{}
	for di := start; di < x.n() && !done && !more; di++ {
		dKey := x.key(di)
		resume := tok != nil && dKey == lastKey
		x.scanned++
		idx := -1
		ev.forEachRow(q, nil, true, x.val(di), func(vals []any) bool {
			idx++
			if resume && idx <= lastRow {
				return true
			}
			e := scratch
			e.vals = vals
			if q.where != nil && !ev.truthy(q.where, e) {
				return ev.err == nil
			}
			out := ev.project(q, e)
			if isUndef(out) {
				return ev.err == nil
			}
			if x.skip > 0 {
				x.skip--
				return ev.err == nil
			}
			b := marshalValue(nil, out)
			if !x.add(b) {
				more = true
				return false
			}
			lastKey, lastRow = dKey, idx
			if x.take > 0 {
				x.take--
				if x.take == 0 {
					done = true
					return false
				}
			}
			if len(x.page.Results) >= x.pageSize {
				more = true
				return false
			}
			return ev.err == nil
		})
		if ev.err != nil {
			return nil
		}
	}
	x.page.Scanned = x.scanned
	if more && !done {
		x.page.Continuation = encodeToken(&contToken{Mode: modeStream, Key: lastKey, Row: lastRow, Skip: x.skip, Take: x.take}, x.hash)
	}
	return &x.page
}

// sortedRow is a row that passed WHERE in an ORDER BY query.
type sortedRow struct {
	doc  int
	idx  int
	sort []any
	vals []any
}

// ordered serves ORDER BY queries: every row that passes WHERE is sorted by the ORDER BY values, then
// by document Key and row index; the token carries the position of the last result emitted.
func (x *execution) ordered(tok *contToken) *Page {
	q := x.q.sel
	ev := x.ev
	if x.items == nil && x.index.serves(q, x.docs) {
		return x.orderedIndexed(tok)
	}
	var pos *sortedRow
	posKey := ""
	if tok != nil {
		pos = &sortedRow{idx: tok.Row, sort: tok.sortValues()}
		posKey = tok.Key
	}
	dirs := ev.orderDirs(q)
	cmp := func(a, b *sortedRow, bKey string) int {
		if c := compareSort(dirs, a.sort, b.sort); c != 0 {
			return c
		}
		if c := cmp.Compare(x.key(a.doc), bKey); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	}
	nOrder := len(q.orderBy)
	var rows []sortedRow
	var sortArena, valArena []any
	scratch := &env{}
	for di := range x.n() {
		x.scanned++
		idx := -1
		ev.forEachRow(q, nil, true, x.val(di), func(vals []any) bool {
			idx++
			e := scratch
			e.vals = vals
			if q.where != nil && !ev.truthy(q.where, e) {
				return ev.err == nil
			}
			if len(sortArena)+nOrder > cap(sortArena) {
				sortArena = make([]any, 0, max(1024, 2*cap(sortArena)))
			}
			s := sortArena[len(sortArena) : len(sortArena)+nOrder]
			sortArena = sortArena[:len(sortArena)+nOrder]
			for i, ob := range q.orderBy {
				s[i] = ev.eval(ob.x, e)
			}
			r := sortedRow{doc: di, idx: idx, sort: s}
			if pos != nil && cmp(&r, pos, posKey) <= 0 {
				sortArena = sortArena[:len(sortArena)-nOrder]
				return ev.err == nil
			}
			if len(valArena)+len(vals) > cap(valArena) {
				valArena = make([]any, 0, max(1024, 2*cap(valArena)))
			}
			r.vals = append(valArena[len(valArena):len(valArena):cap(valArena)], vals...)
			valArena = valArena[:len(valArena)+len(vals)]
			rows = append(rows, r)
			return ev.err == nil
		})
		if ev.err != nil {
			return nil
		}
	}
	order := func(a, b sortedRow) int { return cmp(&a, &b, x.key(b.doc)) }
	need := len(rows)
	if x.pageSize < need && q.value == nil {
		need = x.skip + x.pageSize + 1
	}
	if x.take >= 0 && x.skip+x.take < need {
		need = x.skip + x.take
	}
	rows = smallest(rows, need, order)
	more := false
	var last *sortedRow
	for i := range rows {
		r := &rows[i]
		if x.take == 0 {
			break
		}
		out := ev.project(q, &env{vals: r.vals})
		if isUndef(out) {
			continue
		}
		if x.skip > 0 {
			x.skip--
			continue
		}
		if !x.add(marshalValue(nil, out)) {
			more = true
			break
		}
		last = r
		if x.take > 0 {
			x.take--
		}
	}
	x.page.Scanned = x.scanned
	if more && x.take != 0 && last != nil {
		t := &contToken{Mode: modeOrdered, Key: x.key(last.doc), Row: last.idx, Skip: x.skip, Take: x.take}
		t.setSortValues(last.sort)
		x.page.Continuation = encodeToken(t, x.hash)
	}
	return &x.page
}

// smallest returns the n smallest rows in order.
func smallest(rows []sortedRow, n int, order func(a, b sortedRow) int) []sortedRow {
	if n >= len(rows) || n*4 >= len(rows) {
		slices.SortFunc(rows, order)
		if n < len(rows) {
			rows = rows[:n]
		}
		return rows
	}
	if n <= 0 {
		return nil
	}
	// A max-heap of the n smallest rows seen so far.
	h := make([]sortedRow, 0, n)
	less := func(i, j int) bool { return order(h[i], h[j]) > 0 }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			m := l
			if r := l + 1; r < len(h) && less(r, l) {
				m = r
			}
			if !less(m, i) {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for _, r := range rows {
		if len(h) < n {
			h = append(h, r)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !less(i, p) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if order(r, h[0]) < 0 {
			h[0] = r
			down(0)
		}
	}
	slices.SortFunc(h, order)
	return h
}

// full serves DISTINCT, GROUP BY and aggregate queries: the whole result is computed on every page
// and the token carries the index of the next result.
func (x *execution) full(tok *contToken) *Page {
	q := x.q.sel
	ev := x.ev
	var rows []*env
	scratch := &env{}
	for di := range x.n() {
		x.scanned++
		ev.forEachRow(q, nil, true, x.val(di), func(vals []any) bool {
			e := scratch
			e.vals = vals
			if q.where != nil && !ev.truthy(q.where, e) {
				return ev.err == nil
			}
			rows = append(rows, &env{vals: append([]any(nil), vals...)})
			return ev.err == nil
		})
		if ev.err != nil {
			return nil
		}
	}
	outs := ev.pipeline(q, rows, nil)
	start := 0
	if tok != nil {
		start = tok.Index
	}
	i := start
	for ; i < len(outs); i++ {
		b := outs[i].json
		if b == nil {
			b = marshalValue(nil, outs[i].val)
		}
		if !x.add(b) {
			break
		}
	}
	x.page.Scanned = x.scanned
	if i < len(outs) {
		x.page.Continuation = encodeToken(&contToken{Mode: modeFull, Index: i, Take: -1}, x.hash)
	}
	return &x.page
}
