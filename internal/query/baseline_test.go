package query

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// baselineCase is one case of testdata/queryplan_baselines.json: the inputs and expected plans of
// the .NET SDK's QueryPlanBaselineTests.{Aggregates,Basic,Distinct,GroupBy,MultiOrderBy,
// NonValueAggregates,OffsetLimit,OrderBy,Top,Subqueries,VectorSearch}.xml (Azure/azure-cosmos-
// dotnet-v3, Microsoft.Azure.Cosmos.Tests/BaselineTest/TestBaseline), converted to JSON. Those
// plans come from the service's own query plan generator (ServiceInterop), so they are what the
// gateway answers. queryRanges are the SDK's partition key value ranges ([[],"Infinity") is the
// whole key space, [[v],[v]] one key), not EPK ranges.
type baselineCase struct {
	Name             string         `json:"name"`
	Query            string         `json:"query"`
	PartitionKeys    []string       `json:"partitionKeys"`
	PartitionKeyType string         `json:"partitionKeyType"`
	Params           map[string]any `json:"params"`
	DistanceFunction string         `json:"distanceFunction"`
	GeospatialType   string         `json:"geospatialType"`
	Error            string         `json:"error"`
	Expect           *baselinePlan  `json:"expect"`
}

type baselinePlan struct {
	DistinctType                string             `json:"distinctType"`
	Top                         *int               `json:"top"`
	Offset                      *int               `json:"offset"`
	Limit                       *int               `json:"limit"`
	OrderBy                     []string           `json:"orderBy"`
	OrderByExpressions          []string           `json:"orderByExpressions"`
	GroupByExpressions          []string           `json:"groupByExpressions"`
	GroupByAliases              []string           `json:"groupByAliases"`
	Aggregates                  []string           `json:"aggregates"`
	GroupByAliasToAggregateType map[string]*string `json:"groupByAliasToAggregateType"`
	HasSelectValue              bool               `json:"hasSelectValue"`
	RewrittenQuery              string             `json:"rewrittenQuery"`
	QueryRanges                 []string           `json:"queryRanges"`
	HybridSearch                bool               `json:"hybridSearch"`
}

// baselineDifferences lists the baseline cases where cosmostest's plan differs from the service's,
// with the reason. TestQueryPlanBaselines fails if a case not listed differs, or a listed case
// matches (then remove it here).
var baselineDifferences = map[string]string{
	"OffsetLimit/OFFSET value beyond upper range (client)":                 clientInt32,
	"OffsetLimit/OFFSET value beyond upper range (client) - hybrid search": clientInt32,
	"OffsetLimit/LIMIT value beyond upper range (client)":                  clientInt32,
	"OffsetLimit/LIMIT value beyond upper range (client) - hybrid search":  clientInt32,
	"Top/TOP value beyond upper range (client)":                            clientInt32,
	"Top/TOP value beyond upper range (client) - hybrid search":            clientInt32,
}

// Reasons shared by several baseline differences.
const (
	clientInt32 = "the .NET SDK refuses counts over int32 on the client; the service's plan (cosmostest's too) has them"
)

