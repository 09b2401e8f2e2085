package query

import (
	"math"
	"slices"
	"strings"
)

// ORDER BY RANK: full-text scoring (FullTextScore, BM25) and reciprocal rank fusion (RRF).
//
// FullTextScore(c.path, term1, term2, ...) is the BM25 relevance of the text at c.path for the
// terms, over the documents the execution reads (its partition key scope or partition key range;
// the service's gateway plans a cross-partition query with global statistics instead, see
// hybridSearchQueryInfo). Tokenization is that of the full-text predicates (functions_fulltext.go):
// words split at every rune that is not a letter or digit, lower-cased, no stemming or stop words.
// The query's words are the words of every term (a term of several words contributes each of them),
// each counted once. For a document d with dl words, over N documents with avgdl words per document
// at the path on average, and n(w) documents containing word w:
//
//	score(d) = Σ_w idf(w) · tf(w,d)·(k1+1) / (tf(w,d) + k1·(1 − b + b·dl/avgdl))
//	idf(w)   = ln(1 + (N − n(w) + 0.5) / (n(w) + 0.5))
//
// with k1 = 1.2 and b = 0.75, the usual BM25 constants (the service does not publish its own).
//
// RRF(s1, s2, ..., [w1, w2, ...]) fuses the rankings of its scoring functions (FullTextScore or
// VectorDistance, the latter ordered by the vector policy's direction): each result gets
// Σ_i w_i / (60 + rank_i), rank_i counting from 1 in component i's order (ties keep document order),
// weights 1 when absent. A result a component cannot score (no text, no vector) gets nothing from it.
//
// Both can only appear as the single item of ORDER BY RANK, which orders by the score, highest
// first, and takes no ASC or DESC; RRF's arguments must be scoring functions. The service's messages
// for misuse are not documented: the wording of these 400s is the emulator's own.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
	rrfK   = 60
)

func init() {
	// Evaluated by rankScores; a call anywhere else is refused by checkScoring.
	register("FULLTEXTSCORE", 2, -1, func(_ *evaluator, _ []any) any { return undefined })
	register("RRF", 1, -1, func(_ *evaluator, _ []any) any { return undefined })
}

const rrfWeights = "The weights of RRF must be an array with one number per scoring function."

var scoringName = map[string]string{"FULLTEXTSCORE": "FullTextScore", "RRF": "RRF"}

func isCall(x expr, name string) bool {
	c, ok := x.(*callExpr)
	return ok && c.name == name
}

// checkScoring enforces where FullTextScore and RRF may appear: only as the ORDER BY RANK item of
// the root query, RRF's arguments being scoring functions and an optional array of weights last.
func checkScoring(q *selectQuery, root bool) error {
	misplaced := func(x expr) error {
		var err error
		walk(x, func(e expr) bool {
			if isCall(e, "FULLTEXTSCORE") || isCall(e, "RRF") {
				err = badRequest("%s can only be used in an ORDER BY RANK clause or as an argument of RRF.", scoringName[e.(*callExpr).name])
			}
			return err == nil
		})
		return err
	}
	xs := []expr{q.value, q.where, q.top}
	for _, it := range q.items {
		xs = append(xs, it.x)
	}
	xs = append(xs, q.groupBy...)
	if !q.rank {
		for _, o := range q.orderBy {
			xs = append(xs, o.x)
		}
	}
	for _, x := range xs {
		if err := misplaced(x); err != nil {
			return err
		}
	}
	if !q.rank {
		return nil
	}
	if !root {
		return badRequest("cosmostest does not support ORDER BY RANK in a subquery.")
	}
	if len(q.groupBy) > 0 || q.distinct {
		return badRequest("ORDER BY RANK cannot be used with GROUP BY or DISTINCT.")
	}
	c, ok := q.orderBy[0].x.(*callExpr)
	if !ok || c.name != "FULLTEXTSCORE" && c.name != "RRF" {
		return badRequest("ORDER BY RANK requires a scoring function: FullTextScore or RRF.")
	}
	if c.name == "FULLTEXTSCORE" {
		return checkFullTextScore(c, misplaced)
	}
	comps, weights := rrfParts(c)
	if len(comps) == 0 {
		return badRequest("RRF requires at least one scoring function argument.")
	}
	for _, a := range comps {
		switch {
		case isCall(a, "FULLTEXTSCORE"):
			if err := checkFullTextScore(a.(*callExpr), misplaced); err != nil {
				return err
			}
		case isCall(a, "VECTORDISTANCE"):
			if err := misplaced(a); err != nil {
				return err
			}
		default:
			return badRequest("The arguments of RRF must be scoring functions (FullTextScore or VectorDistance), optionally followed by an array of weights.")
		}
	}
	if w, ok := weights.(arrayExpr); ok && len(w.elems) != len(comps) {
		return badRequest(rrfWeights)
	}
	return nil
}

