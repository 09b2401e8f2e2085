package query

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The service's plan for this query, from the .NET SDK's QueryPlanRetrieverTests (hybrid search
// plan optimization disabled, the form with orderByItems).
const serviceHybridPlan = `{"globalStatisticsQuery":"SELECT COUNT(1) AS documentCount, [{\"totalWordCount\": SUM(_FullTextWordCount(c.text)), \"hitCounts\": [COUNTIF(FullTextContains(c.text, \"swim\")), COUNTIF(FullTextContains(c.text, \"run\"))]}] AS fullTextStatistics\nFROM c","componentQueryInfos":[{"distinctType":"None","top":120,"offset":null,"limit":null,"orderBy":["Descending"],"orderByExpressions":["_FullTextScore(c.text, [\"swim\", \"run\"], {documentdb-formattablehybridsearchquery-totaldocumentcount}, {documentdb-formattablehybridsearchquery-totalwordcount-0}, {documentdb-formattablehybridsearchquery-hitcountsarray-0})"],"groupByExpressions":[],"groupByAliases":[],"aggregates":[],"groupByAliasToAggregateType":{},"rewrittenQuery":"SELECT TOP 120 c._rid, [{\"item\": _FullTextScore(c.text, [\"swim\", \"run\"], {documentdb-formattablehybridsearchquery-totaldocumentcount}, {documentdb-formattablehybridsearchquery-totalwordcount-0}, {documentdb-formattablehybridsearchquery-hitcountsarray-0})}] AS orderByItems, {\"payload\": c, \"componentScores\": [(_FullTextScore(c.text, [\"swim\", \"run\"], {documentdb-formattablehybridsearchquery-totaldocumentcount}, {documentdb-formattablehybridsearchquery-totalwordcount-0}, {documentdb-formattablehybridsearchquery-hitcountsarray-0}) ?? -1), (_VectorScore(c.image, [1, 2, 3]) ?? -1.79769e+308)]} AS payload\nFROM c\nWHERE ({documentdb-formattableorderbyquery-filter})\nORDER BY _FullTextScore(c.text, [\"swim\", \"run\"], {documentdb-formattablehybridsearchquery-totaldocumentcount}, {documentdb-formattablehybridsearchquery-totalwordcount-0}, {documentdb-formattablehybridsearchquery-hitcountsarray-0}) DESC","hasSelectValue":false,"dCountInfo":null,"hasNonStreamingOrderBy":true},{"distinctType":"None","top":120,"offset":null,"limit":null,"orderBy":["Descending"],"orderByExpressions":["_VectorScore(c.image, [1, 2, 3])"],"groupByExpressions":[],"groupByAliases":[],"aggregates":[],"groupByAliasToAggregateType":{},"rewrittenQuery":"SELECT TOP 120 c._rid, [{\"item\": _VectorScore(c.image, [1, 2, 3])}] AS orderByItems, {\"payload\": c, \"componentScores\": [(_FullTextScore(c.text, [\"swim\", \"run\"], {documentdb-formattablehybridsearchquery-totaldocumentcount}, {documentdb-formattablehybridsearchquery-totalwordcount-0}, {documentdb-formattablehybridsearchquery-hitcountsarray-0}) ?? -1), (_VectorScore(c.image, [1, 2, 3]) ?? -1.79769e+308)]} AS payload\nFROM c\nWHERE ({documentdb-formattableorderbyquery-filter})\nORDER BY _VectorScore(c.image, [1, 2, 3])","hasSelectValue":false,"dCountInfo":null,"hasNonStreamingOrderBy":true}],"componentWithoutPayloadQueryInfos":[],"projectionQueryInfo":null,"componentWeights":[],"skip":null,"take":10,"requiresGlobalStatistics":true}`

func TestHybridPlanMatchesService(t *testing.T) {
	q := mustParse(t, `SELECT TOP 10 * FROM c ORDER BY RANK RRF(FullTextScore(c.text,  "swim", "run"), VectorDistance(c.image, [1, 2, 3]))`)
	raw, err := q.Plan(PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		QueryInfo *planQueryInfo  `json:"queryInfo"`
		Hybrid    json.RawMessage `json:"hybridSearchQueryInfo"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal(got.Hybrid, &a)
	_ = json.Unmarshal([]byte(serviceHybridPlan), &b)
	// dCountInfo and the offset/limit nulls are members of the service's queryInfo that this
	// engine's planQueryInfo writes too; compare as JSON values.
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if got.QueryInfo != nil || string(ja) != string(jb) {
		t.Fatalf("plan\n%s\nwant\n%s", ja, jb)
	}
}

// TestHybridComponentQueriesRun: the component queries and the global statistics query, with the
// placeholders replaced as a client does, run on the engine; the statistics of the whole corpus
// give each document the BM25 score ORDER BY RANK FullTextScore gives it.
func TestHybridComponentQueriesRun(t *testing.T) {
	q := mustParse(t, `SELECT TOP 3 c.id FROM c WHERE c.id != "zzz" ORDER BY RANK RRF(FullTextScore(c.text, "rocky", @t), VectorDistance(c.v, @q), [2, -1])`)
	params := map[string]any{"@t": "boots", "@q": []any{0.6, 0.8}}
	vec := VectorDefaults{ByPath: map[string]VectorSpec{"/v": {DistanceFunction: "cosine", DataType: "float32", Dimensions: 2}}}
	hi, err := q.hybridInfo(PlanOptions{Params: params, Vector: vec})
	if err != nil {
		t.Fatal(err)
	}
	if len(hi.ComponentQueryInfos) != 2 || hi.ComponentWeights[1] != 1 || hi.ComponentQueryInfos[1].OrderBy[0] != "Ascending" || *hi.Take != 3 {
		t.Fatalf("plan %+v", hi)
	}
	sq := mustParse(t, hi.GlobalStatisticsQuery)
	p := mustExecute(t, sq, rankDocs(), Options{Params: params})
	var stats []struct {
		DocumentCount      float64
		FullTextStatistics []struct {
			TotalWordCount float64
			HitCounts      []float64
		}
	}
	if err := json.Unmarshal(p.Results[0], &stats); err != nil {
		if err := json.Unmarshal([]byte("["+string(p.Results[0])+"]"), &stats); err != nil {
			t.Fatal(err)
		}
	}
	st := stats[0]
	if st.DocumentCount != 5 || len(st.FullTextStatistics) != 1 || st.FullTextStatistics[0].TotalWordCount != 26 ||
		len(st.FullTextStatistics[0].HitCounts) != 2 || st.FullTextStatistics[0].HitCounts[0] != 2 || st.FullTextStatistics[0].HitCounts[1] != 2 {
		t.Fatalf("global statistics %s", p.Results[0])
	}
	for i, ci := range hi.ComponentQueryInfos {
		text := strings.NewReplacer(hybridDocCount, "5",
			"{documentdb-formattablehybridsearchquery-totalwordcount-0}", "26",
			"{documentdb-formattablehybridsearchquery-hitcountsarray-0}", "[2, 2]",
			orderByFilter, "true").Replace(ci.RewrittenQuery)
		cq, err := Parse(text)
		if err != nil {
			t.Fatalf("component %d: %v\n%s", i, err, text)
		}
		page := mustExecute(t, cq, rankDocs(), Options{Params: params, Vector: vec})
		if len(page.Results) != 5 {
			t.Fatalf("component %d: %d results", i, len(page.Results))
		}
		var first struct {
			Payload struct {
				Payload         map[string]any
				ComponentScores []float64
			}
		}
		if err := json.Unmarshal(page.Results[0], &first); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			// The best BM25 document; its score with the statistics given equals the engine's own.
			id := first.Payload.Payload["id"].(string)
			for _, c := range rankCorpus {
				if c.id == id {
					if want := wantBM25(c.text, []string{"rocky", "boots"}); math.Abs(first.Payload.ComponentScores[0]-want) > 1e-12 {
						t.Fatalf("component score %v, want %v", first.Payload.ComponentScores[0], want)
					}
				}
			}
		}
	}
}

// TestHybridCandidateCountBaselines: the component queries of the .NET SDK's hybrid search
// baselines (QueryPlanBaselineTests.OffsetLimit and .Top, testdata/queryplan_hybrid_baselines.json:
// the service's plans) ask for the service's candidate count max(120, 2 × (skip + take)), as a
// 32-bit number, in the form the query bounds itself (TOP n, or OFFSET 0 LIMIT n), byte for byte.
func TestHybridCandidateCountBaselines(t *testing.T) {
	b, err := os.ReadFile("testdata/queryplan_hybrid_baselines.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name           string `json:"name"`
		Query          string `json:"query"`
		Top            *int   `json:"top"`
		Offset         *int   `json:"offset"`
		Limit          *int   `json:"limit"`
		Skip           *int   `json:"skip"`
		Take           *int   `json:"take"`
		RewrittenQuery string `json:"rewrittenQuery"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 6 {
		t.Fatalf("%d cases", len(cases))
	}
	str := func(p *int) string {
		if p == nil {
			return "null"
		}
		return strconv.Itoa(*p)
	}
	for _, c := range cases {
		q := mustParse(t, c.Query)
		hi, err := q.hybridInfo(PlanOptions{})
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		ci := hi.ComponentQueryInfos[0]
		got := []string{str(ci.Top), str(ci.Offset), str(ci.Limit), str(hi.Skip), str(hi.Take), ci.RewrittenQuery}
		want := []string{str(c.Top), str(c.Offset), str(c.Limit), str(c.Skip), str(c.Take), c.RewrittenQuery}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %s\ntop, offset, limit, skip, take, rewrittenQuery\n got %q\nwant %q", c.Name, c.Query, got, want)
		}
	}
}
