package query

import (
	"math"
	"slices"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/rrf"
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
// VectorDistance, the latter ordered by the vector policy's direction) by internal/rrf's rule, the
// one the service's hybrid search applies: weights 1 when absent, a negative weight reversing its
// component's order. A result a component cannot score (no text, no vector) ranks last in it, as the
// service's component queries coalesce it (?? -1 for FullTextScore, ?? ∓1.79769e+308 for vectors).
//
// Both can only appear as the single item of ORDER BY RANK, which orders by the score, highest
// first, and takes no ASC or DESC; RRF's arguments must be scoring functions. The service's messages
// for misuse are not documented: the wording of these 400s is the emulator's own.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

func init() {
	// Evaluated by rankScores; a call anywhere else is refused by checkScoring.
	register("FULLTEXTSCORE", 2, -1, func(_ *evaluator, _ []any) any { return undefined })
	register("RRF", 1, -1, func(_ *evaluator, _ []any) any { return undefined })
	// The system functions of hybrid search's plans (hybridplan.go), allowed anywhere: the word
	// count of a text, BM25 with the statistics given (_FullTextScore(c.text, ["a", "b"], N,
	// totalWords, [hitsA, hitsB])), and the vector score (VectorDistance with the policy's defaults).
	register("_FULLTEXTWORDCOUNT", 1, 1, func(_ *evaluator, a []any) any {
		if s, ok := a[0].(string); ok {
			return float64(len(fullTextWords(s)))
		}
		return undefined
	})
	register("_FULLTEXTSCORE", 5, 5, func(_ *evaluator, a []any) any {
		text, ok := a[0].(string)
		terms, termsOK := termWords(a[1:2])
		n, nOK := a[2].(float64)
		w, wOK := a[3].(float64)
		hits, hitsOK := a[4].([]any)
		if !ok || !termsOK || !nOK || !wOK || !hitsOK || len(hits) != len(terms) {
			return undefined
		}
		st := &bm25Stats{docs: n, words: w, hits: make([]float64, len(hits))}
		for i, h := range hits {
			if st.hits[i], ok = h.(float64); !ok {
				return undefined
			}
		}
		return bm25Score(fullTextWords(text), terms, st)
	})
	register("_VECTORSCORE", 2, 4, func(_ *evaluator, _ []any) any { return undefined }) // see eval
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
	cols := make([][]float64, len(comps))
	desc := make([]bool, len(comps))
	for ci, comp := range comps {
		cc := comp.(*callExpr)
		var scores []any
		desc[ci] = true
		missing := -1.0 // FullTextScore ?? -1, as the service's component queries coalesce
		if cc.name == "FULLTEXTSCORE" {
			scores = ev.fullTextScores(q, cc, units)
		} else {
			scores = make([]any, len(units))
			for i, u := range units {
				scores[i] = ev.eval(cc, u)
			}
			desc[ci] = vectorFunction(cc, ev.vector) != "euclidean"
			missing = -math.MaxFloat64
			if !desc[ci] {
				missing = math.MaxFloat64
			}
		}
		cols[ci] = make([]float64, len(units))
		for i, v := range scores {
			f, ok := v.(float64)
			if !ok {
				f = missing
			}
			cols[ci][i] = f
		}
	}
	fused := make([]any, len(units))
	for i, f := range rrf.Fuse(cols, desc, weights) {
		fused[i] = f
	}
	return fused
}

// bm25Stats are the corpus statistics of one path and one list of terms: N, the total number of
// words at the path, and per term the number of documents containing it (FullTextContains).
type bm25Stats struct {
	docs, words float64
	hits        []float64
}

// fullTextScores returns FullTextScore's BM25 score of each unit; undefined where the text or a term
// is not a string.
func (ev *evaluator) fullTextScores(q *selectQuery, c *callExpr, units []*env) []any {
	out := make([]any, len(units))
	for i, u := range units {
		out[i] = undefined
		terms, ok := ev.fullTextTerms(c, u)
		if !ok {
			continue
		}
		text, isStr := ev.eval(c.args[0], u).(string)
		if !isStr {
			continue
		}
		out[i] = bm25Score(fullTextWords(text), terms, ev.bm25(q, c, terms))
	}
	return out
}

// fullTextTerms are FullTextScore's terms, tokenized (strings, or arrays of strings as in the
// preview syntax FullTextScore(c.text, ["a", "b"]) and in hybrid search's component queries).
func (ev *evaluator) fullTextTerms(c *callExpr, u *env) ([][]string, bool) {
	vals := make([]any, 0, len(c.args)-1)
	for _, a := range c.args[1:] {
		vals = append(vals, ev.eval(a, u))
	}
	return termWords(vals)
}

func termWords(vals []any) ([][]string, bool) {
	var terms [][]string
	for _, v := range vals {
		arr, isArr := v.([]any)
		if !isArr {
			arr = []any{v}
		}
		for _, e := range arr {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			terms = append(terms, fullTextWords(s))
		}
	}
	return terms, true
}

// bm25 computes (once per execution, path and terms) the statistics over the execution's documents.
func (ev *evaluator) bm25(q *selectQuery, c *callExpr, terms [][]string) *bm25Stats {
	var key strings.Builder
	key.WriteString(formatExpr(c.args[0]))
	for _, t := range terms {
		key.WriteString("\x00" + strings.Join(t, " "))
	}
	if st, ok := ev.ftStats[key.String()]; ok {
		return st
	}
	st := &bm25Stats{hits: make([]float64, len(terms))}
	for _, d := range ev.corpus {
		st.docs++
		ev.forEachRow(q, nil, true, d.root(), func(vals []any) bool {
			text, ok := ev.eval(c.args[0], &env{vals: vals}).(string)
			if ok {
				tw := fullTextWords(text)
				st.words += float64(len(tw))
				for i, t := range terms {
					if len(t) > 0 && containsRun(tw, t) {
						st.hits[i]++
					}
				}
			}
			return false // the path is on the root alias: the first row has it
		})
	}
	if ev.ftStats == nil {
		ev.ftStats = map[string]*bm25Stats{}
	}
	ev.ftStats[key.String()] = st
	return st
}

// bm25Score is the BM25 score of a document's words for the terms; a term of several words counts
// where its words appear consecutively.
func bm25Score(doc []string, terms [][]string, st *bm25Stats) float64 {
	norm := 1.0
	if st.docs > 0 && st.words > 0 {
		norm = 1 - bm25B + bm25B*float64(len(doc))/(st.words/st.docs)
	}
	score := 0.0
	for i, t := range terms {
		if len(t) == 0 || i >= len(st.hits) {
			continue
		}
		tf := 0
		for j := 0; j+len(t) <= len(doc); j++ {
			if slices.Equal(doc[j:j+len(t)], t) {
				tf++
			}
		}
		if tf > 0 {
			n := st.hits[i]
			idf := math.Log(1 + (st.docs-n+0.5)/(n+0.5))
			score += idf * float64(tf) * (bm25K1 + 1) / (float64(tf) + bm25K1*norm)
		}
	}
	return score
}