func checkFullTextScore(c *callExpr, misplaced func(expr) error) error {
	if !isDocumentPath(c.args[0]) {
		return badRequest("The first argument of FullTextScore must be a document property path.")
	}
	for _, a := range c.args {
		if err := misplaced(a); err != nil {
			return err
		}
	}
	return nil
}

// isDocumentPath reports whether x is a property path on the root alias (c.text, c["text"].en).
func isDocumentPath(x expr) bool {
	for depth := 0; ; depth++ {
		switch e := x.(type) {
		case propExpr:
			x = e.obj
			continue
		case indexExpr:
			if _, ok := e.index.(litExpr); !ok {
				return false
			}
			x = e.obj
			continue
		case *identExpr:
			return depth > 0 && e.depth == 0 && e.slot == 0
		}
		return false
	}
}

// checkRankSubqueries refuses ORDER BY RANK in a FROM subquery (the resolver sees those as root).
func checkRankSubqueries(q *selectQuery) error {
	for len(q.sources) > 0 && q.sources[0].sub != nil {
		if q = q.sources[0].sub; q.rank {
			return badRequest("cosmostest does not support ORDER BY RANK in a subquery.")
		}
	}
	return nil
}

// rrfParts splits RRF's arguments into the scoring functions and the trailing weights array (nil).
func rrfParts(c *callExpr) ([]expr, expr) {
	args := c.args
	if len(args) > 1 {
		switch w := args[len(args)-1].(type) {
		case arrayExpr, paramExpr:
			return args[:len(args)-1], w
		}
	}
	return args, nil
}

