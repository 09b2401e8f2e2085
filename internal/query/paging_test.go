package query

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

func numberedDocs(n int) []Document {
	docs := make([]Document, n)
	for i := range docs {
		id := fmt.Sprintf("d%04d", i)
		docs[i] = Document{Key: id, Value: map[string]any{"id": id, "n": float64(i), "grp": float64(i % 3), "tags": []any{"x", "y"}}}
	}
	return docs
}

func mustParse(t testing.TB, text string) *Query {
	t.Helper()
	q, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	return q
}

func mustExecute(t testing.TB, q *Query, docs []Document, opts Options) *Page {
	t.Helper()
	p, err := q.Execute(docs, opts)
	if err != nil {
		t.Fatalf("Execute(%q): %v", q.Text(), err)
	}
	return p
}

func ids(t testing.TB, rs []json.RawMessage) []string {
	t.Helper()
	out := make([]string, len(rs))
	for i, r := range rs {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			t.Fatalf("result %s: %v", r, err)
		}
	}
	return out
}

func insertDoc(docs []Document, d Document) []Document {
	docs = append(docs, d)
	sort.Slice(docs, func(i, j int) bool { return docs[i].Key < docs[j].Key })
	return docs
}

// TestDefaultPageSizeAndTrailingEmptyPage: pages hold 100 results by default; a page that fills
// exactly carries a continuation even when nothing follows (the service does not look ahead), and
// the page after it is empty and ends the query.
func TestDefaultPageSizeAndTrailingEmptyPage(t *testing.T) {
	q := mustParse(t, "SELECT VALUE c.id FROM c")
	docs := numberedDocs(250)
	var sizes []int
	token := ""
	for {
		p := mustExecute(t, q, docs, Options{Continuation: token})
		sizes = append(sizes, len(p.Results))
		if p.Continuation == "" {
			break
		}
		token = p.Continuation
	}
	if fmt.Sprint(sizes) != "[100 100 50]" {
		t.Fatalf("page sizes %v, want [100 100 50]", sizes)
	}
	p := mustExecute(t, q, numberedDocs(10), Options{MaxItemCount: 5})
	if p.Continuation == "" {
		t.Fatal("first of two pages has no continuation")
	}
	p = mustExecute(t, q, numberedDocs(10), Options{MaxItemCount: 5, Continuation: p.Continuation})
	if len(p.Results) != 5 || p.Continuation == "" {
		t.Fatalf("second page: %d results, continuation %q; want 5 and a continuation", len(p.Results), p.Continuation)
	}
	p = mustExecute(t, q, numberedDocs(10), Options{MaxItemCount: 5, Continuation: p.Continuation})
	if len(p.Results) != 0 || p.Continuation != "" {
		t.Fatalf("third page: %d results, continuation %q; want an empty last page", len(p.Results), p.Continuation)
	}
	// A TOP that is used up ends the query on the page it fills.
	p = mustExecute(t, mustParse(t, "SELECT TOP 5 VALUE c.id FROM c"), numberedDocs(10), Options{MaxItemCount: 5})
	if len(p.Results) != 5 || p.Continuation != "" {
		t.Fatalf("TOP 5 in pages of 5: %d results, continuation %q; want 5 and none", len(p.Results), p.Continuation)
	}
}

