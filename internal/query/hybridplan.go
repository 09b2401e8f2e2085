package query

import (
	"strconv"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// The plan of an ORDER BY RANK query (hybrid search): instead of a queryInfo the gateway answers a
// hybridSearchQueryInfo, in the form the service's plan generator gives it (the .NET SDK's
// QueryPlanRetrieverTests carry the service's plans for FullTextScore and RRF queries):
//
//   - globalStatisticsQuery counts, on every partition key range, the documents, the words at each
//     FullTextScore path and the documents containing each of its terms; the client sums them.
//   - componentQueryInfos has one ORDER BY query per scoring function, in RRF's order. Each
//     returns {_rid, orderByItems, payload: {payload, componentScores}} with the score of every
//     component (a missing one coalesced to the worst value), ordered by its own component.
//     FullTextScore becomes _FullTextScore(path, [terms], {…totaldocumentcount},
//     {…totalwordcount-j}, {…hitcountsarray-j}), j counting the FullTextScore components (the
//     client substitutes the summed statistics); VectorDistance becomes _VectorScore.
//   - componentWeights are the absolute weights (a negative weight reverses its component's
//     order), skip and take the OFFSET and TOP/LIMIT, applied by the client after the fusion.
//
// Each component query returns max(120, 2 × (skip + take)) rows, the service's candidate count
// (the .NET SDK's QueryPlanBaselineTests: TOP 10 and OFFSET 0 LIMIT 10 give 120, TOP 2147483647
// gives 4294967294; the count is a 32-bit number, so OFFSET 2147483647 LIMIT 10 gives 18), written
// as the query writes its bound: TOP n for TOP, OFFSET 0 LIMIT n for OFFSET/LIMIT. The text of a TOP
// keeps the 64-bit count (TOP 2147483648 writes TOP 4294967296, its plan's top 0). The client
// merges each component across ranges and cuts it to that count before fusing. Without TOP or
// LIMIT the component queries have no bound.

// Placeholders of the hybrid search component queries, replaced by the client.
const (
	hybridDocCount      = wire.HybridDocCountPlaceholder
	hybridWordCount     = wire.HybridWordCountPrefix + "%d}"
	hybridHitCounts     = wire.HybridHitCountsPrefix + "%d}"
	hybridMinCandidates = 120
	maxFloatLiteral     = "1.79769e+308"
	fullTextMissing     = "-1"
	hybridPlaceholdr    = "%d"
)

type hybridSearchQueryInfo = wire.HybridSearchQueryInfo

type hybridPlan struct {
	Version               int                    `json:"partitionedQueryExecutionInfoVersion"`
	QueryInfo             *planQueryInfo         `json:"queryInfo"`
	QueryRanges           []PlanRange            `json:"queryRanges"`
	HybridSearchQueryInfo *hybridSearchQueryInfo `json:"hybridSearchQueryInfo"`
}

// rawExpr is text placed in a rendered query as it is (the statistics placeholders).
type rawExpr struct{ text string }

func (rawExpr) isExpr() {}

func placeholder(format string, i int) rawExpr {
	return rawExpr{strings.Replace(format, hybridPlaceholdr, strconv.Itoa(i), 1)}
}

// hybridComponent is one scoring function of an ORDER BY RANK query as its component query uses it.
type hybridComponent struct {
	score   expr   // _FullTextScore(...) or _VectorScore(...)
	desc    bool   // the component's order (the plan's orderBy)
	written string // " DESC", " ASC" or "" after ORDER BY score
	missing string // the coalesce of a missing score
}

// hybridInfo builds the hybridSearchQueryInfo of an ORDER BY RANK query; an error for weights that
// are not bound to numbers.
func (q *Query) hybridInfo(opts PlanOptions) (*hybridSearchQueryInfo, error) {
	s := q.sel
	alias := s.sources[0].alias
	c := s.orderBy[0].x.(*callExpr)
	comps, wx := []expr{c}, expr(nil)
	if c.name == "RRF" {
		comps, wx = rrfParts(c)
	}
	info := &hybridSearchQueryInfo{ComponentQueryInfos: []planQueryInfo{}, ComponentWithoutPayloadQueryInfos: []planQueryInfo{}, ComponentWeights: []float64{}}
	weights := make([]float64, len(comps))
	for i := range weights {
		weights[i] = 1
	}
	if wx != nil {
		ev := newEvaluator(Options{Params: opts.Params})
		ws, ok := ev.eval(wx, &env{}).([]any)
		if !ok || len(ws) != len(comps) {
			return nil, badRequest(rrfWeights)
		}
		for i, w := range ws {
			if weights[i], ok = w.(float64); !ok {
				return nil, badRequest(rrfWeights)
			}
			info.ComponentWeights = append(info.ComponentWeights, abs(weights[i]))
		}
	}
	var stats []string
	parts := make([]hybridComponent, len(comps))
	for i, x := range comps {
		cc := x.(*callExpr)
		hc := hybridComponent{desc: true}
		if cc.name == "FULLTEXTSCORE" {
			j := len(stats)
			var terms, hits []expr
			for _, a := range cc.args[1:] {
				if arr, ok := a.(arrayExpr); ok {
					terms = append(terms, arr.elems...)
				} else {
					terms = append(terms, a)
				}
			}
			for _, t := range terms {
				hits = append(hits, &callExpr{name: "COUNTIF", written: "COUNTIF", agg: aggCountIf,
					args: []expr{&callExpr{name: "FULLTEXTCONTAINS", written: "FullTextContains", args: []expr{cc.args[0], t}}}})
			}
			path := formatExpr(cc.args[0])
			stats = append(stats, `{"totalWordCount": SUM(_FullTextWordCount(`+path+`)), "hitCounts": `+formatExpr(arrayExpr{elems: hits})+"}")
			hc.score = &callExpr{name: "_FULLTEXTSCORE", written: "_FullTextScore", args: []expr{cc.args[0], arrayExpr{elems: terms},
				rawExpr{hybridDocCount}, placeholder(hybridWordCount, j), placeholder(hybridHitCounts, j)}}
			hc.missing = fullTextMissing
			hc.written = " DESC"
			if weights[i] < 0 {
				hc.desc, hc.written, hc.missing = false, " ASC", maxFloatLiteral
			}
		} else {
			hc.score = &callExpr{name: "_VECTORSCORE", written: "_VectorScore", args: cc.args}
			natural := vectorFunction(cc, opts.Vector) != "euclidean"
			hc.desc = natural
			if weights[i] < 0 {
				hc.desc = !natural
				hc.written = map[bool]string{true: " DESC", false: " ASC"}[hc.desc]
			}
			hc.missing = maxFloatLiteral
			if hc.desc {
				hc.missing = "-" + maxFloatLiteral
			}
		}
		parts[i] = hc
	}
	info.RequiresGlobalStatistics = len(stats) > 0
	info.GlobalStatisticsQuery = "SELECT COUNT(1) AS documentCount, [" + strings.Join(stats, ", ") + "] AS fullTextStatistics\nFROM " + formatSourceIndented(s.sources[0], "")

	if s.offset != nil {
		info.Skip = boundInt(s.offset, opts.Params)
		info.Take = boundInt(s.limit, opts.Params)
	}
	if s.top != nil {
		info.Take = boundInt(s.top, opts.Params)
	}
	var top, limit *int
	topText := ""
	if info.Take != nil {
		wide := 2 * *info.Take
		if info.Skip != nil {
			wide = 2 * (*info.Skip + *info.Take)
		}
		wide = max(hybridMinCandidates, wide)
		n := int(uint32(wide))
		if s.top != nil {
			// The service writes the TOP of the component query from the 64-bit count and the
			// plan's top from its 32-bit truncation: TOP 2147483648 plans "top": 0 with the text
			// TOP 4294967296 (the .NET SDK's QueryPlanBaselineTests.Top carry that plan).
			top, topText = &n, strconv.Itoa(wide)
		} else {
			limit = &n
		}
	}
	scores := make([]string, len(parts))
	for i, p := range parts {
		scores[i] = "(" + formatExpr(p.score) + " ?? " + p.missing + ")"
	}
	var where expr = placeholderExpr{}
	if s.where != nil {
		where = binaryExpr{"AND", s.where, where}
	}
	for _, p := range parts {
		score := formatExpr(p.score)
		var b strings.Builder
		b.WriteString("SELECT ")
		if top != nil {
			b.WriteString("TOP " + topText + " ")
		}
		b.WriteString(alias + `._rid, [{"item": ` + score + `}] AS orderByItems, {"payload": ` + payloadOf(s) +
			`, "componentScores": [` + strings.Join(scores, ", ") + "]} AS payload")
		writeFrom(&b, s, "")
		b.WriteString("\nWHERE " + formatExpr(where))
		b.WriteString("\nORDER BY " + score + p.written)
		var offset *int
		if limit != nil {
			b.WriteString("\nOFFSET 0 LIMIT " + strconv.Itoa(*limit))
			offset = new(int)
		}
		dir := "Ascending"
		if p.desc {
			dir = "Descending"
		}
		info.ComponentQueryInfos = append(info.ComponentQueryInfos, planQueryInfo{
			DistinctType: "None", Top: top, Offset: offset, Limit: limit, OrderBy: []string{dir}, OrderByExpressions: []string{score},
			GroupByExpressions: []string{}, GroupByAliases: []string{}, Aggregates: []string{},
			GroupByAliasToAggregateType: map[string]*string{}, RewrittenQuery: b.String(),
			HasSelectValue: s.value != nil, HasNonStreamingOrderBy: true,
		})
	}
	return info, nil
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
