package cosmostest_test

import (
	"context"
	"encoding/json"
	"slices"
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

// TestQueryFullTextScoreNeedsIndex: FullTextScore on a path without a full-text index is a 400
// (the service documents that FullTextScore requires a full-text index); with the index it is
// served, and FullTextContains needs none.
func TestQueryFullTextScoreNeedsIndex(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t)
	c := newClient(t, s, nil)
	ctx := context.Background()
	policy := &azcosmos.FullTextPolicy{DefaultLanguage: "en-US", FullTextPaths: []azcosmos.FullTextPath{{Path: "/text", Language: "en-US"}}}
	noIndex := newContainer(t, c, "noindex", &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, FullTextPolicy: policy})
	indexed := newContainer(t, c, "indexed", &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, FullTextPolicy: policy,
		IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent, IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, FullTextIndexes: []azcosmos.FullTextIndex{{Path: "/text"}}}})
	pk := azcosmos.NewPartitionKeyString("p")
	for _, cc := range []*azcosmos.ContainerClient{noIndex, indexed} {
		if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p","text":"a boot"}`), nil); err != nil {
			t.Fatal(err)
		}
	}
	const rank = "SELECT TOP 1 c.id FROM c ORDER BY RANK FullTextScore(c.text, 'boot')"
	_, err := noIndex.NewQueryItemsPager(rank, pk, nil).NextPage(ctx)
	if st, _ := status(t, err); st != 400 {
		t.Fatalf("FullTextScore without a full-text index: %v, want 400", err)
	}
	resp, err := indexed.NewQueryItemsPager(rank, pk, nil).NextPage(ctx)
	if err != nil || len(resp.Items) != 1 {
		t.Fatalf("FullTextScore with the index: %v", err)
	}
	resp, err = noIndex.NewQueryItemsPager("SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, 'boot')", pk, nil).NextPage(ctx)
	if err != nil || len(resp.Items) != 1 {
		t.Fatalf("FullTextContains without a full-text index: %v", err)
	}
}