func TestStreamingResumesAcrossWrites(t *testing.T) {
	q := mustParse(t, "SELECT VALUE c.id FROM c WHERE c.n >= 0")
	docs := numberedDocs(6) // d0000..d0005
	p := mustExecute(t, q, docs, Options{MaxItemCount: 2})
	got := ids(t, p.Results)
	// Between pages: one document before the position, one after, and one already-unseen removed.
	docs = insertDoc(docs, Document{Key: "d0000a", Value: map[string]any{"id": "d0000a", "n": 1.0}})
	docs = insertDoc(docs, Document{Key: "d0003a", Value: map[string]any{"id": "d0003a", "n": 1.0}})
	for i, d := range docs {
		if d.Key == "d0004" {
			docs = append(docs[:i], docs[i+1:]...)
			break
		}
	}
	token := p.Continuation
	for token != "" {
		p = mustExecute(t, q, docs, Options{MaxItemCount: 2, Continuation: token})
		got = append(got, ids(t, p.Results)...)
		token = p.Continuation
	}
	want := "[d0000 d0001 d0002 d0003 d0003a d0005]"
	if fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestJoinPagingResumesWithinDocument(t *testing.T) {
	q := mustParse(t, "SELECT VALUE [c.id, t] FROM c JOIN t IN c.tags")
	docs := numberedDocs(3)
	var got []string
	token := ""
	for {
		p := mustExecute(t, q, docs, Options{MaxItemCount: 1, Continuation: token})
		for _, r := range p.Results {
			got = append(got, string(r))
		}
		if p.Continuation == "" {
			break
		}
		token = p.Continuation
		// Rewrite the current document between pages: rows already returned are not repeated.
		docs[0].Value = map[string]any{"id": "d0000", "tags": []any{"x", "y"}}
	}
	want := `[["d0000","x"] ["d0000","y"] ["d0001","x"] ["d0001","y"] ["d0002","x"] ["d0002","y"]]`
	if fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestOrderedPagingAcrossWrites(t *testing.T) {
	q := mustParse(t, "SELECT VALUE c.id FROM c ORDER BY c.n DESC")
	docs := numberedDocs(6)
	p := mustExecute(t, q, docs, Options{MaxItemCount: 2})
	got := ids(t, p.Results) // d0005, d0004
	// A document that sorts before the position (n=10) must not appear; one after it (n=2.5) must.
	docs = insertDoc(docs, Document{Key: "e1", Value: map[string]any{"id": "e1", "n": 10.0}})
	docs = insertDoc(docs, Document{Key: "e2", Value: map[string]any{"id": "e2", "n": 2.5}})
	token := p.Continuation
	for token != "" {
		p = mustExecute(t, q, docs, Options{MaxItemCount: 2, Continuation: token})
		got = append(got, ids(t, p.Results)...)
		token = p.Continuation
	}
	want := "[d0005 d0004 d0003 e2 d0002 d0001 d0000]"
	if fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestOrderedPagingWithTiesAndTop(t *testing.T) {
	q := mustParse(t, "SELECT TOP 7 VALUE c.id FROM c ORDER BY c.grp")
	docs := numberedDocs(12)
	full := mustExecute(t, q, docs, Options{MaxItemCount: -1})
	for size := 1; size <= 8; size++ {
		var got []string
		token := ""
		for {
			p := mustExecute(t, q, docs, Options{MaxItemCount: size, Continuation: token})
			got = append(got, ids(t, p.Results)...)
			if p.Continuation == "" {
				break
			}
			token = p.Continuation
		}
		if fmt.Sprint(got) != fmt.Sprint(ids(t, full.Results)) || len(got) != 7 {
			t.Fatalf("page size %d: got %v, want %v", size, got, ids(t, full.Results))
		}
	}
}

func TestMaxBytes(t *testing.T) {
	q := mustParse(t, "SELECT * FROM c")
	docs := numberedDocs(5)
	p := mustExecute(t, q, docs, Options{MaxBytes: 1})
	if len(p.Results) != 1 || p.Continuation == "" {
		t.Fatalf("with a 1-byte budget: %d results, continuation %q; want 1 and a continuation", len(p.Results), p.Continuation)
	}
	one := len(p.Results[0])
	p = mustExecute(t, q, docs, Options{MaxBytes: 2*one + 1, MaxItemCount: -1})
	if len(p.Results) != 2 {
		t.Fatalf("with a two-result budget: %d results", len(p.Results))
	}
}

func TestScannedCountsDocuments(t *testing.T) {
	docs := numberedDocs(20)
	p := mustExecute(t, mustParse(t, "SELECT VALUE COUNT(1) FROM c WHERE c.n > 15"), docs, Options{})
	if p.Scanned != 20 {
		t.Fatalf("aggregate scanned %d, want 20", p.Scanned)
	}
	p = mustExecute(t, mustParse(t, "SELECT * FROM c"), docs, Options{MaxItemCount: 5})
	if p.Scanned < 5 || p.Scanned > 6 {
		t.Fatalf("first page of 5 scanned %d, want 5 or 6", p.Scanned)
	}
}

func TestInvalidContinuationTokens(t *testing.T) {
	docs := numberedDocs(10)
	queries := []string{
		"SELECT VALUE c.id FROM c",
		"SELECT VALUE c.id FROM c ORDER BY c.n",
		"SELECT DISTINCT VALUE c.grp FROM c",
	}
	for _, text := range queries {
		q := mustParse(t, text)
		p := mustExecute(t, q, docs, Options{MaxItemCount: 1, Params: map[string]any{"@x": 1}})
		good := p.Continuation
		raw, _ := base64.RawURLEncoding.DecodeString(good)
		bad := []string{
			"garbage!!",
			base64.RawURLEncoding.EncodeToString([]byte("{not json")),
			base64.RawURLEncoding.EncodeToString([]byte(`{"v":1}`)),
			base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), `"v":1`, `"v":9`, 1))),
			base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), `"t":`, `"t":-7,"x":`, 1))),
			good[:len(good)/2],
		}
		for _, tok := range bad {
			_, err := q.Execute(docs, Options{MaxItemCount: 1, Continuation: tok, Params: map[string]any{"@x": 1}})
			var qe *Error
			if !errors.As(err, &qe) || qe.Code != "BadRequest" {
				t.Errorf("%s: token %q: got %v, want a BadRequest *Error", text, tok, err)
			}
		}
		// The same token with other parameter values, or on another query, is refused.
		if _, err := q.Execute(docs, Options{MaxItemCount: 1, Continuation: good, Params: map[string]any{"@x": 2}}); err == nil {
			t.Errorf("%s: token accepted with other parameters", text)
		}
		other := mustParse(t, text+" ")
		if _, err := other.Execute(docs, Options{MaxItemCount: 1, Continuation: good, Params: map[string]any{"@x": 1}}); err == nil {
			t.Errorf("%s: token accepted by another query", text)
		}
		if _, err := q.Execute(docs, Options{MaxItemCount: 1, Continuation: good, Params: map[string]any{"@x": 1}}); err != nil {
			t.Errorf("%s: valid token refused: %v", text, err)
		}
	}
}

