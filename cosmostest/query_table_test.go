package cosmostest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/epk"
	"github.com/cosmoskit/cosmoskit-go/internal/query"
)

// tableCase is one entry of internal/query/testdata/queries.json (see the comment on queryCase in
// internal/query/table_test.go for how the table is meant to run through the client).
type tableCase struct {
	Name         string            `json:"name"`
	Query        string            `json:"query"`
	Params       map[string]any    `json:"params"`
	PartitionKey *string           `json:"partitionKey"`
	Expect       []json.RawMessage `json:"expect"`
	ExpectError  string            `json:"expectError"`
	Ordered      bool              `json:"ordered"`
}

func loadQueryTable(t *testing.T) (docs []map[string]any, cases []tableCase) {
	t.Helper()
	for path, v := range map[string]any{
		"../internal/query/testdata/documents.json": &docs,
		"../internal/query/testdata/queries.json":   &cases,
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	if len(cases) < 150 {
		t.Fatalf("table has %d queries, want at least 150", len(cases))
	}
	return docs, cases
}

// seedDocs creates docs in cc (partition key /pk) through the SDK.
func seedDocs(t testing.TB, cc *azcosmos.ContainerClient, docs []map[string]any) {
	t.Helper()
	for _, d := range docs {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString(d["pk"].(string)), b, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func queryParams(params map[string]any) []azcosmos.QueryParameter {
	var out []azcosmos.QueryParameter
	for k, v := range params {
		out = append(out, azcosmos.QueryParameter{Name: k, Value: v})
	}
	return out
}

// queryPage is one page as the client saw it.
type queryPage struct {
	items [][]byte
	resp  azcosmos.QueryItemsResponse
}

// drain pages through a query with the real client and returns every page. ctx may carry extra
// headers (policy.WithHTTPHeader).
func drainQuery(ctx context.Context, t testing.TB, cc *azcosmos.ContainerClient, pk azcosmos.PartitionKey, q string, opts *azcosmos.QueryOptions) ([]queryPage, error) {
	t.Helper()
	pager := cc.NewQueryItemsPager(q, pk, opts)
	var pages []queryPage
	for pager.More() {
		if len(pages) > 500 {
			t.Fatalf("more than 500 pages for %q", q)
		}
		resp, err := pager.NextPage(ctx)
		if err != nil {
			return pages, err
		}
		pages = append(pages, queryPage{items: resp.Items, resp: resp})
	}
	return pages, nil
}

func allItems(pages []queryPage) [][]byte {
	var out [][]byte
	for _, p := range pages {
		out = append(out, p.items...)
	}
	return out
}

// stripSystem removes the system properties the service adds (_rid, _self, _etag, _attachments,
// _ts) at any depth.
func stripSystem(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			switch k {
			case "_rid", "_self", "_etag", "_attachments", "_ts":
				continue
			}
			out[k] = stripSystem(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripSystem(e)
		}
		return out
	}
	return v
}

func decodeAll(t testing.TB, rs [][]byte) []any {
	t.Helper()
	out := make([]any, len(rs))
	for i, r := range rs {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			t.Fatalf("result %d is not JSON: %q", i, r)
		}
		out[i] = stripSystem(out[i])
	}
	return out
}

// sameResults compares results as JSON values (numbers within a relative 1e-9), in order or as
// multisets; it returns "" when they match.
func sameResults(got, want []any, ordered bool) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d results, want %d", len(got), len(want))
	}
	if ordered {
		for i := range got {
			if !jsonValueEqual(got[i], want[i]) {
				return fmt.Sprintf("result %d differs", i)
			}
		}
		return ""
	}
	used := make([]bool, len(got))
	for i, w := range want {
		found := false
		for j, g := range got {
			if !used[j] && jsonValueEqual(g, w) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return fmt.Sprintf("expected result %d not found", i)
		}
	}
	return ""
}

