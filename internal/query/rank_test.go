package query

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// rankCorpus: texts with known word counts, and 2-dimensional vectors.
var rankCorpus = []struct {
	id, text string
	vec      []any
}{
	{"a", "hiking boots for rocky trails", []any{1.0, 0.0}},
	{"b", "boots boots boots", []any{0.0, 1.0}},
	{"c", "a tent for the mountain", []any{0.8, 0.6}},
	{"d", "rocky mountain hiking guide with maps of every rocky trail", []any{0.6, 0.8}},
	{"e", "nothing relevant here", []any{-1.0, 0.0}},
}

func rankDocs() []Document {
	docs := make([]Document, len(rankCorpus))
	for i, c := range rankCorpus {
		docs[i] = Document{Key: c.id, Value: map[string]any{"id": c.id, "text": c.text, "v": c.vec}}
	}
	return docs
}

// wantBM25 recomputes BM25 (k1 1.2, b 0.75) from the corpus by the textbook formula.
func wantBM25(text string, words []string) float64 {
	n := float64(len(rankCorpus))
	total := 0
	for _, c := range rankCorpus {
		total += len(strings.Fields(c.text))
	}
	avgdl := float64(total) / n
	doc := strings.Fields(text)
	score := 0.0
	for _, w := range words {
		df := 0
		for _, c := range rankCorpus {
			if slices.Contains(strings.Fields(c.text), w) {
				df++
			}
		}
		tf := 0
		for _, d := range doc {
			if d == w {
				tf++
			}
		}
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		score += idf * float64(tf) * 2.2 / (float64(tf) + 1.2*(1-0.75+0.75*float64(len(doc))/avgdl))
	}
	return score
}

func rankIDs(t *testing.T, text string, params map[string]any) []string {
	t.Helper()
	q := mustParse(t, text)
	p := mustExecute(t, q, rankDocs(), Options{Params: params, Vector: VectorDefaults{ByPath: map[string]VectorSpec{"/v": {DistanceFunction: "cosine", DataType: "float32", Dimensions: 2}}}})
	var out []string
	for _, r := range p.Results {
		var v any
		if err := json.Unmarshal(r, &v); err != nil {
			t.Fatal(err)
		}
		if m, ok := v.(map[string]any); ok {
			v = m["id"]
		}
		out = append(out, v.(string))
	}
	return out
}

// byScore returns the ids ordered by score (descending, ties by corpus order), keeping those keep accepts.
func byScore(score func(i int) float64, keep func(i int) bool) []string {
	idx := []int{}
	for i := range rankCorpus {
		if keep(i) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch sa, sb := score(a), score(b); {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	ids := make([]string, len(idx))
	for i, x := range idx {
		ids[i] = rankCorpus[x].id
	}
	return ids
}

func TestFullTextScoreOrdersByBM25(t *testing.T) {
	words := []string{"rocky", "boots"}
	want := byScore(func(i int) float64 { return wantBM25(rankCorpus[i].text, words) }, func(int) bool { return true })
	got := rankIDs(t, `SELECT VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, "Rocky", @t)`, map[string]any{"@t": "boots"})
	if !slices.Equal(got, want) {
		t.Fatalf("ORDER BY RANK FullTextScore: %v, want %v", got, want)
	}
	// d mentions "rocky" twice in a long text, a once in a short one: BM25 weighs both.
	if wantBM25(rankCorpus[3].text, words) == wantBM25(rankCorpus[0].text, words) {
		t.Fatal("corpus does not discriminate")
	}
	// The array form of the terms (preview syntax), WHERE and TOP.
	got = rankIDs(t, `SELECT TOP 2 c.id FROM c WHERE FullTextContains(c.text, "hiking") ORDER BY RANK FullTextScore(c.text, ["rocky", "boots"])`, nil)
	wantTop := byScore(func(i int) float64 { return wantBM25(rankCorpus[i].text, words) },
		func(i int) bool { return strings.Contains(rankCorpus[i].text, "hiking") })[:2]
	if !slices.Equal(got, wantTop) {
		t.Fatalf("TOP 2 with WHERE: %v, want %v", got, wantTop)
	}
}

func TestBM25Score(t *testing.T) {
	docs := rankDocs()
	q := mustParse(t, `SELECT * FROM c ORDER BY RANK FullTextScore(c.text, "rocky", "boots")`)
	ev := newEvaluator(Options{})
	ev.corpus = docs
	terms := [][]string{{"rocky"}, {"boots"}}
	st := ev.bm25(q.sel, q.sel.orderBy[0].x.(*callExpr), terms)
	for _, c := range rankCorpus {
		got := bm25Score(fullTextWords(c.text), terms, st)
		if want := wantBM25(c.text, []string{"rocky", "boots"}); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.id, got, want)
		}
	}
}

