package cosmostest_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// rewriteServer is a server with 4 physical partitions holding docs with a mixed-type x (numbers
// with duplicates, strings, bools, null, arrays, objects, missing), a group g and a number n.
func rewriteServer(t *testing.T) (planClient, int) {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(4))
	p := newPlanClient(t, s, nil)
	xs := []any{3, 1, 2, 2, "b", "a", true, false, nil, []any{1}, map[string]any{"k": 1}, 2.5, -1, "a"}
	n := 0
	for i := range 60 {
		d := map[string]any{"id": fmt.Sprintf("d%02d", i), "pk": fmt.Sprintf("p%d", i%9), "g": fmt.Sprintf("g%d", i%4), "n": i % 7}
		if i%11 != 0 {
			d["x"] = xs[i%len(xs)]
		}
		b, _ := json.Marshal(d)
		if _, err := p.cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString(d["pk"].(string)), b, nil); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return p, n
}

// onRange runs q on one partition key range (x-ms-documentdb-partitionkeyrangeid) as the SDKs run a
// plan's rewrittenQuery, page by page, and returns every row.
func onRange(t *testing.T, cc *azcosmos.ContainerClient, rangeID, q string, pageSize int32) []map[string]any {
	t.Helper()
	ctx := policy.WithHTTPHeader(context.Background(), http.Header{"x-ms-documentdb-partitionkeyrangeid": {rangeID}})
	pages, err := drainQuery(ctx, t, cc, azcosmos.NewPartitionKey(), q, &azcosmos.QueryOptions{PageSizeHint: pageSize})
	if err != nil {
		t.Fatalf("range %s: %s: %v", rangeID, q, err)
	}
	var rows []map[string]any
	for _, it := range allItems(pages) {
		var v any
		if err := json.Unmarshal(it, &v); err != nil {
			t.Fatal(err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			m = map[string]any{"value": v}
		}
		rows = append(rows, m)
	}
	return rows
}

func rewrittenOf(t *testing.T, p planClient, q string) (string, map[string]any) {
	t.Helper()
	plan, err := p.plan(t, q, nil, allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	qi := plan["queryInfo"].(map[string]any)
	return qi["rewrittenQuery"].(string), qi
}

// TestRewrittenOrderByPerRange: a plan's ORDER BY rewrite, run on each range with the filter
// placeholder replaced by true, yields the rows (payload) the original query yields on that range,
// in the same order, with the _rid and the order by items the merge needs; replaced by a .NET-style
// resume filter ("( c.x > 2 OR IS_STRING(c.x) OR IS_ARRAY(c.x) OR IS_OBJECT(c.x) )"), it yields
// exactly the rows after the last row whose item is 2.
func TestRewrittenOrderByPerRange(t *testing.T) {
	t.Parallel()
	p, _ := rewriteServer(t)
	const q = "SELECT c.id, c.x FROM c ORDER BY c.x"
	rw, _ := rewrittenOf(t, p, q)
	if !strings.Contains(rw, "{documentdb-formattableorderbyquery-filter}") {
		t.Fatalf("rewrittenQuery %q has no filter placeholder", rw)
	}
	total := 0
	for r := range 4 {
		id := fmt.Sprint(r)
		want := onRange(t, p.cc, id, q, 5)
		got := onRange(t, p.cc, id, strings.ReplaceAll(rw, "{documentdb-formattableorderbyquery-filter}", "true"), 3)
		if len(got) != len(want) {
			t.Fatalf("range %s: %d rewritten rows, %d original", id, len(got), len(want))
		}
		lastTwo := -1
		for i, row := range got {
			if !jsonValueEqual(row["payload"], want[i]) || row["_rid"] == nil {
				t.Fatalf("range %s row %d: %v, want payload %v", id, i, row, want[i])
			}
			items := row["orderByItems"].([]any)
			item := items[0].(map[string]any)
			if x, ok := want[i]["x"]; ok != (len(item) == 1) || ok && !jsonValueEqual(item["item"], x) {
				t.Fatalf("range %s row %d: orderByItems %v for x %v", id, i, items, want[i]["x"])
			}
			if item["item"] == 2.0 {
				lastTwo = i
			}
		}
		total += len(got)
		resume := strings.ReplaceAll(rw, "{documentdb-formattableorderbyquery-filter}", "( c.x > 2 OR IS_STRING(c.x) OR IS_ARRAY(c.x) OR IS_OBJECT(c.x) )")
		after := onRange(t, p.cc, id, resume, 4)
		var wantAfter []map[string]any
		for i, row := range got {
			if i > lastTwo && (lastTwo >= 0 || isAfterTwo(row)) {
				wantAfter = append(wantAfter, row)
			}
		}
		if len(after) != len(wantAfter) {
			t.Fatalf("range %s: resume filter gave %d rows, want %d", id, len(after), len(wantAfter))
		}
		for i := range after {
			if !jsonValueEqual(after[i]["payload"], wantAfter[i]["payload"]) {
				t.Fatalf("range %s: resumed row %d %v, want %v", id, i, after[i], wantAfter[i])
			}
		}
	}
	if total == 0 {
		t.Fatal("no rows")
	}
}

// isAfterTwo reports whether an ORDER BY row sorts after the number 2 in Cosmos DB's order.
func isAfterTwo(row map[string]any) bool {
	item := row["orderByItems"].([]any)[0].(map[string]any)
	switch v := item["item"].(type) {
	case float64:
		return v > 2
	case string, []any, map[string]any:
		return true
	}
	return false
}

// TestRewrittenAggregatesPerRange: the partial aggregates of a plan's rewrite, combined over the
// ranges as the SDKs combine them, equal the aggregate over the whole container.
func TestRewrittenAggregatesPerRange(t *testing.T) {
	t.Parallel()
	p, n := rewriteServer(t)
	combine := func(q string) []any {
		rw, _ := rewrittenOf(t, p, q)
		var parts []any
		for r := range 4 {
			for _, row := range onRange(t, p.cc, fmt.Sprint(r), rw, 10) {
				parts = append(parts, row["value"].([]any)[0])
			}
		}
		return parts
	}
	count := 0.0
	for _, part := range combine("SELECT VALUE COUNT(1) FROM c") {
		count += part.(map[string]any)["item"].(float64)
	}
	if int(count) != n {
		t.Fatalf("COUNT over ranges %v, want %d", count, n)
	}
	sum, cnt := 0.0, 0.0
	for _, part := range combine("SELECT VALUE AVG(c.n) FROM c") {
		it := part.(map[string]any)["item"].(map[string]any)
		sum += it["sum"].(float64)
		cnt += it["count"].(float64)
	}
	wantSum := 0
	for i := range n {
		wantSum += i % 7
	}
	if cnt != float64(n) || sum != float64(wantSum) {
		t.Fatalf("AVG parts sum %v count %v, want %d and %d", sum, cnt, wantSum, n)
	}
	mx := -1.0
	for _, part := range combine("SELECT VALUE MAX(c.n) FROM c") {
		m := part.(map[string]any)
		if m["item2"].(map[string]any)["count"].(float64) > 0 && m["item"].(float64) > mx {
			mx = m["item"].(float64)
		}
	}
	if mx != 6 {
		t.Fatalf("MAX over ranges %v, want 6", mx)
	}

	// GROUP BY: per-range groups with partial counts add up to the whole container's.
	rw, qi := rewrittenOf(t, p, "SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g")
	if qi["groupByAliasToAggregateType"].(map[string]any)["n"] != "Count" {
		t.Fatalf("plan %v", qi)
	}
	groups := map[string]float64{}
	for r := range 4 {
		for _, row := range onRange(t, p.cc, fmt.Sprint(r), rw, 2) {
			g := row["groupByItems"].([]any)[0].(map[string]any)["item"].(string)
			payload := row["payload"].(map[string]any)
			if payload["g"] != g {
				t.Fatalf("row %v", row)
			}
			groups[g] += payload["n"].(map[string]any)["item"].(float64)
		}
	}
	for i := range 4 {
		g := fmt.Sprintf("g%d", i)
		want := 0
		for j := range n {
			if j%4 == i {
				want++
			}
		}
		if groups[g] != float64(want) {
			t.Fatalf("group %s: %v, want %d (%v)", g, groups[g], want, groups)
		}
	}
}

// TestRewrittenVectorSearchPerRange: a vector search (non-streaming ORDER BY VectorDistance with
// TOP) planned on 4 physical partitions, run per range from its rewrittenQuery and merged by
// orderByItems in the plan's direction, returns the same top k as the query on one partition.
func TestRewrittenVectorSearchPerRange(t *testing.T) {
	t.Parallel()
	props := func() *azcosmos.ContainerProperties {
		return &azcosmos.ContainerProperties{
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
			VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{
				{Path: "/embedding", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionCosine, Dimensions: 3},
			}},
		}
	}
	many := newPlanClientNamed(t, cosmostest.NewServer(t, cosmostest.WithPartitionCount(4)), "v", props())
	one := newPlanClientNamed(t, cosmostest.NewServer(t), "v", props())
	ctx := context.Background()
	for i := range 40 {
		d := map[string]any{"id": fmt.Sprintf("v%02d", i), "pk": fmt.Sprintf("p%d", i%13),
			// i/1000 keeps every score distinct: ties have no defined order across partitions.
			"embedding": []float64{float64(i%7) - 3, float64(i%5) + 0.5, float64(i%3) + float64(i)/1000}}
		b, _ := json.Marshal(d)
		for _, p := range []planClient{many, one} {
			if _, err := p.cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(d["pk"].(string)), b, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	const q = "SELECT TOP 5 c.id FROM c ORDER BY VectorDistance(c.embedding, [1, 2, 0.5])"
	plan, err := many.plan(t, q, nil, allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	qi := plan["queryInfo"].(map[string]any)
	if qi["hasNonStreamingOrderBy"] != true || fmt.Sprint(qi["orderBy"]) != "[Descending]" || qi["top"] != 5.0 {
		t.Fatalf("plan %v", qi)
	}
	rw := strings.ReplaceAll(qi["rewrittenQuery"].(string), "{documentdb-formattableorderbyquery-filter}", "true")
	var rows []map[string]any
	for r := range 4 {
		rows = append(rows, onRange(t, many.cc, fmt.Sprint(r), rw, 2)...)
	}
	score := func(row map[string]any) float64 {
		return row["orderByItems"].([]any)[0].(map[string]any)["item"].(float64)
	}
	slices.SortStableFunc(rows, func(a, b map[string]any) int { return cmp.Compare(score(b), score(a)) })
	var got []any
	for _, r := range rows[:5] {
		got = append(got, r["payload"].(map[string]any)["id"])
	}
	var want []any
	for _, it := range onRange(t, one.cc, "0", q, 10) { // the one physical partition
		want = append(want, it["id"])
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("merged top 5 %v, one partition %v", got, want)
	}
}