func jsonValueEqual(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y)))
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonValueEqual(x[i], y[i]) {
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
			if !ok || !jsonValueEqual(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

func show(vs []any) string {
	b, _ := json.Marshal(vs)
	return string(b)
}

// errorBody returns the status, sub-status and body of an SDK error.
func errorBody(t testing.TB, err error) (int, string, string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("not a ResponseError: %v", err)
	}
	b, rerr := io.ReadAll(re.RawResponse.Body)
	if rerr != nil {
		t.Fatalf("read error body: %v", rerr)
	}
	return re.StatusCode, re.RawResponse.Header.Get("x-ms-substatus"), string(b)
}

// needsPlan reports whether the gateway refuses q across partitions (rest_protocol §6), and whether
// the WHERE clause pins /pk so that the gateway routes it to one logical partition anyway.
func needsPlan(t testing.TB, text string, params map[string]any) (refused, pinned bool) {
	t.Helper()
	q, err := query.Parse(text)
	if err != nil {
		return false, false
	}
	i := q.Info()
	_, pinned = q.PartitionKeyFilter([]string{"/pk"}, params)
	return i.HasOrderBy || i.HasTop || i.HasOffsetLimit || i.HasDistinct || i.HasGroupBy || i.HasAggregates, pinned
}

// tableServer is a server holding the table's documents in container "all", and (with split)
// containers "only-a" and "only-b" holding one logical partition each.
func tableServer(t *testing.T, docs []map[string]any, split bool, opts ...cosmostest.Option) map[string]*azcosmos.ContainerClient {
	t.Helper()
	s := cosmostest.NewServer(t, opts...)
	c := newClient(t, s, nil)
	out := map[string]*azcosmos.ContainerClient{"all": newContainer(t, c, "all", tableContainer())}
	seedDocs(t, out["all"], docs)
	if split {
		for _, pk := range []string{"a", "b"} {
			var part []map[string]any
			for _, d := range docs {
				if d["pk"] == pk {
					part = append(part, d)
				}
			}
			cc := newContainer(t, c, "only-"+pk, tableContainer())
			seedDocs(t, cc, part)
			out["only-"+pk] = cc
		}
	}
	return out
}

// TestQueryTable runs internal/query's table through azcosmos: on one physical partition and on
// four, with the case's partition key (or across partitions), at page sizes 1, 7 and the default.
// Cases with a partition key also run in a container holding only that logical partition, with
// x-ms-documentdb-partitionkeyrangeid (everything runs) and with neither header (the gateway's
// 400/1004 for TOP, ORDER BY, OFFSET/LIMIT, DISTINCT, GROUP BY and aggregates).
func TestQueryTable(t *testing.T) {
	t.Parallel()
	docs, cases := loadQueryTable(t)
	one := tableServer(t, docs, true)
	four := tableServer(t, docs, false, cosmostest.WithPartitionCount(4))
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			pk := azcosmos.NewPartitionKey()
			if tc.PartitionKey != nil {
				pk = azcosmos.NewPartitionKeyString(*tc.PartitionKey)
			}
			params := queryParams(tc.Params)
			if strings.TrimSpace(tc.Query) == "" {
				// The server refuses an empty query text before parsing it, with its own message.
				tc.ExpectError = "The query text is required."
			}
			want := decodeAll(t, rawItems(tc.Expect))
			refused, pinned := needsPlan(t, tc.Query, tc.Params)
			for _, srv := range []struct {
				name string
				cc   *azcosmos.ContainerClient
			}{{"1 partition", one["all"]}, {"4 partitions", four["all"]}} {
				// Across physical partitions the gateway returns a filter's results range by range.
				ordered := tc.Ordered && (srv.name == "1 partition" || tc.PartitionKey != nil || pinned)
				for _, size := range []int32{1, 7, 0} {
					pages, err := drainQuery(ctx, t, srv.cc, pk, tc.Query, &azcosmos.QueryOptions{QueryParameters: params, PageSizeHint: size})
					if tc.ExpectError != "" {
						checkQueryError(t, err, tc.ExpectError)
						break
					}
					if err != nil {
						t.Fatalf("%s, page size %d: %v", srv.name, size, err)
					}
					got := decodeAll(t, allItems(pages))
					if msg := sameResults(got, want, ordered); msg != "" {
						t.Fatalf("%s, page size %d: %s\n got: %s\nwant: %s", srv.name, size, msg, show(got), show(want))
					}
					for i, p := range pages {
						if size > 0 && len(p.items) > int(size) {
							t.Fatalf("%s: page %d has %d items, page size %d", srv.name, i, len(p.items), size)
						}
					}
				}
			}
			if tc.PartitionKey == nil {
				return
			}
			cc := one["only-"+*tc.PartitionKey]
			rangeCtx := policy.WithHTTPHeader(ctx, http.Header{"x-ms-documentdb-partitionkeyrangeid": {"0"}})
			for _, size := range []int32{1, 0} {
				pages, err := drainQuery(rangeCtx, t, cc, azcosmos.NewPartitionKey(), tc.Query, &azcosmos.QueryOptions{QueryParameters: params, PageSizeHint: size})
				if tc.ExpectError != "" {
					checkQueryError(t, err, tc.ExpectError)
					break
				}
				if err != nil {
					t.Fatalf("range 0, page size %d: %v", size, err)
				}
				if got := decodeAll(t, allItems(pages)); sameResults(got, want, tc.Ordered) != "" {
					t.Fatalf("range 0, page size %d: %s\n got: %s\nwant: %s", size, sameResults(got, want, tc.Ordered), show(got), show(want))
				}
			}
			if tc.ExpectError != "" {
				return
			}
			pages, err := drainQuery(ctx, t, cc, azcosmos.NewPartitionKey(), tc.Query, &azcosmos.QueryOptions{QueryParameters: params})
			if refused && !pinned {
				checkCrossPartitionRefusal(t, tc.Query, tc.Params, err)
				return
			}
			if err != nil {
				t.Fatalf("without a partition key: %v", err)
			}
			if got := decodeAll(t, allItems(pages)); sameResults(got, want, tc.Ordered) != "" {
				t.Fatalf("without a partition key: %s\n got: %s\nwant: %s", sameResults(got, want, tc.Ordered), show(got), show(want))
			}
		})
	}
}

