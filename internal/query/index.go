package query

import (
	"slices"
	"sort"
	"strings"
)

// IndexPath is one component of a composite index: a property path such as "/price" or "/a/b" and
// its sort order.
type IndexPath struct {
	Path       string
	Descending bool
}

// Index is a composite index over one slice of documents, the in-memory counterpart of a container's
// composite index. An ORDER BY query whose items are exactly the index's paths, in the same order and
// directions, reads documents in index order and stops once its page is full, instead of evaluating
// every document. An Index is immutable and describes only the slice it was built from: rebuild it
// when the documents change.
type Index struct {
	paths []IndexPath
	order []int   // positions in the documents, in index order
	vals  [][]any // the indexed values of order[i]
	keys  []string
}

// NewIndex builds an index over docs (sorted by Key, as for Execute) on the given paths.
func NewIndex(docs []Document, paths []IndexPath) *Index {
	ix := &Index{paths: slices.Clone(paths), order: make([]int, len(docs)), vals: make([][]any, len(docs)), keys: make([]string, len(docs))}
	desc := make([]bool, len(paths))
	for i, p := range paths {
		desc[i] = p.Descending
	}
	segs := make([][]string, len(paths))
	for j, p := range paths {
		segs[j] = strings.Split(strings.TrimPrefix(p.Path, "/"), "/")
	}
	all := make([]any, len(docs)*len(paths))
	rowVals := make([][]any, len(docs))
	for i, d := range docs {
		v := all[i*len(paths) : (i+1)*len(paths)]
		for j := range paths {
			v[j] = lookupPath(d.root(), segs[j])
		}
		rowVals[i] = v
		ix.order[i] = i
	}
	slices.SortFunc(ix.order, func(da, db int) int {
		if c := compareSort(desc, rowVals[da], rowVals[db]); c != 0 {
			return c
		}
		return strings.Compare(docs[da].Key, docs[db].Key)
	})
	for i, di := range ix.order {
		ix.vals[i] = rowVals[di]
		ix.keys[i] = docs[di].Key
	}
	return ix
}

// lookupPath reads the property path segs ("a", "b" for "/a/b") from a document; undefined when
// missing.
func lookupPath(doc any, segs []string) any {
	cur := doc
	for _, seg := range segs {
		if cur = property(cur, seg); isUndef(cur) {
			return undefined
		}
	}
	return cur
}

// serves reports whether the index can drive q's ORDER BY over docs.
func (ix *Index) serves(q *selectQuery, docs []Document) bool {
	if ix == nil || len(ix.order) != len(docs) || len(q.orderBy) != len(ix.paths) || len(q.sources) == 0 ||
		q.sources[0].in || q.sources[0].sub != nil {
		return false
	}
	for i, ob := range q.orderBy {
		if rootPath(ob.x) != ix.paths[i].Path || ob.desc != ix.paths[i].Descending {
			return false
		}
	}
	return true
}

// orderedIndexed serves an ORDER BY query by walking the index from the continuation's position.
func (x *execution) orderedIndexed(tok *contToken) *Page {
	q := x.q.sel
	ev := x.ev
	ix := x.index
	desc := make([]bool, len(ix.paths))
	for i, p := range ix.paths {
		desc[i] = p.Descending
	}
	start := 0
	var posSort []any
	if tok != nil {
		posSort = tok.sortValues()
		start = sort.Search(len(ix.order), func(i int) bool {
			if c := compareSort(desc, ix.vals[i], posSort); c != 0 {
				return c > 0
			}
			return ix.keys[i] >= tok.Key
		})
	}
	scratch := &env{}
	more, done := false, x.take == 0
	lastPos, lastRow := -1, -1
	for i := start; i < len(ix.order) && !more && !done; i++ {
		di := ix.order[i]
		resume := tok != nil && ix.keys[i] == tok.Key && compareSort(desc, ix.vals[i], posSort) == 0
		x.scanned++
		row := -1
		ev.forEachRow(q, nil, true, x.docs[di].root(), func(vals []any) bool {
			row++
			if resume && row <= tok.Row {
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
			if !x.add(marshalValue(nil, out)) {
				more = true
				return false
			}
			lastPos, lastRow = i, row
			if x.take > 0 {
				x.take--
				if x.take == 0 {
					done = true
					return false
				}
			}
			return ev.err == nil
		})
		if ev.err != nil {
			return nil
		}
	}
	x.page.Scanned = x.scanned
	if more && !done && lastPos >= 0 {
		t := &contToken{Mode: modeOrdered, Key: ix.keys[lastPos], Row: lastRow, Skip: x.skip, Take: x.take}
		t.setSortValues(ix.vals[lastPos])
		x.page.Continuation = encodeToken(t, x.hash)
	}
	return &x.page
}