func TestRRFFusesRankings(t *testing.T) {
	query := []float64{0.6, 0.8}
	cos := func(i int) float64 {
		v := rankCorpus[i].vec
		a, b := v[0].(float64), v[1].(float64)
		return (a*query[0] + b*query[1]) / math.Hypot(a, b)
	}
	words := []string{"rocky", "mountain"}
	bm := func(i int) float64 { return wantBM25(rankCorpus[i].text, words) }
	all := func(int) bool { return true }
	// Dense ranks (equal scores share one), best first; reversed for a negative weight: 1 + the
	// number of distinct better scores.
	rankOf := func(score func(int) float64, reverse bool) map[string]int {
		m := map[string]int{}
		for i, c := range rankCorpus {
			better := map[float64]bool{}
			for j := range rankCorpus {
				if s := score(j); s > score(i) && !reverse || s < score(i) && reverse {
					better[s] = true
				}
			}
			m[c.id] = 1 + len(better)
		}
		return m
	}
	for _, w := range [][2]float64{{1, 1}, {3, 1}, {1, -1}} {
		vr, fr := rankOf(cos, w[0] < 0), rankOf(bm, w[1] < 0)
		rrf := func(i int) float64 {
			id := rankCorpus[i].id
			return math.Abs(w[0])/float64(60+vr[id]) + math.Abs(w[1])/float64(60+fr[id])
		}
		want := byScore(rrf, all)
		got := rankIDs(t, `SELECT c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, @q), FullTextScore(c.text, "rocky", "mountain"), @w)`,
			map[string]any{"@q": []any{0.6, 0.8}, "@w": []any{w[0], w[1]}})
		if w == [2]float64{1, 1} {
			// Without weights: the same as weights 1.
			got = rankIDs(t, `SELECT c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, @q), FullTextScore(c.text, "rocky", "mountain"))`,
				map[string]any{"@q": []any{0.6, 0.8}})
		}
		if !slices.Equal(got, want) {
			t.Errorf("weights %v: %v, want %v", w, got, want)
		}
	}
}

func TestScoringFunctionsRefusedOutsideOrderByRank(t *testing.T) {
	for _, text := range []string{
		`SELECT FullTextScore(c.text, "a") AS s FROM c`,
		`SELECT * FROM c WHERE FullTextScore(c.text, "a") > 1`,
		`SELECT * FROM c ORDER BY FullTextScore(c.text, "a")`,
		`SELECT VALUE RRF(FullTextScore(c.text, "a")) FROM c`,
		`SELECT * FROM c ORDER BY RANK c.text`,
		`SELECT * FROM c ORDER BY RANK VectorDistance(c.v, [1, 2])`,
		`SELECT * FROM c ORDER BY RANK FullTextScore(c.text, "a") DESC`,
		`SELECT * FROM c ORDER BY RANK FullTextScore(c.text, "a"), c.id`,
		`SELECT * FROM c ORDER BY RANK FullTextScore("text", "a")`,
		`SELECT * FROM c ORDER BY RANK RRF(FullTextScore(c.text, "a"), c.x)`,
		`SELECT * FROM c ORDER BY RANK RRF(FullTextScore(c.text, "a"), FullTextScore(c.t, "b"), [1])`,
		`SELECT * FROM c ORDER BY RANK FullTextScore(c.text, FullTextScore(c.text, "a"))`,
		`SELECT DISTINCT c.id FROM c ORDER BY RANK FullTextScore(c.text, "a")`,
		`SELECT * FROM (SELECT * FROM c ORDER BY RANK FullTextScore(c.text, "a")) d`,
	} {
		if _, err := Parse(text); err == nil {
			t.Errorf("%s: accepted", text)
		} else if e := (*Error)(nil); !errors.As(err, &e) || e.Code != "BadRequest" {
			t.Errorf("%s: %v", text, err)
		}
	}
}
