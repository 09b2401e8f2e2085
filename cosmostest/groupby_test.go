package cosmostest_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// GROUP BY reads c.pk and c["pk"] as one property path (the query reference's property accessors
// are interchangeable): either form may be selected when the other is grouped, through azcosmos in
// one logical partition and in the cross-partition plan (the grouping expression and the
// projection each keep their written form). A property outside GROUP BY is still refused.
func TestGroupByEquivalentPaths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, cc := setup(t)
	pk := azcosmos.NewPartitionKeyString("p")
	for _, it := range []string{`{"id":"1","pk":"p","o":{"k":1}}`, `{"id":"2","pk":"p","o":{"k":1}}`, `{"id":"3","pk":"p","o":{"k":2}}`} {
		if _, err := cc.CreateItem(ctx, pk, []byte(it), nil); err != nil {
			t.Fatal(err)
		}
	}
	for q, want := range map[string][]string{
		`SELECT c["pk"], COUNT(1) AS n FROM c GROUP BY c.pk`:           {`{"pk":"p","n":3}`},
		`SELECT c.pk, COUNT(1) AS n FROM c GROUP BY c["pk"]`:           {`{"pk":"p","n":3}`},
		`SELECT c["o"]["k"] AS k, COUNT(1) AS n FROM c GROUP BY c.o.k`: {`{"k":1,"n":2}`, `{"k":2,"n":1}`},
		`SELECT VALUE c.o.k FROM c GROUP BY c["o"].k`:                  {`1`, `2`},
	} {
		page, err := cc.NewQueryItemsPager(q, pk, nil).NextPage(ctx)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var got []string
		for _, it := range page.Items {
			got = append(got, string(it))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
	if _, err := cc.NewQueryItemsPager(`SELECT c.id FROM c GROUP BY c["pk"]`, pk, nil).NextPage(ctx); err == nil {
		t.Error("a property outside GROUP BY accepted")
	} else if st, _ := status(t, err); st != 400 {
		t.Errorf("a property outside GROUP BY: %v, want 400", err)
	}

	p := newPlanClient(t, cosmostest.NewServer(t, cosmostest.WithPartitionCount(2)), nil)
	plan, err := p.plan(t, `SELECT c["pk"], COUNT(1) AS n FROM c GROUP BY c.pk`, nil, allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	qi, _ := json.Marshal(plan["queryInfo"])
	var info struct {
		GroupByExpressions []string `json:"groupByExpressions"`
		GroupByAliases     []string `json:"groupByAliases"`
		RewrittenQuery     string   `json:"rewrittenQuery"`
	}
	_ = json.Unmarshal(qi, &info)
	if !slices.Equal(info.GroupByExpressions, []string{"c.pk"}) || !slices.Equal(info.GroupByAliases, []string{"pk", "n"}) ||
		info.RewrittenQuery != "SELECT [{\"item\": c.pk}] AS groupByItems, {\"pk\": c[\"pk\"], \"n\": {\"item\": COUNT(1)}} AS payload\nFROM c\nGROUP BY c.pk" {
		t.Errorf("plan %s", qi)
	}
}
