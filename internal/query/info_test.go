package query

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestInfoFlags(t *testing.T) {
	tests := []struct {
		query string
		want  string // the set flags, in field order
	}{
		{"SELECT * FROM c WHERE c.a = 1", ""},
		{"SELECT c.id FROM c JOIN t IN c.tags WHERE t = 'x'", ""},
		{"SELECT * FROM c ORDER BY c.a", "OrderBy"},
		{"SELECT TOP 5 * FROM c", "Top"},
		{"SELECT * FROM c OFFSET 1 LIMIT 2", "OffsetLimit"},
		{"SELECT DISTINCT c.a FROM c", "Distinct"},
		{"SELECT c.a, COUNT(1) FROM c GROUP BY c.a", "GroupBy Aggregates"},
		{"SELECT VALUE COUNT(1) FROM c", "Aggregates"},
		{"SELECT c.id, (SELECT VALUE COUNT(1) FROM t IN c.tags) AS n FROM c", ""},
		{"SELECT * FROM (SELECT TOP 3 * FROM c) x", "Top"},
		{"SELECT VALUE x.a FROM (SELECT DISTINCT c.a FROM c) x WHERE x.a > 1", "Distinct"},
		{"SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.v, [1, 2])", "OrderBy Top NonStreamingOrderBy"},
	}
	for _, tt := range tests {
		info := mustParse(t, tt.query).Info()
		var got []string
		for _, f := range []struct {
			name string
			set  bool
		}{
			{"OrderBy", info.HasOrderBy}, {"Top", info.HasTop}, {"OffsetLimit", info.HasOffsetLimit},
			{"Distinct", info.HasDistinct}, {"GroupBy", info.HasGroupBy}, {"Aggregates", info.HasAggregates},
			{"NonStreamingOrderBy", info.HasNonStreamingOrderBy},
		} {
			if f.set {
				got = append(got, f.name)
			}
		}
		s := fmt.Sprint(got)
		if s != "["+tt.want+"]" {
			t.Errorf("%s: flags %s, want [%s]", tt.query, s, tt.want)
		}
		if !json.Valid(info.Plan) {
			t.Errorf("%s: plan is not JSON: %s", tt.query, info.Plan)
		}
	}
}

func TestPlanShape(t *testing.T) {
	var plan struct {
		Version   int `json:"partitionedQueryExecutionInfoVersion"`
		QueryInfo struct {
			DistinctType       string            `json:"distinctType"`
			Top                *int              `json:"top"`
			Offset             *int              `json:"offset"`
			Limit              *int              `json:"limit"`
			OrderBy            []string          `json:"orderBy"`
			OrderByExpressions []string          `json:"orderByExpressions"`
			GroupByExpressions []string          `json:"groupByExpressions"`
			Aggregates         []string          `json:"aggregates"`
			AliasToAggregate   map[string]string `json:"groupByAliasToAggregateType"`
			RewrittenQuery     string            `json:"rewrittenQuery"`
			HasSelectValue     bool              `json:"hasSelectValue"`
		} `json:"queryInfo"`
		QueryRanges []struct {
			Min, Max       string
			IsMinInclusive bool `json:"isMinInclusive"`
			IsMaxInclusive bool `json:"isMaxInclusive"`
		} `json:"queryRanges"`
	}
	decode := func(q string) {
		t.Helper()
		plan.QueryInfo.Top, plan.QueryInfo.Offset, plan.QueryInfo.Limit = nil, nil, nil
		if err := json.Unmarshal(mustParse(t, q).Info().Plan, &plan); err != nil {
			t.Fatal(err)
		}
	}
	decode("SELECT DISTINCT TOP 10 c.id FROM c WHERE c.a > 1 ORDER BY c.id DESC, c.b")
	qi := plan.QueryInfo
	if plan.Version != 2 || qi.DistinctType != "Ordered" || qi.Top == nil || *qi.Top != 10 ||
		fmt.Sprint(qi.OrderBy) != "[Descending Ascending]" || fmt.Sprint(qi.OrderByExpressions) != "[c.id c.b]" ||
		qi.RewrittenQuery == "" || len(plan.QueryRanges) != 1 || plan.QueryRanges[0].Max != "FF" ||
		!plan.QueryRanges[0].IsMinInclusive || plan.QueryRanges[0].IsMaxInclusive {
		t.Fatalf("plan: %+v", plan)
	}
	decode("SELECT VALUE SUM(c.n) FROM c")
	if fmt.Sprint(plan.QueryInfo.Aggregates) != "[Sum]" || !plan.QueryInfo.HasSelectValue || plan.QueryInfo.DistinctType != "None" {
		t.Fatalf("aggregate plan: %+v", plan.QueryInfo)
	}
	decode("SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g")
	if fmt.Sprint(plan.QueryInfo.GroupByExpressions) != "[c.g]" || plan.QueryInfo.AliasToAggregate["n"] != "Count" {
		t.Fatalf("group plan: %+v", plan.QueryInfo)
	}
	decode("SELECT * FROM c OFFSET 5 LIMIT 7")
	if plan.QueryInfo.Offset == nil || *plan.QueryInfo.Offset != 5 || *plan.QueryInfo.Limit != 7 {
		t.Fatalf("offset plan: %+v", plan.QueryInfo)
	}
}