// checkQueryError asserts err is the service's 400 with a body naming the problem.
func checkQueryError(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want a 400 containing %q", want)
	}
	st, _, body := errorBody(t, err)
	if st != http.StatusBadRequest {
		t.Fatalf("status %d, want 400: %v", st, err)
	}
	var e struct{ Code, Message string }
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("error body is not JSON: %q", body)
	}
	if e.Code != "BadRequest" || !strings.Contains(e.Message, want) {
		t.Fatalf("error body %s, want code BadRequest and a message containing %q", body, want)
	}
}

// checkGatewayRefusal asserts err is the gateway's 400/1004 with a query plan in
// additionalErrorInfo, and returns the plan.
// checkCrossPartitionRefusal checks the gateway's answer to a cross-partition query it does not
// serve: 400/1004 with the plan (returned), or for GROUP BY and aggregates outside SELECT VALUE a
// plain 400 without one (nil).
func checkCrossPartitionRefusal(t *testing.T, text string, params map[string]any, err error) map[string]any {
	t.Helper()
	q, perr := query.Parse(text)
	if perr != nil {
		t.Fatal(perr)
	}
	if i := q.Info(); i.HasGroupBy || i.HasAggregates && !i.HasSelectValue {
		st, sub, _ := errorBody(t, err)
		if st != http.StatusBadRequest || sub != "0" || !strings.Contains(err.Error(), "Cross partition query only supports 'VALUE <AggregateFunc>' for aggregates") {
			t.Fatalf("status %d/%s, want the gateway's 400 for non-VALUE aggregates: %v", st, sub, err)
		}
		return nil
	}
	if _, perr := q.Plan(query.PlanOptions{Params: params}); perr != nil {
		// A shape the service's plan generator refuses (e.g. an aggregate inside an expression).
		st, sub, _ := errorBody(t, err)
		if st != http.StatusBadRequest || sub != "0" || !strings.Contains(err.Error(), strings.TrimPrefix(perr.Error(), "BadRequest: ")) {
			t.Fatalf("status %d/%s, want 400 %q: %v", st, sub, perr, err)
		}
		return nil
	}
	return checkGatewayRefusal(t, err)
}