// planOf returns the engine's plan of c in the baseline form, or the error.
func planOf(c baselineCase) (*baselinePlan, error) {
	q, err := Parse(c.Query)
	if err != nil {
		return nil, err
	}
	vec := VectorDefaults{}
	if c.DistanceFunction != "" {
		vec.ByPath = map[string]VectorSpec{"/embedding": {DistanceFunction: c.DistanceFunction, DataType: "float32", Dimensions: 8}}
	}
	opts := PlanOptions{Vector: vec, Params: c.Params}
	points, pinned := q.PartitionKeyPoints(c.PartitionKeys, c.Params, geospatialOf(c.GeospatialType))
	readsNothing := pinned && len(points) == 1 && len(points[0]) == 0
	if pinned && !readsNothing && len(points[0]) < len(c.PartitionKeys) && c.PartitionKeyType != "MultiHash" {
		pinned = false // a prefix narrows only hierarchical (MultiHash) keys
	}
	ranges := []string{`[[],"Infinity")`}
	if pinned {
		ranges = []string{}
		for _, p := range points {
			v := baselineKey(p)
			ranges = append(ranges, "["+v+","+v+"]")
		}
		opts.SinglePartition = len(points) == 1 && len(points[0]) == len(c.PartitionKeys)
	}
	if err := q.checkPlannable(); err != nil {
		return nil, err
	}
	if q.sel.rank {
		if _, err := q.hybridInfo(opts); err != nil {
			return nil, err
		}
		return &baselinePlan{QueryRanges: ranges, HybridSearch: true}, nil
	}
	qi := q.queryInfo(opts)
	return &baselinePlan{
		DistinctType: qi.DistinctType, Top: qi.Top, Offset: qi.Offset, Limit: qi.Limit,
		OrderBy: qi.OrderBy, OrderByExpressions: qi.OrderByExpressions, GroupByExpressions: qi.GroupByExpressions,
		GroupByAliases: qi.GroupByAliases, Aggregates: qi.Aggregates, GroupByAliasToAggregateType: qi.GroupByAliasToAggregateType,
		HasSelectValue: qi.HasSelectValue, RewrittenQuery: qi.RewrittenQuery, QueryRanges: ranges,
	}, nil
}

// geospatialOf is the Geospatial of a baseline's GeospatialType (Geography when absent).
func geospatialOf(t string) Geospatial {
	if t == "Geometry" {
		return Geometry
	}
	return Geography
}

