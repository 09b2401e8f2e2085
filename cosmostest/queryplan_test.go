package cosmostest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/epk"
)

// allFeatures is what the other SDKs list in x-ms-cosmos-supported-query-features.
const allFeatures = "Aggregate, CompositeAggregate, Distinct, GroupBy, MultipleAggregates, MultipleOrderBy, OffsetAndLimit, OrderBy, Top, NonValueAggregate, DCount, NonStreamingOrderBy"

// bodyCapture keeps the last response body of the requests it sees (azcosmos decodes a query
// response as documents, and a plan is not).
type bodyCapture struct {
	mu   sync.Mutex
	body []byte
}

func (b *bodyCapture) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err != nil || resp == nil {
		return resp, err
	}
	raw, rerr := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if rerr != nil {
		return nil, rerr
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	b.mu.Lock()
	b.body = raw
	b.mu.Unlock()
	return resp, nil
}

func (b *bodyCapture) last() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.body
}

type planClient struct {
	cc  *azcosmos.ContainerClient
	cap *bodyCapture
}

func newPlanClient(t *testing.T, s *cosmostest.Server, props *azcosmos.ContainerProperties) planClient {
	cap := &bodyCapture{}
	c := newClient(t, s, func(o *azcosmos.ClientOptions) { o.PerRetryPolicies = append(o.PerRetryPolicies, cap) })
	return planClient{cc: newContainer(t, c, "plans", props), cap: cap}
}

// plan sends a query plan request as the other SDKs do and returns the decoded plan, or the error.
func (p planClient) plan(t *testing.T, q string, params []azcosmos.QueryParameter, features string) (map[string]any, error) {
	t.Helper()
	ctx := policy.WithHTTPHeader(context.Background(), http.Header{
		"x-ms-cosmos-is-query-plan-request":    {"True"},
		"x-ms-cosmos-query-version":            {"1.0"},
		"x-ms-cosmos-supported-query-features": {features},
	})
	_, err := p.cc.NewQueryItemsPager(q, azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{QueryParameters: params}).NextPage(ctx)
	if err != nil {
		return nil, err
	}
	var plan map[string]any
	if err := json.Unmarshal(p.cap.last(), &plan); err != nil {
		t.Fatalf("plan is not JSON: %q", p.cap.last())
	}
	return plan, nil
}

