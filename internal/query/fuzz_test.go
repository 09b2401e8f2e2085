package query

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func addSeeds(f *testing.F, add func(q string)) {
	_, cases := loadTable(f)
	for _, c := range cases {
		add(c.Query)
	}
	for _, s := range []string{
		"SELECT", "SELECT * FROM c WHERE ((((", "SELECT VALUE [", "SELECT {", "SELECT c.a.b.c[\"d\"][0] FROM c",
		"SELECT * FROM c WHERE c.a LIKE '[' ESCAPE ''", "SELECT VALUE 0x1F", "SELECT VALUE 'a\\u12'",
		"SELECT VALUE udf.f(1)", "SELECT TOP -1 * FROM c", "SELECT * FROM c OFFSET @o LIMIT @l",
		"SELECT VALUE REGEXMATCH('a', '(', 'q')", "SELECT VALUE NOT NOT NOT true", "SELECT - - - 1",
		"SELECT TOP 3 * FROM c ORDER BY RANK FullTextScore(c.a, 'x', ['y z'])",
		"SELECT c.id FROM c ORDER BY RANK RRF(FullTextScore(c.a, 'x'), VectorDistance(c.v, [1, 2]), [1, -2]) OFFSET 1 LIMIT 2",
		"SELECT VALUE _FullTextScore(c.a, ['x'], 3, 9, [1])", "SELECT VALUE COUNTIF(FullTextContains(c.a, 'x')) FROM c",
	} {
		add(s)
	}
}

func FuzzParse(f *testing.F) {
	addSeeds(f, func(q string) { f.Add(q) })
	f.Fuzz(func(t *testing.T, text string) {
		q, err := Parse(text)
		if err != nil {
			var qe *Error
			if !errors.As(err, &qe) || qe.Code != "BadRequest" || qe.Message == "" {
				t.Fatalf("Parse(%q): error %v is not a BadRequest *Error", text, err)
			}
			return
		}
		info := q.Info()
		if !json.Valid(info.Plan) {
			t.Fatalf("Parse(%q): invalid plan %s", text, info.Plan)
		}
		q.PartitionKeyFilter([]string{"/pk", "/a/b"}, map[string]any{"@p": "x"})
		q.PartitionKeyPoints([]string{"/pk", "/a/b"}, map[string]any{"@p": "x"}, Geography)
		checkPlan(t, q, map[string]any{"@n": 2.0, "@o": 1.0, "@l": 3.0})
	})
}

// FuzzPlan checks that a plan is valid JSON or a BadRequest, and that its rewrittenQuery, with the
// filter placeholder replaced by true as the SDKs do, is a query the engine accepts.
func FuzzPlan(f *testing.F) {
	addSeeds(f, func(q string) { f.Add(q) })
	f.Fuzz(func(t *testing.T, text string) {
		q, err := Parse(text)
		if err != nil {
			return
		}
		checkPlan(t, q, map[string]any{"@n": 2.0, "@o": 1.0, "@l": 3.0})
	})
}

func checkPlan(t *testing.T, q *Query, params map[string]any) {
	t.Helper()
	b, err := q.Plan(PlanOptions{Params: params})
	if err != nil {
		var qe *Error
		if !errors.As(err, &qe) || qe.Code != "BadRequest" || qe.Message == "" {
			t.Fatalf("Plan(%q): error %v is not a BadRequest *Error", q.Text(), err)
		}
		return
	}
	var p struct {
		QueryInfo struct {
			RewrittenQuery string `json:"rewrittenQuery"`
		} `json:"queryInfo"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("Plan(%q): invalid plan %s", q.Text(), b)
	}
	if rw := p.QueryInfo.RewrittenQuery; rw != "" {
		if _, err := Parse(strings.ReplaceAll(rw, "{"+"documentdb-formattableorderbyquery-filter}", "true")); err != nil {
			t.Fatalf("Plan(%q): rewrittenQuery %q does not parse: %v", q.Text(), rw, err)
		}
	}
	q.Features(PlanOptions{Params: params})
}

func FuzzExecute(f *testing.F) {
	all, _ := loadTable(f)
	docs := partitionDocs(all, nil)
	addSeeds(f, func(q string) { f.Add(q, `{"@n": 2, "@s": "a", "@v": [1, 0, 0]}`, uint8(2)) })
	recoverPanics = false
	savedRows := defaultMaxRows
	defaultMaxRows = 200_000
	f.Cleanup(func() { recoverPanics, defaultMaxRows = true, savedRows })
	f.Fuzz(func(t *testing.T, text, params string, pageSize uint8) {
		q, err := Parse(text)
		if err != nil {
			return
		}
		var p map[string]any
		_ = json.Unmarshal([]byte(params), &p)
		token := ""
		for pages := 0; pages < 50; pages++ {
			page, err := q.Execute(docs, Options{Params: p, MaxItemCount: int(pageSize%8) - 1, Continuation: token})
			if err != nil {
				var qe *Error
				if !errors.As(err, &qe) || qe.Code != "BadRequest" {
					t.Fatalf("Execute(%q): error %v is not a BadRequest *Error", text, err)
				}
				return
			}
			for _, r := range page.Results {
				if !json.Valid(r) {
					t.Fatalf("Execute(%q): invalid JSON result %s", text, r)
				}
			}
			if page.Continuation == "" {
				return
			}
			token = page.Continuation
		}
	})
}