func TestTopParameterMustBeNonNegativeInteger(t *testing.T) {
	q := mustParse(t, "SELECT TOP @n * FROM c")
	for _, v := range []any{-1, 1.5, "3", nil} {
		_, err := q.Execute(numberedDocs(3), Options{Params: map[string]any{"@n": v}})
		var qe *Error
		if !errors.As(err, &qe) {
			t.Errorf("TOP %v: got %v, want *Error", v, err)
		}
	}
	p := mustExecute(t, q, numberedDocs(3), Options{Params: map[string]any{"n": 2}})
	if len(p.Results) != 2 {
		t.Fatalf("TOP 2 (parameter given without @) returned %d results", len(p.Results))
	}
}

func TestGetCurrentDateTimeUsesOptionsNow(t *testing.T) {
	q := mustParse(t, "SELECT VALUE [GetCurrentDateTime(), GetCurrentTimestamp(), GetCurrentTicks()]")
	now := mustTime(t, "2025-06-01T12:00:00.5Z")
	p := mustExecute(t, q, nil, Options{Now: now})
	want := `["2025-06-01T12:00:00.5000000Z",1748779200500,17487792005000000]`
	if string(p.Results[0]) != want {
		t.Fatalf("got %s, want %s", p.Results[0], want)
	}
}