// rankScores returns the ORDER BY RANK score of each unit (a row that passed WHERE): a float64, or
// undefined when the scoring function cannot score it.
func (ev *evaluator) rankScores(q *selectQuery, units []*env) []any {
	c := q.orderBy[0].x.(*callExpr)
	if c.name == "FULLTEXTSCORE" {
		return ev.fullTextScores(q, c, units)
	}
	comps, wx := rrfParts(c)
	weights := make([]float64, len(comps))
	for i := range weights {
		weights[i] = 1
	}
	if wx != nil {
		ws, ok := ev.eval(wx, &env{}).([]any)
		if !ok || len(ws) != len(comps) {
			ev.fail(badRequest(rrfWeights))
			return make([]any, len(units))
		}
		for i, w := range ws {
			if weights[i], ok = w.(float64); !ok {
				ev.fail(badRequest(rrfWeights))
				return make([]any, len(units))
			}
		}
	}
	fused := make([]any, len(units))
	order := make([]int, len(units))
	for ci, comp := range comps {
		cc := comp.(*callExpr)
		var scores []any
		desc := true
		if cc.name == "FULLTEXTSCORE" {
			scores = ev.fullTextScores(q, cc, units)
		} else {
			scores = make([]any, len(units))
			for i, u := range units {
				scores[i] = ev.eval(cc, u)
			}
			desc = vectorFunction(cc, ev.vector) != "euclidean"
		}
		order = order[:0]
		for i, s := range scores {
			if _, ok := s.(float64); ok {
				order = append(order, i)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int {
			x, y := scores[a].(float64), scores[b].(float64)
			if desc {
				x, y = y, x
			}
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		})
		for r, i := range order {
			prev, _ := fused[i].(float64)
			fused[i] = prev + weights[ci]/float64(rrfK+r+1)
		}
	}
	for i, f := range fused {
		if f == nil {
			fused[i] = undefined
		}
	}
	return fused
}

// bm25Stats are the corpus statistics of one path and one set of query words.
type bm25Stats struct {
	docs, words int   // N and the total number of words at the path
	hits        []int // n(w), per query word
	idf         []float64
}

// fullTextScores returns FullTextScore's BM25 score of each unit; undefined where the text or a term
// is not a string.
func (ev *evaluator) fullTextScores(q *selectQuery, c *callExpr, units []*env) []any {
	out := make([]any, len(units))
	for i, u := range units {
		out[i] = undefined
		words, ok := ev.fullTextQueryWords(c, u)
		if !ok {
			continue
		}
		text, isStr := ev.eval(c.args[0], u).(string)
		if !isStr {
			continue
		}
		st := ev.bm25(q, c, words)
		out[i] = bm25Score(fullTextWords(text), words, st)
	}
	return out
}

// fullTextQueryWords are the distinct words of FullTextScore's terms (strings, or arrays of strings as
// in the preview syntax FullTextScore(c.text, ["a", "b"])).
func (ev *evaluator) fullTextQueryWords(c *callExpr, u *env) ([]string, bool) {
	var words []string
	add := func(v any) bool {
		s, ok := v.(string)
		if !ok {
			return false
		}
		for _, w := range fullTextWords(s) {
			if !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
		return true
	}
	for _, a := range c.args[1:] {
		v := ev.eval(a, u)
		if arr, ok := v.([]any); ok {
			for _, e := range arr {
				if !add(e) {
					return nil, false
				}
			}
			continue
		}
		if !add(v) {
			return nil, false
		}
	}
	return words, true
}

// bm25 computes (once per execution, path and words) the statistics over the execution's documents.
func (ev *evaluator) bm25(q *selectQuery, c *callExpr, words []string) *bm25Stats {
	key := formatExpr(c.args[0]) + "\x00" + strings.Join(words, "\x00")
	if st, ok := ev.ftStats[key]; ok {
		return st
	}
	st := &bm25Stats{hits: make([]int, len(words)), idf: make([]float64, len(words))}
	for _, d := range ev.corpus {
		st.docs++
		ev.forEachRow(q, nil, true, d.Value, func(vals []any) bool {
			text, ok := ev.eval(c.args[0], &env{vals: vals}).(string)
			if ok {
				tw := fullTextWords(text)
				st.words += len(tw)
				for i, w := range words {
					if slices.Contains(tw, w) {
						st.hits[i]++
					}
				}
			}
			return false // the path is on the root alias: the first row has it
		})
	}
	for i, n := range st.hits {
		st.idf[i] = math.Log(1 + (float64(st.docs-n)+0.5)/(float64(n)+0.5))
	}
	if ev.ftStats == nil {
		ev.ftStats = map[string]*bm25Stats{}
	}
	ev.ftStats[key] = st
	return st
}

// bm25Score is the BM25 score of a document's words for the query words.
func bm25Score(doc, words []string, st *bm25Stats) float64 {
	avgdl := 0.0
	if st.docs > 0 {
		avgdl = float64(st.words) / float64(st.docs)
	}
	norm := 1.0
	if avgdl > 0 {
		norm = 1 - bm25B + bm25B*float64(len(doc))/avgdl
	}
	score := 0.0
	for i, w := range words {
		tf := 0
		for _, d := range doc {
			if d == w {
				tf++
			}
		}
		if tf > 0 {
			score += st.idf[i] * float64(tf) * (bm25K1 + 1) / (float64(tf) + bm25K1*norm)
		}
	}
	return score
}