func TestPlanVectorOrderDirection(t *testing.T) {
	q := mustParse(t, "SELECT TOP 5 c.id FROM c ORDER BY VectorDistance(c.v, @q)")
	var plan struct {
		QueryInfo struct {
			OrderBy                []string `json:"orderBy"`
			HasNonStreamingOrderBy bool     `json:"hasNonStreamingOrderBy"`
		} `json:"queryInfo"`
	}
	for fn, want := range map[string]string{"": "Descending", "cosine": "Descending", "dotproduct": "Descending", "euclidean": "Ascending"} {
		vec := VectorDefaults{ByPath: map[string]VectorSpec{"/v": {DistanceFunction: fn}}}
		if err := json.Unmarshal(q.InfoFor(vec).Plan, &plan); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(plan.QueryInfo.OrderBy) != "["+want+"]" || !plan.QueryInfo.HasNonStreamingOrderBy {
			t.Errorf("%q: plan %+v, want %s", fn, plan.QueryInfo, want)
		}
	}
}

func TestPartitionKeyFilter(t *testing.T) {
	tests := []struct {
		query  string
		paths  []string
		params map[string]any
		want   string
	}{
		{"SELECT * FROM c WHERE c.pk = 'x'", []string{"/pk"}, nil, "[x] true"},
		{"SELECT * FROM c WHERE 'x' = c.pk AND c.n > 1", []string{"/pk"}, nil, "[x] true"},
		{"SELECT * FROM root r WHERE r.pk = @p ORDER BY r.id", []string{"/pk"}, map[string]any{"@p": 5}, "[5] true"},
		{"SELECT * FROM c WHERE c.a.b = true AND (c.t = 'x' AND c[\"u\"] = null)", []string{"/t", "/u", "/a/b"}, nil, "[x <nil> true] true"},
		{"SELECT * FROM c WHERE c.pk = 'x' OR c.pk = 'y'", []string{"/pk"}, nil, "[] false"},
		{"SELECT * FROM c WHERE c.pk != 'x'", []string{"/pk"}, nil, "[] false"},
		{"SELECT * FROM c WHERE c.pk IN ('x') AND c.n > 1", []string{"/pk"}, nil, "[x] true"},
		{"SELECT * FROM c WHERE c.pk IN ('x', 'y')", []string{"/pk"}, nil, "[] false"},
		{"SELECT * FROM c WHERE c.t = 'x'", []string{"/t", "/u"}, nil, "[] false"},
		{"SELECT * FROM c WHERE c.pk = @missing", []string{"/pk"}, nil, "[] false"},
		{"SELECT * FROM c", []string{"/pk"}, nil, "[] false"},
		{"SELECT * FROM c WHERE NOT (c.pk = 'x')", []string{"/pk"}, nil, "[] false"},
		{"SELECT VALUE t FROM t IN c.tags WHERE c.pk = 'x'", []string{"/pk"}, nil, "[] false"},
	}
	for _, tt := range tests {
		q, err := Parse(tt.query)
		if err != nil {
			// Queries that do not resolve are not routed; only the last one here fails to parse.
			continue
		}
		v, ok := q.PartitionKeyFilter(tt.paths, tt.params)
		if got := fmt.Sprint(v, ok); got != tt.want {
			t.Errorf("%s: got %v %v, want %s", tt.query, v, ok, tt.want)
		}
	}
}

