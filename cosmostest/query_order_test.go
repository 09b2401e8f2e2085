package cosmostest_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// queryIDs drains "SELECT VALUE c.id FROM c" (or q) and returns the ids in the order served.
func queryIDs(ctx context.Context, t *testing.T, cc *azcosmos.ContainerClient, pk azcosmos.PartitionKey, q string) []string {
	t.Helper()
	pager := cc.NewQueryItemsPager(q, pk, &azcosmos.QueryOptions{PageSizeHint: 3})
	var ids []string
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			s, err := strconv.Unquote(string(it))
			if err != nil {
				t.Fatalf("not a string id: %s", it)
			}
			ids = append(ids, s)
		}
	}
	return ids
}

// TestUnorderedQueryInsertionOrder pins the order of queries without ORDER BY, which the SDK's
// emulator tests rely on (TestCrossPartitionQuery, TestHierarchicalPartitionQueryNoPartition):
// documents come in the order they were created within a physical partition (the service's _rid
// order), logical partitions interleaved, whatever their ids; a replace or upsert keeps a
// document's place, a delete and re-create moves it to the end; ORDER BY still sorts.
func TestUnorderedQueryInsertionOrder(t *testing.T) {
	t.Parallel()
	_, cc := setup(t)
	ctx := context.Background()
	create := func(id, pk string) {
		t.Helper()
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), []byte(`{"id":"`+id+`","pk":"`+pk+`"}`), nil); err != nil {
			t.Fatal(err)
		}
	}
	// Ids deliberately out of order, logical partitions alternating.
	for _, d := range [][2]string{{"m", "p1"}, {"c", "p2"}, {"x", "p1"}, {"a", "p2"}, {"k", "p1"}, {"b", "p2"}} {
		create(d[0], d[1])
	}
	all := azcosmos.NewPartitionKey()
	check := func(what string, pk azcosmos.PartitionKey, q string, want ...string) {
		t.Helper()
		if got := queryIDs(ctx, t, cc, pk, q); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	const q = "SELECT VALUE c.id FROM c"
	check("cross-partition", all, q, "m", "c", "x", "a", "k", "b")
	check("one logical partition", azcosmos.NewPartitionKeyString("p2"), q, "c", "a", "b")
	check("with a filter", all, "SELECT VALUE c.id FROM c WHERE c.id != 'x'", "m", "c", "a", "k", "b")
	check("ORDER BY", azcosmos.NewPartitionKeyString("p1"), "SELECT VALUE c.id FROM c ORDER BY c.id", "k", "m", "x")

	// Replace and upsert keep the place; delete and re-create goes last.
	if _, err := cc.ReplaceItem(ctx, azcosmos.NewPartitionKeyString("p1"), "m", []byte(`{"id":"m","pk":"p1","v":1}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p2"), []byte(`{"id":"c","pk":"p2","v":1}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.DeleteItem(ctx, azcosmos.NewPartitionKeyString("p1"), "x", nil); err != nil {
		t.Fatal(err)
	}
	create("x", "p1")
	check("after replace, upsert, delete and re-create", all, q, "m", "c", "a", "k", "b", "x")
}

// TestFanOutOrderPerPhysicalPartition: across several physical partitions a query without ORDER
// BY serves one partition after the other, each in creation order; so its result is the
// concatenation of the per-range queries (x-ms-documentdb-partitionkeyrangeid), not an id order.
func TestFanOutOrderPerPhysicalPartition(t *testing.T) {
	t.Parallel()
	_, cc := setup(t, cosmostest.WithPartitionCount(4))
	ctx := context.Background()
	var created []string
	for i := range 40 {
		id := fmt.Sprintf("%02d", (i*7)%40) // a permutation: creation order is not id order
		pk := "pk" + strconv.Itoa(i%9)
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), []byte(`{"id":"`+id+`","pk":"`+pk+`"}`), nil); err != nil {
			t.Fatal(err)
		}
		created = append(created, id)
	}
	const q = "SELECT VALUE c.id FROM c"
	var concat []string
	for r := range 4 {
		rctx := policy.WithHTTPHeader(ctx, http.Header{"x-ms-documentdb-partitionkeyrangeid": {strconv.Itoa(r)}})
		ids := queryIDs(rctx, t, cc, azcosmos.NewPartitionKey(), q)
		// In creation order within the range.
		pos := -1
		for _, id := range ids {
			p := slices.Index(created, id)
			if p <= pos {
				t.Fatalf("range %d: %v is not in creation order %v", r, ids, created)
			}
			pos = p
		}
		concat = append(concat, ids...)
	}
	got := queryIDs(ctx, t, cc, azcosmos.NewPartitionKey(), q)
	if !slices.Equal(got, concat) || len(got) != len(created) {
		t.Fatalf("fan-out %v, want the ranges one after the other %v", got, concat)
	}
	if slices.IsSorted(got) {
		t.Fatalf("fan-out %v is in id order", got)
	}
}