func TestQueryPlanRequest(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(4))
	p := newPlanClient(t, s, nil)
	plan, err := p.plan(t, "SELECT c.id FROM c WHERE c.n > 1 ORDER BY c.n DESC", nil, allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	qi := plan["queryInfo"].(map[string]any)
	want := "SELECT c._rid, [{\"item\": c.n}] AS orderByItems, {\"id\": c.id} AS payload\nFROM c\nWHERE ((c.n > 1) AND ({documentdb-formattableorderbyquery-filter}))\nORDER BY c.n DESC"
	if plan["partitionedQueryExecutionInfoVersion"] != 2.0 || qi["rewrittenQuery"] != want {
		t.Fatalf("plan %v\nrewrittenQuery %q\nwant %q", plan, qi["rewrittenQuery"], want)
	}
	for _, k := range []string{"distinctType", "top", "offset", "limit", "orderBy", "orderByExpressions", "groupByExpressions",
		"groupByAliases", "aggregates", "groupByAliasToAggregateType", "rewrittenQuery", "hasSelectValue", "dCountInfo", "hasNonStreamingOrderBy"} {
		if _, ok := qi[k]; !ok {
			t.Errorf("queryInfo lacks %s", k)
		}
	}
	ranges := plan["queryRanges"].([]any)
	if len(ranges) != 1 || ranges[0].(map[string]any)["min"] != "" || ranges[0].(map[string]any)["max"] != "FF" {
		t.Fatalf("queryRanges %v, want the whole key space", ranges)
	}

	// The 400/1004 of the query itself carries the same plan.
	_, qerr := p.cc.NewQueryItemsPager("SELECT c.id FROM c WHERE c.n > 1 ORDER BY c.n DESC", azcosmos.NewPartitionKey(), nil).NextPage(context.Background())
	refusal := checkGatewayRefusal(t, qerr)
	a, _ := json.Marshal(refusal)
	b, _ := json.Marshal(plan)
	if !bytes.Equal(a, b) {
		t.Fatalf("additionalErrorInfo %s\nplan request %s", a, b)
	}

	// TOP and OFFSET/LIMIT parameters are bound in the plan.
	plan, err = p.plan(t, "SELECT * FROM c OFFSET @o LIMIT @l", []azcosmos.QueryParameter{{Name: "@o", Value: 2}, {Name: "@l", Value: 3}}, allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	qi = plan["queryInfo"].(map[string]any)
	if qi["offset"] != 2.0 || qi["limit"] != 3.0 || qi["rewrittenQuery"] != "SELECT *\nFROM c\nOFFSET 0 LIMIT 5" {
		t.Fatalf("offset/limit plan %v", qi)
	}
	plan, err = p.plan(t, "SELECT TOP @n c.id FROM c ORDER BY c.id", []azcosmos.QueryParameter{{Name: "@n", Value: 7}}, allFeatures)
	if err != nil || plan["queryInfo"].(map[string]any)["top"] != 7.0 {
		t.Fatalf("TOP parameter plan %v, %v", plan, err)
	}
	_, err = p.plan(t, "SELECT TOP @n c.id FROM c", []azcosmos.QueryParameter{{Name: "@n", Value: "x"}}, allFeatures)
	if st, _ := status(t, err); st != http.StatusBadRequest {
		t.Fatalf("TOP parameter that is not a count: %v (want 400)", err)
	}
}

func TestQueryPlanRanges(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(4))
	p := newPlanClient(t, s, nil)
	props, err := p.cc.Read(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	version := props.ContainerProperties.PartitionKeyDefinition.Version
	h := func(v ...any) string { return epk.Hash(v, "Hash", version) }
	rangesOf := func(q string) []any {
		t.Helper()
		plan, err := p.plan(t, q, nil, allFeatures)
		if err != nil {
			t.Fatal(err)
		}
		return plan["queryRanges"].([]any)
	}
	rs := rangesOf("SELECT VALUE COUNT(1) FROM c WHERE c.pk = 'a'")
	if len(rs) != 1 || rs[0].(map[string]any)["min"] != h("a") || rs[0].(map[string]any)["max"] != h("a") || rs[0].(map[string]any)["isMaxInclusive"] != true {
		t.Fatalf("point range %v, want [%s, %s]", rs, h("a"), h("a"))
	}
	rs = rangesOf("SELECT VALUE COUNT(1) FROM c WHERE c.pk IN ('a', 'b', 'a')")
	if len(rs) != 2 {
		t.Fatalf("IN ranges %v, want 2 points", rs)
	}
	// Queries that read no document: the service's single point ["",""] (one request, to the
	// first range). IN over arrays and objects: the undefined key's point.
	for _, q := range []string{"SELECT 5", "SELECT TOP 2 5", "SELECT * FROM c WHERE false", "SELECT * FROM c WHERE c.pk = 1 AND c.pk = 2"} {
		rs = rangesOf(q)
		want := map[string]any{"min": "", "max": "", "isMinInclusive": true, "isMaxInclusive": true}
		if len(rs) != 1 || !reflect.DeepEqual(rs[0], want) {
			t.Errorf("%s: queryRanges %v, want [%v]", q, rs, want)
		}
	}
	undef := epk.Hash([]any{epk.Undefined}, "Hash", version)
	rs = rangesOf("SELECT * FROM c WHERE c.pk IN ([], [1], {})")
	if len(rs) != 1 || rs[0].(map[string]any)["min"] != undef || rs[0].(map[string]any)["max"] != undef {
		t.Errorf("IN arrays: queryRanges %v, want the undefined key's point %s", rs, undef)
	}
	rs = rangesOf("SELECT * FROM c WHERE c.pk IN ('a', [])")
	if len(rs) != 2 {
		t.Errorf("IN 'a' and an array: queryRanges %v, want 2 points", rs)
	}

	hier := newPlanClientNamed(t, s, "hier", &azcosmos.ContainerProperties{PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{
		Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2, Paths: []string{"/t", "/u"}}})
	plan, err := hier.plan(t, "SELECT * FROM c WHERE c.t = 'x' ORDER BY c.id", nil, allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	r := plan["queryRanges"].([]any)[0].(map[string]any)
	prefix := epk.Hash([]any{"x"}, "MultiHash", 2)
	if r["min"] != prefix || r["max"] != prefix+"FF" || r["isMaxInclusive"] != false {
		t.Fatalf("prefix range %v, want [%s, %sFF)", r, prefix, prefix)
	}
}

func newPlanClientNamed(t *testing.T, s *cosmostest.Server, id string, props *azcosmos.ContainerProperties) planClient {
	cap := &bodyCapture{}
	c := newClient(t, s, func(o *azcosmos.ClientOptions) { o.PerRetryPolicies = append(o.PerRetryPolicies, cap) })
	return planClient{cc: newContainer(t, c, id, props), cap: cap}
}

// TestQueryPlanUnsupportedFeatures: a plan request whose client does not list a feature the query
// needs is refused with 400/1004 naming each missing feature, as the service does.
func TestQueryPlanUnsupportedFeatures(t *testing.T) {
	t.Parallel()
	p := newPlanClient(t, cosmostest.NewServer(t), nil)
	for _, tc := range []struct{ query, features, missing string }{
		{"SELECT * FROM c ORDER BY c.a", "", "OrderBy"},
		{"SELECT * FROM c ORDER BY c.a, c.b", "OrderBy", "MultipleOrderBy"},
		{"SELECT VALUE COUNT(1) FROM c", "OrderBy", "Aggregate"},
		{"SELECT COUNT(1) AS n, SUM(c.a) AS s FROM c", "Aggregate", "MultipleAggregates"},
		{"SELECT DISTINCT TOP 3 c.a FROM c", "Top", "Distinct"},
		{"SELECT c.g FROM c GROUP BY c.g", "Distinct", "GroupBy"},
		{"SELECT * FROM c OFFSET 1 LIMIT 1", "Top", "OffsetAndLimit"},
		{"SELECT TOP 2 c.id FROM c ORDER BY VectorDistance(c.v, [1, 2])", "OrderBy, Top", "NonStreamingOrderBy"},
	} {
		_, err := p.plan(t, tc.query, nil, tc.features)
		st, sub := status(t, err)
		if st != http.StatusBadRequest || sub != "1004" || !strings.Contains(err.Error(), "Query contained "+tc.missing+", which the calling client does not support.") ||
			!strings.Contains(err.Error(), "Query contains 1 or more unsupported features.") {
			t.Errorf("%s with %q: %v (want 400/1004 naming %s)", tc.query, tc.features, err, tc.missing)
		}
		if _, err := p.plan(t, tc.query, nil, allFeatures); err != nil {
			t.Errorf("%s with every feature: %v", tc.query, err)
		}
	}
}

// BenchmarkQueryPlanRequest is a query plan request through azcosmos (HTTPS round trip, signing,
// plan rendering) for an ORDER BY with TOP and a partition key IN list, on 8 physical partitions.
func BenchmarkQueryPlanRequest(b *testing.B) {
	s := cosmostest.NewServer(b, cosmostest.WithPartitionCount(8))
	c, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		b.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		b.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	planCtx := policy.WithHTTPHeader(ctx, http.Header{
		"x-ms-cosmos-is-query-plan-request":    {"True"},
		"x-ms-cosmos-supported-query-features": {allFeatures},
	})
	const q = "SELECT TOP 100 c.id, c.price FROM c WHERE c.pk IN ('a', 'b', 'c') AND c.price > 10 ORDER BY c.price DESC"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cc.NewQueryItemsPager(q, azcosmos.NewPartitionKey(), nil).NextPage(planCtx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRangeFanOut runs the first page (TOP 100) of a plan's ORDER BY rewrite on every physical
// partition of a container holding 20,000 documents in 100 logical partitions, one range after the
// other as a client engine does: on 1 partition and on 8. With the query cache holding a scope per
// range, each range's documents are read and indexed once, not on every request.
func BenchmarkRangeFanOut(b *testing.B) {
	if testing.Short() {
		b.Skip("seeds 20,000 documents")
	}
	const rw = "SELECT TOP 100 c._rid, [{\"item\": c.price}] AS orderByItems, c AS payload\nFROM c\nWHERE (true)\nORDER BY c.price DESC"
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprintf("partitions=%d", n), func(b *testing.B) {
			s := cosmostest.NewServer(b, cosmostest.WithPartitionCount(n))
			cc := benchQueryContainer(b, s)
			for p := range 100 {
				seedBenchAt(b, cc, fmt.Sprintf("p%03d", p), p*200, 200)
			}
			ctxs := make([]context.Context, n)
			for r := range n {
				ctxs[r] = policy.WithHTTPHeader(context.Background(), http.Header{"x-ms-documentdb-partitionkeyrangeid": {fmt.Sprint(r)}})
			}
			opts := &azcosmos.QueryOptions{PageSizeHint: 100}
			b.ReportAllocs()
			for b.Loop() {
				for r := range n {
					if _, err := cc.NewQueryItemsPager(rw, azcosmos.NewPartitionKey(), opts).NextPage(ctxs[r]); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// seedBenchAt creates n documents with ids from start in logical partition pk, with a batch of 100.
func seedBenchAt(b *testing.B, cc *azcosmos.ContainerClient, pk string, start, n int) {
	b.Helper()
	ctx := context.Background()
	for lo := start; lo < start+n; lo += 100 {
		batch := cc.NewTransactionalBatch(azcosmos.NewPartitionKeyString(pk))
		for i := lo; i < min(lo+100, start+n); i++ {
			batch.UpsertItem(fmt.Appendf(nil, `{"id":"d%06d","pk":%q,"price":%.2f}`, i, pk, float64(i*7919%100000)/100), nil)
		}
		resp, err := cc.ExecuteTransactionalBatch(ctx, batch, nil)
		if err != nil || !resp.Success {
			b.Fatalf("seed %s: %v", pk, err)
		}
	}
}

// A query calling a user-defined function is planned as the gateway plans it (without knowing the
// function: the .NET SDK's baselines record such a plan), and refused when it runs: cosmostest does
// not support user-defined functions.
func TestQueryPlanUDF(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(2))
	p := newPlanClient(t, s, nil)
	const q = "SELECT udf.tax(c.price) AS x FROM c WHERE c.pk = 'a'"
	plan, err := p.plan(t, q, nil, allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	if qi := plan["queryInfo"].(map[string]any); qi["rewrittenQuery"] != "" {
		t.Errorf("queryInfo %v", qi)
	}
	if ranges := plan["queryRanges"].([]any); len(ranges) != 1 {
		t.Errorf("queryRanges %v, want the one key's point", ranges)
	}
	_, err = p.cc.NewQueryItemsPager(q, azcosmos.NewPartitionKeyString("a"), nil).NextPage(context.Background())
	if st, _ := status(t, err); st != http.StatusBadRequest || !strings.Contains(err.Error(), "cosmostest does not support user-defined functions") {
		t.Fatalf("query: %v, want 400 naming cosmostest", err)
	}
}
