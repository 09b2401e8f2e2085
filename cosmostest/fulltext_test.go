package cosmostest_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestQueryFullTextScoreSinglePartition runs ORDER BY RANK FullTextScore and RRF through the real
// client within one partition key, one result per page (continuations across the ranking).
func TestQueryFullTextScoreSinglePartition(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(2))
	c := newClient(t, s, nil)
	ctx := context.Background()
	cc := newContainer(t, c, "ft", &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{
			{Path: "/v", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionEuclidean, Dimensions: 2},
		}},
		FullTextPolicy: &azcosmos.FullTextPolicy{DefaultLanguage: "en-US", FullTextPaths: []azcosmos.FullTextPath{{Path: "/text", Language: "en-US"}}},
		IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent, IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, FullTextIndexes: []azcosmos.FullTextIndex{{Path: "/text"}}},
	})
	docs := []map[string]any{
		{"id": "once", "text": "a boot", "v": []float64{0, 0}},
		{"id": "twice", "text": "boot and boot", "v": []float64{5, 5}},
		{"id": "none", "text": "sandals", "v": []float64{1, 1}},
		{"id": "long", "text": "one boot among many many other words in a long text", "v": []float64{9, 9}},
	}
	for _, d := range docs {
		d["pk"] = "p"
		b, _ := json.Marshal(d)
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), b, nil); err != nil {
			t.Fatal(err)
		}
	}
	run := func(q string) []string {
		t.Helper()
		pages, err := drainQuery(ctx, t, cc, azcosmos.NewPartitionKeyString("p"), q, &azcosmos.QueryOptions{PageSizeHint: 1,
			QueryParameters: []azcosmos.QueryParameter{{Name: "@v", Value: []float64{0, 0}}}})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, it := range allItems(pages) {
			var id string
			if err := json.Unmarshal(it, &id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	if got, want := run(`SELECT VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, "boot")`), []string{"twice", "once", "long", "none"}; !slices.Equal(got, want) {
		t.Fatalf("FullTextScore ranking %v, want %v", got, want)
	}
	// Euclidean ranking: once, none, twice, long; BM25: twice, once, long, none. RRF with equal
	// weights: once 1/61+1/62, twice 1/63+1/61, none 1/62+1/64, long 1/64+1/63.
	if got, want := run(`SELECT VALUE c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, @v), FullTextScore(c.text, "boot"))`), []string{"once", "twice", "none", "long"}; !slices.Equal(got, want) {
		t.Fatalf("RRF ranking %v, want %v", got, want)
	}
	// In a projection the service refuses it.
	_, err := drainQuery(ctx, t, cc, azcosmos.NewPartitionKeyString("p"), `SELECT FullTextScore(c.text, "boot") AS s FROM c`, nil)
	if code, _ := status(t, err); code != 400 {
		t.Fatalf("FullTextScore in a projection: status %d, want 400", code)
	}
}

// TestQueryPlanHybridSearch: a query plan request for ORDER BY RANK answers a hybridSearchQueryInfo
// (no queryInfo), and needs the HybridSearch feature (WeightedRankFusion for RRF weights).
func TestQueryPlanHybridSearch(t *testing.T) {
	t.Parallel()
	p := newPlanClient(t, cosmostest.NewServer(t, cosmostest.WithPartitionCount(4)), nil)
	const q = `SELECT TOP 5 c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, @t), VectorDistance(c.v, @v), [1, 2])`
	params := []azcosmos.QueryParameter{{Name: "@t", Value: "boot"}, {Name: "@v", Value: []float64{1, 0}}}
	plan, err := p.plan(t, q, params, allFeatures+", HybridSearch, WeightedRankFusion")
	if err != nil {
		t.Fatal(err)
	}
	hi, ok := plan["hybridSearchQueryInfo"].(map[string]any)
	if !ok || plan["queryInfo"] != nil {
		t.Fatalf("plan %v: want a hybridSearchQueryInfo and no queryInfo", plan)
	}
	if hi["take"] != 5.0 || hi["requiresGlobalStatistics"] != true || len(hi["componentQueryInfos"].([]any)) != 2 ||
		!jsonValueEqual(hi["componentWeights"], []any{1.0, 2.0}) {
		t.Fatalf("hybridSearchQueryInfo %v", hi)
	}
	for _, features := range []string{allFeatures, allFeatures + ", HybridSearch"} {
		_, err := p.plan(t, q, params, features)
		if st, sub := status(t, err); st != 400 || sub != "1004" {
			t.Fatalf("features %q: %v (want 400/1004)", features, err)
		}
	}
}

// TestQueryPlanHybridTopBeyondInt32: the plan of ORDER BY RANK with TOP 2147483648 writes the
// component query's TOP from the 64-bit candidate count (TOP 4294967296) and its "top" field from
// the 32-bit truncation (0), as the service's plan does (the .NET SDK's QueryPlanBaselineTests.Top
// carry it); the component query written TOP 0 returned nothing. The query itself is served.
func TestQueryPlanHybridTopBeyondInt32(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(2))
	p := newPlanClient(t, s, nil)
	const q = `SELECT TOP 2147483648 c.id FROM c ORDER BY RANK FullTextScore(c.text, 'swim')`
	plan, err := p.plan(t, q, nil, allFeatures+", HybridSearch")
	if err != nil {
		t.Fatal(err)
	}
	hi, _ := plan["hybridSearchQueryInfo"].(map[string]any)
	comps, _ := hi["componentQueryInfos"].([]any)
	if hi["take"] != 2147483648.0 || len(comps) != 1 {
		t.Fatalf("hybridSearchQueryInfo %v", hi)
	}
	ci := comps[0].(map[string]any)
	if rq, _ := ci["rewrittenQuery"].(string); ci["top"] != 0.0 || !strings.HasPrefix(rq, "SELECT TOP 4294967296 c._rid,") {
		t.Fatalf("component query top %v, text %.40q: want 0 and SELECT TOP 4294967296", ci["top"], rq)
	}
	pk := azcosmos.NewPartitionKeyString("p")
	for _, d := range []string{`{"id":"a","pk":"p","text":"swim"}`, `{"id":"b","pk":"p","text":"run"}`} {
		if _, err := p.cc.CreateItem(context.Background(), pk, []byte(d), nil); err != nil {
			t.Fatal(err)
		}
	}
	pages, err := drainQuery(context.Background(), t, p.cc, pk, q, nil)
	if err != nil || len(allItems(pages)) != 2 {
		t.Fatalf("%d items, %v: want 2", len(allItems(pages)), err)
	}
}

// TestQueryFullTextScoreWithoutIndex: FullTextScore and RRF are served on a container with no
// full-text index, and on one with no full-text policy either, with the ranking of an indexed
// container. The service's full-text search page says such queries run without the policies (they
// cost more RU: https://learn.microsoft.com/azure/cosmos-db/gen-ai/full-text-search), and the .NET
// SDK's HybridSearchQueryTests and the JS SDK's fullTextSearch.spec.ts run them on containers with
// neither and assert exact rankings. FullTextContains needs neither too.
func TestQueryFullTextScoreWithoutIndex(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t)
	c := newClient(t, s, nil)
	ctx := context.Background()
	pkDef := azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}
	policy := &azcosmos.FullTextPolicy{DefaultLanguage: "en-US", FullTextPaths: []azcosmos.FullTextPath{{Path: "/title", Language: "en-US"}, {Path: "/text", Language: "en-US"}}}
	containers := map[string]*azcosmos.ContainerClient{
		"no policy, no index": newContainer(t, c, "bare", &azcosmos.ContainerProperties{PartitionKeyDefinition: pkDef}),
		"policy, no index":    newContainer(t, c, "noindex", &azcosmos.ContainerProperties{PartitionKeyDefinition: pkDef, FullTextPolicy: policy}),
		"policy and index": newContainer(t, c, "indexed", &azcosmos.ContainerProperties{PartitionKeyDefinition: pkDef, FullTextPolicy: policy,
			IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent, IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
				FullTextIndexes: []azcosmos.FullTextIndex{{Path: "/title"}, {Path: "/text"}}}}),
	}
	docs := []string{
		`{"id":"a","pk":"p","title":"John Smith","text":"born in the United States"}`,
		`{"id":"b","pk":"p","title":"Mary","text":"United States of America and the United States Navy"}`,
		`{"id":"c","pk":"p","title":"John and John","text":"Canada"}`,
		`{"id":"d","pk":"p","title":"Peter","text":"nothing here"}`,
	}
	pk := azcosmos.NewPartitionKeyString("p")
	cases := []struct{ query, want string }{
		{`SELECT VALUE c.id FROM c WHERE FullTextContains(c.title, 'John') ORDER BY RANK FullTextScore(c.title, 'John')`, "c a"},
		// The terms as an array, as the JS SDK's tests write them.
		{`SELECT VALUE c.id FROM c WHERE FullTextContains(c.title, 'John') ORDER BY RANK FullTextScore(c.title, ['John'])`, "c a"},
		{`SELECT TOP 1 VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, 'United States')`, "b"},
		// BM25 ranks on title: c 1, a 2, b and d 3 (tied); on text: b 1, a 2, c and d 3. RRF: b and c
		// 1/61+1/63 (a tie, broken by _rid: b was written first), a 2/62.
		{`SELECT TOP 3 VALUE c.id FROM c WHERE FullTextContains(c.title, 'John') OR FullTextContains(c.text, 'United States')
			ORDER BY RANK RRF(FullTextScore(c.title, 'John'), FullTextScore(c.text, 'United States'))`, "b c a"},
		// Weighted [2, 1]: c 2/61+1/63, a 3/62, b 2/63+1/61.
		{`SELECT TOP 3 VALUE c.id FROM c ORDER BY RANK RRF(FullTextScore(c.title, 'John'), FullTextScore(c.text, 'United States'), [2, 1])`, "c a b"},
		{`SELECT VALUE c.id FROM c WHERE FullTextContainsAny(c.text, 'Canada', 'Navy') ORDER BY c.id`, "b c"},
	}
	for name, cc := range containers {
		for _, d := range docs {
			if _, err := cc.CreateItem(ctx, pk, []byte(d), nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range cases {
			pages, err := drainQuery(ctx, t, cc, pk, tc.query, nil)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, tc.query, err)
			}
			var ids []string
			for _, it := range allItems(pages) {
				var id string
				if err := json.Unmarshal(it, &id); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			if got := strings.Join(ids, " "); got != tc.want {
				t.Errorf("%s: %s: %q, want %q", name, tc.query, got, tc.want)
			}
		}
	}
}
