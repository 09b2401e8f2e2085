package query

import (
	"fmt"
	"testing"
)

// indexFor returns an index matching q's ORDER BY, or nil when its items are not root paths.
func indexFor(q *Query, docs []Document) *Index {
	var paths []IndexPath
	for _, ob := range q.sel.orderBy {
		p := rootPath(ob.x)
		if p == "" {
			return nil
		}
		paths = append(paths, IndexPath{Path: p, Descending: ob.desc})
	}
	if len(paths) == 0 {
		return nil
	}
	return NewIndex(docs, paths)
}

func TestIndexGivesSameResultsAsScan(t *testing.T) {
	all, cases := loadTable(t)
	used := 0
	for _, tc := range cases {
		if tc.ExpectError != "" {
			continue
		}
		q := mustParse(t, tc.Query)
		docs := partitionDocs(all, tc.PartitionKey)
		ix := indexFor(q, docs)
		if ix == nil || q.mode() != modeOrdered || !ix.serves(q.sel, docs) {
			continue
		}
		used++
		want := mustExecute(t, q, docs, Options{Params: tc.Params, MaxItemCount: -1})
		for _, size := range []int{-1, 1, 2, 7} {
			var got []string
			token := ""
			for {
				p := mustExecute(t, q, docs, Options{Params: tc.Params, MaxItemCount: size, Continuation: token, Index: ix})
				for _, r := range p.Results {
					got = append(got, string(r))
				}
				if p.Continuation == "" {
					break
				}
				token = p.Continuation
			}
			if fmt.Sprint(got) != fmt.Sprint(ids2(want)) {
				t.Errorf("%s, page size %d: indexed %v, scan %v", tc.Name, size, got, ids2(want))
			}
		}
	}
	if used < 10 {
		t.Fatalf("only %d table queries used an index", used)
	}
}

func ids2(p *Page) []string {
	out := make([]string, len(p.Results))
	for i, r := range p.Results {
		out[i] = string(r)
	}
	return out
}

func TestIndexResumesAcrossWritesAndScanTokens(t *testing.T) {
	q := mustParse(t, "SELECT VALUE c.id FROM c WHERE c.n != 3 ORDER BY c.grp DESC, c.n")
	docs := numberedDocs(12)
	paths := []IndexPath{{Path: "/grp", Descending: true}, {Path: "/n"}}
	p := mustExecute(t, q, docs, Options{MaxItemCount: 4, Index: NewIndex(docs, paths)})
	got := ids(t, p.Results)
	docs = insertDoc(docs, Document{Key: "z", Value: map[string]any{"id": "z", "grp": 0.0, "n": -1.0}})
	docs = insertDoc(docs, Document{Key: "a", Value: map[string]any{"id": "a", "grp": 2.0, "n": -1.0}})
	token := p.Continuation
	useIndex := false
	for token != "" {
		opts := Options{MaxItemCount: 4, Continuation: token}
		if useIndex {
			opts.Index = NewIndex(docs, paths)
		}
		useIndex = !useIndex
		p = mustExecute(t, q, docs, opts)
		got = append(got, ids(t, p.Results)...)
		token = p.Continuation
	}
	// grp 2: 2,5,8,11; grp 1: 1,4,7,10; grp 0: z(-1),0,6,9 ("a" sorts before the first page's end).
	want := "[d0002 d0005 d0008 d0011 d0001 d0004 d0007 d0010 z d0000 d0006 d0009]"
	if fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestIndexIgnoredWhenItDoesNotMatch(t *testing.T) {
	docs := numberedDocs(5)
	ix := NewIndex(docs, []IndexPath{{Path: "/n", Descending: true}})
	q := mustParse(t, "SELECT VALUE c.id FROM c ORDER BY c.n")
	if ix.serves(q.sel, docs) || ix.serves(q.sel, docs[:3]) {
		t.Fatal("index serves a query with another direction or another document set")
	}
	p := mustExecute(t, q, docs, Options{Index: ix})
	if got := fmt.Sprint(ids(t, p.Results)); got != "[d0000 d0001 d0002 d0003 d0004]" {
		t.Fatalf("got %v", got)
	}
}
