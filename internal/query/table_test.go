package query

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
	"time"
)

// queryCase is one entry of testdata/queries.json. The table is shared with cosmostest, which can run
// it through the azcosmos client against a container partitioned on /pk holding
// testdata/documents.json (no document has a property starting with "_"): a case with partitionKey
// runs in that logical partition, one without runs across partitions (every such case is one the
// gateway serves; TestQueryTable checks that). Compare results after removing the system properties
// (_rid, _self, _etag, _attachments, _ts) at any depth, numbers within a relative 1e-9, in order
// when ordered is true and as multisets otherwise; expectError is a substring of the 400 message.
type queryCase struct {
	Name         string            `json:"name"`
	Query        string            `json:"query"`
	Params       map[string]any    `json:"params"`
	PartitionKey *string           `json:"partitionKey"`
	Expect       []json.RawMessage `json:"expect"`
	ExpectError  string            `json:"expectError"`
	Ordered      bool              `json:"ordered"`
}

func loadTable(t testing.TB) ([]map[string]any, []queryCase) {
	t.Helper()
	var docs []map[string]any
	b, err := os.ReadFile("testdata/documents.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &docs); err != nil {
		t.Fatal(err)
	}
	var cases []queryCase
	b, err = os.ReadFile("testdata/queries.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cases); err != nil {
		t.Fatal(err)
	}
	return docs, cases
}

// partitionDocs returns the documents of one logical partition (all when pk is nil), sorted by id.
func partitionDocs(all []map[string]any, pk *string) []Document {
	var docs []Document
	for _, d := range all {
		if pk != nil && d["pk"] != *pk {
			continue
		}
		docs = append(docs, Document{Key: d["id"].(string), Value: d})
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Key < docs[j].Key })
	return docs
}

// runAll pages through q with the given page size and returns every result.
func runAll(t *testing.T, q *Query, docs []Document, params map[string]any, pageSize int) ([]json.RawMessage, error) {
	t.Helper()
	return runAllBytes(t, q, docs, params, pageSize, 0)
}

// runAllBytes is runAll with a page byte budget as well.
func runAllBytes(t *testing.T, q *Query, docs []Document, params map[string]any, pageSize, maxBytes int) ([]json.RawMessage, error) {
	t.Helper()
	var out []json.RawMessage
	token := ""
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("more than 1000 pages")
		}
		p, err := q.Execute(docs, Options{Params: params, MaxItemCount: pageSize, MaxBytes: maxBytes, Continuation: token})
		if err != nil {
			return nil, err
		}
		if pageSize > 0 && len(p.Results) > pageSize {
			t.Fatalf("page of %d results with MaxItemCount %d", len(p.Results), pageSize)
		}
		if p.Continuation != "" && len(p.Results) == 0 {
			t.Fatalf("empty page with a continuation")
		}
		out = append(out, p.Results...)
		if p.Continuation == "" {
			return out, nil
		}
		token = p.Continuation
	}
}

func TestQueryTable(t *testing.T) {
	all, cases := loadTable(t)
	if len(cases) < 150 {
		t.Fatalf("table has %d queries, want at least 150", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			docs := partitionDocs(all, tc.PartitionKey)
			q, err := Parse(tc.Query)
			if err == nil {
				_, err = runAll(t, q, docs, tc.Params, -1)
			}
			if tc.ExpectError != "" {
				if err == nil {
					t.Fatalf("got no error, want one containing %q", tc.ExpectError)
				}
				var qe *Error
				if !errors.As(err, &qe) || qe.Code != "BadRequest" {
					t.Fatalf("error %v is not a BadRequest *Error", err)
				}
				if !strings.Contains(qe.Message, tc.ExpectError) {
					t.Fatalf("error %q does not contain %q", qe.Message, tc.ExpectError)
				}
				return
			}
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if tc.PartitionKey == nil {
				// The table also runs through the gateway rules in cosmostest: a case without a
				// partition key must be one the gateway serves across partitions.
				i := q.Info()
				_, pinned := q.PartitionKeyFilter([]string{"/pk"}, tc.Params)
				if (i.HasOrderBy || i.HasTop || i.HasOffsetLimit || i.HasDistinct || i.HasGroupBy || i.HasAggregates) && !pinned {
					t.Fatalf("needs a partitionKey: the gateway refuses it across partitions")
				}
			}
			got, err := runAll(t, q, docs, tc.Params, -1)
			if err != nil {
				t.Fatal(err)
			}
			if msg := compareResults(got, tc.Expect, tc.Ordered); msg != "" {
				t.Fatalf("%s\n got: %s\nwant: %s", msg, joinRaw(got), joinRaw(tc.Expect))
			}
			for _, size := range []int{1, 2, 7} {
				paged, err := runAll(t, q, docs, tc.Params, size)
				if err != nil {
					t.Fatalf("page size %d: %v", size, err)
				}
				if joinRaw(paged) != joinRaw(got) {
					t.Fatalf("page size %d:\n got: %s\nwant: %s", size, joinRaw(paged), joinRaw(got))
				}
			}
			// A one-byte budget still returns one result per page.
			paged, err := runAllBytes(t, q, docs, tc.Params, -1, 1)
			if err != nil {
				t.Fatalf("byte-limited pages: %v", err)
			}
			if joinRaw(paged) != joinRaw(got) {
				t.Fatalf("byte-limited pages:\n got: %s\nwant: %s", joinRaw(paged), joinRaw(got))
			}
		})
	}
}

func joinRaw(rs []json.RawMessage) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = string(r)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// compareResults compares results with expectations as JSON values (numbers within a relative 1e-9),
// in order or as multisets; it returns "" when they match.
func compareResults(got, want []json.RawMessage, ordered bool) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d results, want %d", len(got), len(want))
	}
	decode := func(rs []json.RawMessage) []any {
		out := make([]any, len(rs))
		for i, r := range rs {
			if err := json.Unmarshal(r, &out[i]); err != nil {
				out[i] = fmt.Sprintf("invalid JSON %q", r)
			}
		}
		return out
	}
	g, w := decode(got), decode(want)
	if ordered {
		for i := range g {
			if !jsonEqual(g[i], w[i]) {
				return fmt.Sprintf("result %d differs", i)
			}
		}
		return ""
	}
	used := make([]bool, len(g))
	for i, wv := range w {
		found := false
		for j, gv := range g {
			if !used[j] && jsonEqual(gv, wv) {
				used[j] = true
				found = true
				break
			}
		}
		if !found {
			return fmt.Sprintf("expected result %d not found", i)
		}
	}
	return ""
}

func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false
		}
		return x == y || math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