func TestVectorDistanceDefaultsToPolicy(t *testing.T) {
	docs := []Document{
		{Key: "1", Value: map[string]any{"id": "1", "v": []any{1.0, 0.0}}},
		{Key: "2", Value: map[string]any{"id": "2", "v": []any{3.0, 4.0}}},
		{Key: "3", Value: map[string]any{"id": "3", "v": []any{0.0, 1.0}}},
	}
	q := mustParse(t, "SELECT VALUE {\"id\": c.id, \"s\": VectorDistance(c.v, @q)} FROM c ORDER BY VectorDistance(c.v, @q)")
	params := map[string]any{"@q": []any{0.0, 0.0}}
	euclid := VectorDefaults{ByPath: map[string]VectorSpec{"/v": {DistanceFunction: "euclidean", DataType: "float32", Dimensions: 2}}}
	p := mustExecute(t, q, docs, Options{Params: params, Vector: euclid})
	if got := joinRaw(p.Results); got != `[{"id":"1","s":1},{"id":"3","s":1},{"id":"2","s":5}]` {
		t.Fatalf("euclidean: %s", got)
	}
	dot := VectorDefaults{ByPath: map[string]VectorSpec{"/v": {DistanceFunction: "dotproduct"}}}
	p = mustExecute(t, q, docs, Options{Params: map[string]any{"@q": []float64{1, 1}}, Vector: dot})
	if got := joinRaw(p.Results); got != `[{"id":"2","s":7},{"id":"1","s":1},{"id":"3","s":1}]` {
		t.Fatalf("dotproduct: %s", got)
	}
}

func TestConcurrentExecute(t *testing.T) {
	q := mustParse(t, "SELECT c.id, ARRAY(SELECT VALUE t FROM t IN c.tags WHERE t LIKE 'x%') AS x FROM c WHERE REGEXMATCH(c.id, '^d') ORDER BY c.n DESC")
	docs := numberedDocs(50)
	want := joinRaw(mustExecute(t, q, docs, Options{MaxItemCount: -1}).Results)
	done := make(chan string)
	for range 8 {
		go func() {
			p, err := q.Execute(docs, Options{MaxItemCount: -1})
			if err != nil {
				done <- err.Error()
				return
			}
			done <- joinRaw(p.Results)
		}()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Fatalf("concurrent result differs: %s", got)
		}
	}
}

func TestResourceLimits(t *testing.T) {
	saved := defaultMaxRows
	defaultMaxRows = 100_000
	t.Cleanup(func() { defaultMaxRows = saved })
	docs := numberedDocs(2)
	for _, text := range []string{
		// 10^8 JOIN rows per document.
		"SELECT VALUE 1 FROM c JOIN a IN [0,1,2,3,4,5,6,7,8,9] JOIN b IN [0,1,2,3,4,5,6,7,8,9] JOIN d IN [0,1,2,3,4,5,6,7,8,9] JOIN e IN [0,1,2,3,4,5,6,7,8,9] JOIN f IN [0,1,2,3,4,5,6,7,8,9] JOIN g IN [0,1,2,3,4,5,6,7,8,9] JOIN h IN [0,1,2,3,4,5,6,7,8,9] JOIN i IN [0,1,2,3,4,5,6,7,8,9] WHERE false",
		// A string that doubles with every JOIN.
		"SELECT VALUE LENGTH(s9) FROM c JOIN s0 IN [REPLICATE('a', 10000)] JOIN s1 IN [s0 || s0] JOIN s2 IN [s1 || s1] JOIN s3 IN [s2 || s2] JOIN s4 IN [s3 || s3] JOIN s5 IN [s4 || s4] JOIN s6 IN [s5 || s5] JOIN s7 IN [s6 || s6] JOIN s8 IN [s7 || s7] JOIN s9 IN [s8 || s8]",
	} {
		_, err := mustParse(t, text).Execute(docs, Options{})
		var qe *Error
		if !errors.As(err, &qe) || !strings.Contains(qe.Message, "resource limits") {
			t.Errorf("%.60s...: got %v, want the resource-limit error", text, err)
		}
	}
}