// baselineKey renders partition key values as the SDK's baselines do ([1.0], ["a"]).
func baselineKey(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case float64:
			s := strconv.FormatFloat(v, 'f', -1, 64)
			if !strings.ContainsAny(s, ".e") {
				s += ".0"
			}
			parts[i] = s
		default:
			b, _ := json.Marshal(v)
			parts[i] = string(b)
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func TestQueryPlanBaselines(t *testing.T) {
	b, err := os.ReadFile("testdata/queryplan_baselines.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []baselineCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	matched, rangesExact, withRanges := 0, 0, 0
	for _, c := range cases {
		got, err := planOf(c)
		// Partition targeting is checked on its own for every case with a plan, the listed
		// differences included: every one must be exact.
		if c.Expect != nil {
			withRanges++
		}
		if err == nil && c.Expect != nil {
			g, w := normalizePlan(*got).QueryRanges, normalizePlan(*c.Expect).QueryRanges
			if slices.Equal(g, w) {
				rangesExact++
			} else if _, listed := baselineDifferences[c.Name]; listed {
				t.Errorf("%s: queryRanges %v, want %v", c.Name, g, w)
			}
		}
		var diff string
		switch {
		case c.Error != "" && err == nil:
			diff = "want error " + c.Error + ", got a plan"
		case c.Error != "":
			if !strings.Contains(err.Error(), c.Error) {
				diff = fmt.Sprintf("error %q, want %q", err, c.Error)
			}
		case err != nil:
			diff = "error " + err.Error()
		default:
			w := *c.Expect
			if !reflect.DeepEqual(normalizePlan(*got), normalizePlan(w)) {
				g, _ := json.MarshalIndent(got, "", " ")
				e, _ := json.MarshalIndent(w, "", " ")
				diff = fmt.Sprintf("plan\n%s\nwant\n%s", g, e)
			}
		}
		reason, listed := baselineDifferences[c.Name]
		switch {
		case diff == "" && listed:
			t.Errorf("%s: matches now; remove it from baselineDifferences (%s)", c.Name, reason)
		case diff != "" && !listed:
			t.Errorf("%s: %s\n%s", c.Name, c.Query, diff)
		}
		if diff == "" {
			matched++
		}
	}
	t.Logf("%d of %d baseline plans match exactly; %d differ (baselineDifferences); queryRanges exact on %d of the %d with a plan",
		matched, len(cases), len(cases)-matched, rangesExact, withRanges)
	if rangesExact != withRanges {
		t.Errorf("queryRanges exact on %d of %d (all expected)", rangesExact, withRanges)
	}
}

// normalizePlan makes empty and nil lists and maps compare equal, and sorts the query ranges (the
// service lists several points in its own hash order; cosmostest sorts them by EPK).
func normalizePlan(p baselinePlan) baselinePlan {
	p.QueryRanges = slices.Sorted(slices.Values(p.QueryRanges))
	for _, l := range []*[]string{&p.OrderBy, &p.OrderByExpressions, &p.GroupByExpressions, &p.GroupByAliases, &p.Aggregates, &p.QueryRanges} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	if len(p.GroupByAliasToAggregateType) == 0 {
		p.GroupByAliasToAggregateType = nil
	}
	return p
}

// TestRewrittenQueriesParse: every rewrittenQuery the engine renders (for the query table and the
// baselines), with the filter placeholder replaced by true as the SDKs do, is a query it accepts.
func TestRewrittenQueriesParse(t *testing.T) {
	_, cases := loadTable(t)
	var texts []string
	params := map[string]map[string]any{}
	for _, c := range cases {
		texts = append(texts, c.Query)
		params[c.Query] = c.Params
	}
	b, err := os.ReadFile("testdata/queryplan_baselines.json")
	if err != nil {
		t.Fatal(err)
	}
	var bl []baselineCase
	if err := json.Unmarshal(b, &bl); err != nil {
		t.Fatal(err)
	}
	for _, c := range bl {
		texts = append(texts, c.Query)
		params[c.Query] = c.Params
	}
	n := 0
	for _, text := range texts {
		q, err := Parse(text)
		if err != nil {
			continue
		}
		raw, err := q.Plan(PlanOptions{Params: params[text]})
		if err != nil {
			continue
		}
		var p struct {
			QueryInfo struct {
				RewrittenQuery string `json:"rewrittenQuery"`
			} `json:"queryInfo"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		if p.QueryInfo.RewrittenQuery == "" {
			continue
		}
		n++
		rw := strings.ReplaceAll(p.QueryInfo.RewrittenQuery, "{"+"documentdb-formattableorderbyquery-filter}", "true")
		if _, err := Parse(rw); err != nil {
			t.Errorf("%s\nrewritten %s\n%v", text, rw, err)
		}
	}
	if n < 50 {
		t.Fatalf("only %d rewritten queries", n)
	}
}

// TestQueryPlanRangeBaselines checks the queryRanges of the .NET SDK's PointRange, MultipleKeys and
// ManyRanges baselines (testdata/queryplan_range_baselines.json) exactly, among them contradictions
// (c.key = 1 AND c.key = 2: the empty point [[],[]]), IN lists of arrays and objects (the undefined
// key's point [[{}],[{}]]) and ABS(c.key) = 1 (the points -1 and 1).
func TestQueryPlanRangeBaselines(t *testing.T) {
	b, err := os.ReadFile("testdata/queryplan_range_baselines.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name          string   `json:"name"`
		Query         string   `json:"query"`
		PartitionKeys []string `json:"partitionKeys"`
		QueryRanges   []string `json:"queryRanges"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	exact := 0
	for _, c := range cases {
		got, err := planOf(baselineCase{Query: c.Query, PartitionKeys: c.PartitionKeys})
		if err != nil {
			t.Errorf("%s: %s\n%v", c.Name, c.Query, err)
			continue
		}
		g, w := slices.Sorted(slices.Values(got.QueryRanges)), slices.Sorted(slices.Values(c.QueryRanges))
		switch {
		case slices.Equal(g, w):
			exact++
		default:
			t.Errorf("%s: %s\nranges %v, want %v", c.Name, c.Query, g, w)
		}
	}
	t.Logf("query ranges of %d baselines: %d exact", len(cases), exact)
}