func TestMatch(t *testing.T) {
	doc := map[string]any{"id": "1", "n": 5.0, "tags": []any{"a", "b"}, "o": map[string]any{"x": "y"}}
	tests := []struct {
		cond string
		want bool
	}{
		{"from c where c.n = 5", true},
		{"FROM c WHERE c.n > 5", false},
		{"from c where c.missing = 1", false},
		{"from c where ARRAY_CONTAINS(c.tags, 'b') AND c.o.x = 'y'", true},
		{"from c join t in c.tags where t = 'b'", true},
		{"from c", true},
	}
	for _, tt := range tests {
		got, err := Match(tt.cond, doc)
		if err != nil || got != tt.want {
			t.Errorf("Match(%q) = %v, %v; want %v", tt.cond, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "where c.n = 5", "from c where", "from c where nosuch(c)"} {
		if _, err := Match(bad, doc); err == nil {
			t.Errorf("Match(%q): no error", bad)
		}
	}
}

func ExampleQuery_Execute() {
	q, err := Parse("SELECT c.name, c.age FROM c WHERE c.age >= @min ORDER BY c.age DESC")
	if err != nil {
		panic(err)
	}
	docs := []Document{
		{Key: "1", Value: map[string]any{"name": "Ann", "age": 31.0}},
		{Key: "2", Value: map[string]any{"name": "Bo", "age": 17.0}},
		{Key: "3", Value: map[string]any{"name": "Cy", "age": 45.0}},
	}
	page, err := q.Execute(docs, Options{Params: map[string]any{"@min": 18}, MaxItemCount: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(page.Results[0]), page.Continuation != "")
	page, _ = q.Execute(docs, Options{Params: map[string]any{"@min": 18}, MaxItemCount: 1, Continuation: page.Continuation})
	fmt.Println(string(page.Results[0]), page.Continuation != "")
	// Output:
	// {"name":"Cy","age":45} true
	// {"name":"Ann","age":31} false
}

func ExampleParse_error() {
	_, err := Parse("SELECT * FROM c WHERE LEN(c.name) > 3")
	fmt.Println(err)
	// Output: BadRequest: 'LEN' is not a recognized built-in function name.
}

// TestRewrittenOrderByQueryRuns checks that the plan's rewrittenQuery, with the filter placeholder
// replaced by true as SDKs do on a first page, runs and returns the original results as payloads.
func TestRewrittenOrderByQueryRuns(t *testing.T) {
	all, _ := loadTable(t)
	pk := "a"
	docs := partitionDocs(all, &pk)
	for _, text := range []string{
		"SELECT * FROM c ORDER BY c.id DESC",
		"SELECT c.id, c.name AS n FROM c WHERE c.age > 20 ORDER BY c.age, c.id",
		"SELECT VALUE c.name FROM c ORDER BY c.name",
		"SELECT TOP 2 c.id FROM c ORDER BY c[\"score\"] DESC",
		"SELECT c.id, t AS tag FROM root c JOIN t IN c.tags ORDER BY c.id",
	} {
		q := mustParse(t, text)
		var plan struct {
			QueryInfo struct {
				RewrittenQuery string `json:"rewrittenQuery"`
			} `json:"queryInfo"`
		}
		if err := json.Unmarshal(q.Info().Plan, &plan); err != nil {
			t.Fatal(err)
		}
		rw := strings.ReplaceAll(plan.QueryInfo.RewrittenQuery, "{documentdb-formattableorderbyquery-filter}", "true")
		rq, err := Parse(rw)
		if err != nil {
			t.Fatalf("%s: rewritten %q: %v", text, rw, err)
		}
		want := mustExecute(t, q, docs, Options{MaxItemCount: -1})
		got := mustExecute(t, rq, docs, Options{MaxItemCount: -1})
		if len(got.Results) != len(want.Results) {
			t.Fatalf("%s: rewritten query returned %d results, want %d", text, len(got.Results), len(want.Results))
		}
		for i, r := range got.Results {
			var row struct {
				OrderByItems []map[string]any `json:"orderByItems"`
				Payload      json.RawMessage  `json:"payload"`
			}
			if err := json.Unmarshal(r, &row); err != nil {
				t.Fatal(err)
			}
			if len(row.OrderByItems) != len(q.sel.orderBy) || string(row.Payload) != string(want.Results[i]) {
				t.Errorf("%s: row %d = %s, want payload %s", text, i, r, want.Results[i])
			}
		}
	}
}

func TestVectorDistanceOrderDirectionRefused(t *testing.T) {
	for _, q := range []string{
		"SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.v, [1, 2]) ASC",
		"SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.v, [1, 2]) DESC",
	} {
		_, err := Parse(q)
		if err == nil || !strings.Contains(err.Error(), "Specifying a sorting order (ASC or DESC) with VectorDistance function is not supported.") {
			t.Errorf("%s: %v, want the service's 400", q, err)
		}
	}
}

func TestPlanDCountAndSubqueries(t *testing.T) {
	var p struct {
		QueryInfo struct {
			DistinctType   string          `json:"distinctType"`
			DCountInfo     json.RawMessage `json:"dCountInfo"`
			Aggregates     []string        `json:"aggregates"`
			RewrittenQuery string          `json:"rewrittenQuery"`
		} `json:"queryInfo"`
	}
	for q, want := range map[string]string{
		"SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE c.city FROM c WHERE c.n > 1)": `{"dCountAlias":""}`,
		"SELECT COUNT(1) AS n FROM (SELECT DISTINCT c.city, c.zip FROM c) x":             `{"dCountAlias":"n"}`,
	} {
		b, err := mustParse(t, q).Plan(PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		if string(p.QueryInfo.DCountInfo) != want || p.QueryInfo.DistinctType != "Unordered" || len(p.QueryInfo.Aggregates) != 0 ||
			!strings.HasPrefix(p.QueryInfo.RewrittenQuery, "SELECT DISTINCT ") {
			t.Errorf("%s: %+v", q, p.QueryInfo)
		}
	}
	for _, q := range []string{
		"SELECT VALUE COUNT(1) FROM (SELECT TOP 3 c.id FROM c) x",
		"SELECT VALUE COUNT(1) FROM (SELECT VALUE c.id FROM c OFFSET 2 LIMIT 3) x",
		"SELECT * FROM (SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g) x",
	} {
		if _, err := mustParse(t, q).Plan(PlanOptions{}); err == nil || !strings.Contains(err.Error(), "cosmostest does not support") {
			t.Errorf("%s: %v, want a 400 naming cosmostest", q, err)
		}
	}
	// A JOIN subquery without an alias is rendered without AS.
	b, err := mustParse(t, "SELECT VALUE COUNT(1) FROM c JOIN (SELECT VALUE t FROM t IN c.tags WHERE t = 'red')").Plan(PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(p.QueryInfo.RewrittenQuery); err != nil {
		t.Errorf("rewrittenQuery %q does not parse: %v", p.QueryInfo.RewrittenQuery, err)
	}
}

func TestMakeListMakeSet(t *testing.T) {
	docs := []Document{
		{Key: "1", Value: map[string]any{"g": "a", "v": 1.0}},
		{Key: "2", Value: map[string]any{"g": "a", "v": 1.0}},
		{Key: "3", Value: map[string]any{"g": "b", "v": "x"}},
		{Key: "4", Value: map[string]any{"g": "b"}},
	}
	for q, want := range map[string]string{
		"SELECT VALUE MAKELIST(c.v) FROM c":                                  `[[1,1,"x"]]`,
		"SELECT VALUE MAKESET(c.v) FROM c":                                   `[[1,"x"]]`,
		"SELECT c.g, MAKESET(c.v) AS s FROM c GROUP BY c.g":                  `[{"g":"a","s":[1]},{"g":"b","s":["x"]}]`,
		"SELECT VALUE MAKELIST(c.v) FROM c WHERE c.g = 'none'":               `[[]]`,
		`SELECT VALUE [{"item": MAKELIST(c.v)}] FROM c WHERE IS_NUMBER(c.v)`: `[[{"item":[1,1]}]]`,
	} {
		page := mustExecute(t, mustParse(t, q), docs, Options{})
		got, _ := json.Marshal(page.Results)
		if string(got) != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
	b, _ := mustParse(t, "SELECT VALUE MAKESET(c.v) FROM c").Plan(PlanOptions{})
	if !strings.Contains(string(b), `"aggregates":["MakeSet"]`) {
		t.Errorf("plan %s", b)
	}
	if f := mustParse(t, "SELECT VALUE MAKESET(c.v) FROM c").Features(PlanOptions{}); fmt.Sprint(f) != "[Aggregate ListAndSetAggregate]" {
		t.Errorf("features %v", f)
	}
}

func TestGroupByKeyProperty(t *testing.T) {
	docs := []Document{
		{Key: "1", Value: map[string]any{"g": map[string]any{"name": "a", "n": 1.0}}},
		{Key: "2", Value: map[string]any{"g": map[string]any{"name": "a", "n": 1.0}}},
		{Key: "3", Value: map[string]any{"g": map[string]any{"name": "b", "n": 2.0}}},
	}
	page := mustExecute(t, mustParse(t, "SELECT c.g.name AS name, COUNT(1) AS n FROM c GROUP BY c.g"), docs, Options{})
	got, _ := json.Marshal(page.Results)
	if string(got) != `[{"name":"a","n":2},{"name":"b","n":1}]` {
		t.Fatalf("got %s", got)
	}
	if _, err := Parse("SELECT c.h.name FROM c GROUP BY c.g"); err == nil {
		t.Fatal("a property of a path that is not a GROUP BY key was accepted")
	}
}

func TestPartitionKeyPoints(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT * FROM c WHERE c.pk = 'a'":                                               "[[a]] true",
		"SELECT * FROM c WHERE c.pk = 'a' OR c.pk = 'b'":                                 "[[a] [b]] true",
		"SELECT * FROM c WHERE c.pk = 'a' OR c.n = 1":                                    "[] false",
		"SELECT * FROM c WHERE c.pk = 'a' AND c.pk = 'b'":                                "[[]] true",
		"SELECT * FROM c WHERE false":                                                    "[[]] true",
		"SELECT 5":                                                                       "[[]] true",
		"SELECT * FROM c WHERE c.pk IN ([], [1], {})":                                    "[[{}]] true",
		"SELECT * FROM c WHERE c.pk = @arr":                                              "[[{}]] true",
		"SELECT * FROM c WHERE c.pk IN ('a', 'b') AND c.pk = 'b'":                        "[[b]] true",
		"SELECT * FROM c WHERE (c.pk = 'a' AND c.n > 1) OR c.pk = @p":                    "[[a] [z]] true",
		"SELECT * FROM c WHERE ARRAY_CONTAINS(['a', 'b'], c.pk)":                         "[[a] [b]] true",
		"SELECT * FROM c WHERE ARRAY_CONTAINS(['a', c.x], c.pk)":                         "[] false",
		"SELECT * FROM c WHERE IS_NULL(c.pk)":                                            "[[<nil>]] true",
		"SELECT * FROM c WHERE NOT (c.pk = 'a')":                                         "[] false",
		"SELECT * FROM c WHERE c.pk != 'a'":                                              "[] false",
		"SELECT * FROM c WHERE c.pk IN ()":                                               "[[]] true",
		"SELECT * FROM c WHERE c.pk LIKE 'a!%' ESCAPE '!'":                               "[[a%]] true",
		"SELECT * FROM c WHERE c.pk LIKE 'ab'":                                           "[[ab]] true",
		"SELECT * FROM c WHERE c.pk LIKE 'a_'":                                           "[] false",
		"SELECT * FROM c WHERE c.pk LIKE @p":                                             "[[z]] true",
		"SELECT * FROM c WHERE c.pk NOT LIKE 'ab'":                                       "[] false",
		"SELECT * FROM c WHERE ABS(c.pk) = 2":                                            "[[-2] [2]] true",
		"SELECT * FROM c WHERE 0 = ABS(c.pk)":                                            "[[0]] true",
		"SELECT * FROM c WHERE ABS(c.pk) = -1":                                           "[[]] true",
		"SELECT * FROM c WHERE c.x = (SELECT VALUE c.y FROM c WHERE c.pk = 'a')":         "[[a]] true",
		"SELECT * FROM c WHERE c.x = (SELECT VALUE COUNT(1) FROM c WHERE c.pk = 'a')":    "[] false",
		"SELECT * FROM c WHERE c.x = (SELECT VALUE t FROM t IN c.tags WHERE c.pk = 'a')": "[] false",
		"SELECT * FROM c WHERE 1 = 2":                                                    "[[]] true",
		"SELECT * FROM c WHERE @p = 'z'":                                                 "[] false",
		"SELECT * FROM c WHERE ST_ISVALID({'type':'Point','coordinates':[1000, 0]})":     "[[]] true",
		"SELECT * FROM c WHERE ST_ISVALID({'type':'Point','coordinates':[10, 0]})":       "[] false",
		"SELECT * FROM c WHERE GetCurrentTimestamp() < 0":                                "[] false",
	} {
		q2, err := Parse(q)
		if err != nil {
			if strings.HasSuffix(q, "IN ()") {
				continue
			}
			t.Fatal(err)
		}
		pts, ok := q2.PartitionKeyPoints([]string{"/pk"}, map[string]any{"@p": "z", "@arr": []any{1.0}}, Geography)
		if got := fmt.Sprint(pts, " ", ok); strings.ReplaceAll(got, "  ", " ") != want && fmt.Sprintf("%v %v", pts, ok) != want {
			t.Errorf("%s: %v %v, want %s", q, pts, ok, want)
		}
	}
}

// TestPartitionKeyPointsSound: every row a query returns lies in the logical partitions its plan
// narrows to (LIKE without wildcards, ABS, a subquery filter over the same document).
func TestPartitionKeyPointsSound(t *testing.T) {
	var docs []Document
	for i, pk := range []any{"a", "a%", "ab", "b", -2.0, 2.0, 0.0, 1.0, nil, true} {
		docs = append(docs, Document{Key: fmt.Sprintf("%02d", i), Value: map[string]any{"id": fmt.Sprint(i), "pk": pk, "x": 1.0, "y": 1.0}})
	}
	for _, text := range []string{
		"SELECT * FROM c WHERE c.pk LIKE 'a!%' ESCAPE '!'", "SELECT * FROM c WHERE c.pk LIKE 'ab'",
		"SELECT * FROM c WHERE ABS(c.pk) = 2", "SELECT * FROM c WHERE ABS(c.pk) = 0",
		"SELECT * FROM c WHERE c.x = (SELECT VALUE c.y FROM c WHERE c.pk = 'b')",
		"SELECT * FROM c WHERE c.x >= (SELECT VALUE c.y FROM c WHERE c.pk IN ('a', 'ab'))",
	} {
		q := mustParse(t, text)
		pts, ok := q.PartitionKeyPoints([]string{"/pk"}, nil, Geography)
		if !ok {
			t.Fatalf("%s: not narrowed", text)
		}
		page, err := q.Execute(docs, Options{MaxItemCount: -1})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Results) == 0 {
			t.Fatalf("%s: no rows (the check would be empty)", text)
		}
		for _, r := range page.Results {
			var row map[string]any
			if err := json.Unmarshal(r, &row); err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(pts, func(p []any) bool { return len(p) == 1 && sameKeyValue(p[0], row["pk"]) }) {
				t.Errorf("%s: row with key %v outside the plan's points %v", text, row["pk"], pts)
			}
		}
	}
}

// TestPlanConcurrent: a Query is shared; plans from many goroutines agree (run with -race).
func TestPlanConcurrent(t *testing.T) {
	q := mustParse(t, "SELECT TOP @n c.id FROM c WHERE c.pk IN ('a', 'b') ORDER BY c.x DESC")
	want, err := q.Plan(PlanOptions{Params: map[string]any{"@n": 3}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				got, err := q.Plan(PlanOptions{Params: map[string]any{"@n": 3}})
				if err != nil || string(got) != string(want) {
					t.Errorf("plan %s, %v; want %s", got, err, want)
					return
				}
				q.PartitionKeyPoints([]string{"/pk"}, nil, Geography)
				q.Features(PlanOptions{})
			}
		})
	}
	wg.Wait()
}