func checkGatewayRefusal(t *testing.T, err error) map[string]any {
	t.Helper()
	if err == nil {
		t.Fatal("query ran across partitions; want the gateway's 400/1004")
	}
	st, sub, body := errorBody(t, err)
	if st != http.StatusBadRequest || sub != "1004" {
		t.Fatalf("status %d/%s, want 400/1004: %v", st, sub, err)
	}
	if !strings.Contains(err.Error(), "BadRequest") || !strings.Contains(err.Error(), "cross partition query can not be directly served by the gateway") {
		t.Fatalf("error does not name the gateway refusal: %v", err)
	}
	var e struct {
		Code                string `json:"code"`
		AdditionalErrorInfo string `json:"additionalErrorInfo"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("error body is not JSON: %q", body)
	}
	var plan map[string]any
	if err := json.Unmarshal([]byte(e.AdditionalErrorInfo), &plan); err != nil {
		t.Fatalf("additionalErrorInfo is not a JSON plan: %q", e.AdditionalErrorInfo)
	}
	if plan["partitionedQueryExecutionInfoVersion"] == nil || plan["queryInfo"] == nil || plan["queryRanges"] == nil {
		t.Fatalf("plan lacks partitionedQueryExecutionInfoVersion/queryInfo/queryRanges: %s", e.AdditionalErrorInfo)
	}
	return plan
}

func rawItems(rs []json.RawMessage) [][]byte {
	out := make([][]byte, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out
}

// rangeDoc is a document of the gateway tests: 40 documents over 10 logical partitions.
type rangeDoc struct {
	ID string  `json:"id"`
	PK string  `json:"pk"`
	N  float64 `json:"n"`
}

func rangeDocs() []rangeDoc {
	var out []rangeDoc
	for i := range 40 {
		out = append(out, rangeDoc{ID: fmt.Sprintf("d%02d", i), PK: fmt.Sprintf("p%d", i%10), N: float64(i % 7)})
	}
	return out
}

// gatewayQuery is a query the gateway refuses across partitions, with what it returns over a set of
// documents.
type gatewayQuery struct {
	name, query string
	// check asserts the results got over docs; plan checks the refusal's queryInfo.
	check func(t *testing.T, docs []rangeDoc, got []any)
	plan  func(t *testing.T, qi map[string]any)
}

func gatewayQueries() []gatewayQuery {
	ids := func(docs []rangeDoc) map[string]bool {
		m := map[string]bool{}
		for _, d := range docs {
			m[d.ID] = true
		}
		return m
	}
	subset := func(n int) func(t *testing.T, docs []rangeDoc, got []any) {
		return func(t *testing.T, docs []rangeDoc, got []any) {
			t.Helper()
			if len(got) != min(n, len(docs)) {
				t.Fatalf("got %d results, want %d", len(got), min(n, len(docs)))
			}
			in, seen := ids(docs), map[string]bool{}
			for _, g := range got {
				id, _ := g.(string)
				if !in[id] || seen[id] {
					t.Fatalf("result %v is not a distinct document of the scope: %s", g, show(got))
				}
				seen[id] = true
			}
		}
	}
	exactly := func(want func(docs []rangeDoc) []any, ordered bool) func(t *testing.T, docs []rangeDoc, got []any) {
		return func(t *testing.T, docs []rangeDoc, got []any) {
			t.Helper()
			w := want(docs)
			if msg := sameResults(got, w, ordered); msg != "" {
				t.Fatalf("%s\n got: %s\nwant: %s", msg, show(got), show(w))
			}
		}
	}
	field := func(key string, want any) func(t *testing.T, qi map[string]any) {
		return func(t *testing.T, qi map[string]any) {
			t.Helper()
			if !jsonValueEqual(qi[key], want) {
				t.Fatalf("plan queryInfo.%s = %v, want %v", key, qi[key], want)
			}
		}
	}
	return []gatewayQuery{
		{"top", "SELECT TOP 3 VALUE c.id FROM c", subset(3), field("top", 3.0)},
		{"order by", "SELECT VALUE c.id FROM c ORDER BY c.n DESC, c.id", exactly(func(docs []rangeDoc) []any {
			s := append([]rangeDoc(nil), docs...)
			sortDocs(s, func(a, b rangeDoc) bool { return a.N > b.N || a.N == b.N && a.ID < b.ID })
			var out []any
			for _, d := range s {
				out = append(out, d.ID)
			}
			return out
		}, true), field("orderBy", []any{"Descending", "Ascending"})},
		{"offset limit", "SELECT VALUE c.id FROM c OFFSET 1 LIMIT 2", subset(2), func(t *testing.T, qi map[string]any) {
			field("offset", 1.0)(t, qi)
			field("limit", 2.0)(t, qi)
		}},
		{"distinct", "SELECT DISTINCT VALUE c.n FROM c", exactly(func(docs []rangeDoc) []any {
			seen := map[float64]bool{}
			var out []any
			for _, d := range docs {
				if !seen[d.N] {
					seen[d.N] = true
					out = append(out, d.N)
				}
			}
			return out
		}, false), func(t *testing.T, qi map[string]any) {
			if qi["distinctType"] == "None" || qi["distinctType"] == nil {
				t.Fatalf("plan distinctType = %v, want Ordered or Unordered", qi["distinctType"])
			}
		}},
		{"group by", "SELECT c.n, COUNT(1) AS k FROM c GROUP BY c.n", exactly(func(docs []rangeDoc) []any {
			counts := map[float64]float64{}
			for _, d := range docs {
				counts[d.N]++
			}
			var out []any
			for n, k := range counts {
				out = append(out, map[string]any{"n": n, "k": k})
			}
			return out
		}, false), field("groupByExpressions", []any{"c.n"})},
		{"count", "SELECT VALUE COUNT(1) FROM c", exactly(func(docs []rangeDoc) []any { return []any{float64(len(docs))} }, true), field("aggregates", []any{"Count"})},
		{"sum", "SELECT VALUE SUM(c.n) FROM c", exactly(func(docs []rangeDoc) []any {
			s := 0.0
			for _, d := range docs {
				s += d.N
			}
			return []any{s}
		}, true), field("aggregates", []any{"Sum"})},
		{"min max", "SELECT MIN(c.n) AS lo, MAX(c.id) AS hi FROM c", exactly(func(docs []rangeDoc) []any {
			lo, hi := math.Inf(1), ""
			for _, d := range docs {
				lo, hi = math.Min(lo, d.N), max(hi, d.ID)
			}
			return []any{map[string]any{"lo": lo, "hi": hi}}
		}, true), nil},
		{"avg", "SELECT VALUE AVG(c.n) FROM c", exactly(func(docs []rangeDoc) []any {
			s := 0.0
			for _, d := range docs {
				s += d.N
			}
			return []any{s / float64(len(docs))}
		}, true), field("aggregates", []any{"Average"})},
	}
}

func sortDocs(s []rangeDoc, less func(a, b rangeDoc) bool) {
	sort.SliceStable(s, func(i, j int) bool { return less(s[i], s[j]) })
}

// TestQueryGatewayRefusal checks the gateway's cross-partition rules through azcosmos: TOP, ORDER
// BY, OFFSET/LIMIT, DISTINCT, GROUP BY and aggregates are refused across partitions with 400/1004
// and a plan in additionalErrorInfo, run within a logical partition (pk header), and run within one
// physical partition (x-ms-documentdb-partitionkeyrangeid) over exactly that range's documents.
func TestQueryGatewayRefusal(t *testing.T) {
	t.Parallel()
	const partitions = 4
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(partitions))
	capture := &bodyCapture{}
	cc := newContainer(t, newClient(t, s, func(o *azcosmos.ClientOptions) { o.PerRetryPolicies = append(o.PerRetryPolicies, capture) }), "c", tableContainer())
	planner := planClient{cc: cc, cap: capture}
	ctx := context.Background()
	docs := rangeDocs()
	for _, d := range docs {
		b, _ := json.Marshal(d)
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(d.PK), b, nil); err != nil {
			t.Fatal(err)
		}
	}
	props, err := cc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	def := props.ContainerProperties.PartitionKeyDefinition
	kind, version := string(def.Kind), def.Version
	if kind == "" {
		kind = "Hash"
	}
	// Range i of a new container is epk.Ranges(n)[i] (its id is "i").
	ranges := epk.Ranges(partitions, kind, version)
	byRange := make([][]rangeDoc, partitions)
	for _, d := range docs {
		h := epk.Hash([]any{d.PK}, kind, version)
		for i, r := range ranges {
			if r.Contains(h) {
				byRange[i] = append(byRange[i], d)
			}
		}
	}
	nonEmpty := 0
	for _, r := range byRange {
		if len(r) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < 2 {
		t.Fatalf("the documents fall into %d ranges; the test needs at least 2", nonEmpty)
	}
	for _, gq := range gatewayQueries() {
		t.Run(gq.name, func(t *testing.T) {
			_, err := drainQuery(ctx, t, cc, azcosmos.NewPartitionKey(), gq.query, nil)
			plan := checkCrossPartitionRefusal(t, gq.query, nil, err)
			if plan == nil {
				if plan, err = planner.plan(t, gq.query, nil, allFeatures); err != nil {
					t.Fatal(err)
				}
			}
			qi := plan["queryInfo"].(map[string]any)
			if gq.plan != nil {
				gq.plan(t, qi)
			}
			if rq, _ := qi["rewrittenQuery"].(string); rq == "" && gq.name == "order by" {
				t.Fatalf("plan has no rewrittenQuery: %v", qi)
			}
			for _, pk := range []string{"p0", "p3"} {
				var part []rangeDoc
				for _, d := range docs {
					if d.PK == pk {
						part = append(part, d)
					}
				}
				pages, err := drainQuery(ctx, t, cc, azcosmos.NewPartitionKeyString(pk), gq.query, &azcosmos.QueryOptions{PageSizeHint: 2})
				if err != nil {
					t.Fatalf("partition key %s: %v", pk, err)
				}
				gq.check(t, part, decodeAll(t, allItems(pages)))
			}
			for i := range partitions {
				rctx := policy.WithHTTPHeader(ctx, http.Header{"x-ms-documentdb-partitionkeyrangeid": {fmt.Sprint(i)}})
				pages, err := drainQuery(rctx, t, cc, azcosmos.NewPartitionKey(), gq.query, &azcosmos.QueryOptions{PageSizeHint: 3})
				if err != nil {
					t.Fatalf("range %d: %v", i, err)
				}
				got := decodeAll(t, allItems(pages))
				if len(byRange[i]) == 0 {
					// Aggregates over no documents: COUNT and SUM are 0, others undefined.
					continue
				}
				gq.check(t, byRange[i], got)
			}
		})
	}
}

// TestQueryRangeHeaderScope checks that a plain query with x-ms-documentdb-partitionkeyrangeid
// returns that range's documents only, that the ranges partition the container, and that an
// unknown range is 410/1002.
func TestQueryRangeHeaderScope(t *testing.T) {
	t.Parallel()
	const partitions = 4
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(partitions))
	cc := newContainer(t, newClient(t, s, nil), "c", nil)
	ctx := context.Background()
	docs := rangeDocs()
	for _, d := range docs {
		b, _ := json.Marshal(d)
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(d.PK), b, nil); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	pkRange := map[string]int{}
	for i := range partitions {
		rctx := policy.WithHTTPHeader(ctx, http.Header{"x-ms-documentdb-partitionkeyrangeid": {fmt.Sprint(i)}})
		pages, err := drainQuery(rctx, t, cc, azcosmos.NewPartitionKey(), "SELECT c.id, c.pk FROM c", &azcosmos.QueryOptions{PageSizeHint: 4})
		if err != nil {
			t.Fatalf("range %d: %v", i, err)
		}
		for _, g := range decodeAll(t, allItems(pages)) {
			m := g.(map[string]any)
			id, pk := m["id"].(string), m["pk"].(string)
			seen[id]++
			if r, ok := pkRange[pk]; ok && r != i {
				t.Fatalf("logical partition %s returned by ranges %d and %d", pk, r, i)
			}
			pkRange[pk] = i
		}
	}
	if len(seen) != len(docs) {
		t.Fatalf("the ranges returned %d documents, want %d", len(seen), len(docs))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("document %s returned by %d ranges", id, n)
		}
	}
	used := map[int]bool{}
	for _, r := range pkRange {
		used[r] = true
	}
	if len(used) < 2 {
		t.Fatalf("every document came from one range: %v", pkRange)
	}
	rctx := policy.WithHTTPHeader(ctx, http.Header{"x-ms-documentdb-partitionkeyrangeid": {"99"}})
	_, err := drainQuery(rctx, t, cc, azcosmos.NewPartitionKey(), "SELECT * FROM c", nil)
	if st, sub := status(t, err); st != http.StatusGone || sub != "1002" {
		t.Fatalf("unknown range: %d/%s, want 410/1002", st, sub)
	}
	// Cross-partition disabled: the service's 400.
	off := false
	_, err = drainQuery(ctx, t, cc, azcosmos.NewPartitionKey(), "SELECT * FROM c", &azcosmos.QueryOptions{EnableCrossPartitionQuery: &off})
	if st, _ := status(t, err); st != http.StatusBadRequest || !strings.Contains(err.Error(), "Cross partition query is required but disabled") {
		t.Fatalf("cross-partition disabled: %v", err)
	}
}
