package cosmostest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// A query on a prefix of a hierarchical key reaches only the physical partitions that hold the
// prefix, and the responses name that partition, as point operations do.
func TestPrefixQueryRouting(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(4))
	c := newContainer(t, newClient(t, s, nil), "h", &azcosmos.ContainerProperties{PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{
		Paths: []string{"/tenantId", "/userId"}, Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2}})
	ctx := context.Background()
	ranges := map[string]bool{}
	for _, tenant := range []string{"contoso", "fabrikam", "litware", "adatum", "tailspin", "wingtip"} {
		for u := range 5 {
			pk := azcosmos.NewPartitionKeyString(tenant).AppendString(fmt.Sprint("u", u))
			doc, _ := json.Marshal(map[string]any{"id": "1", "tenantId": tenant, "userId": fmt.Sprint("u", u)})
			resp, err := c.CreateItem(ctx, pk, doc, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := resp.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid")
			if r == "" {
				t.Fatal("no x-ms-documentdb-partitionkeyrangeid on a create")
			}
			if tenant == "contoso" {
				ranges[r] = true
			}
		}
	}
	if len(ranges) != 1 {
		t.Fatalf("contoso's users are in ranges %v; a tenant's keys share their first hash block", ranges)
	}
	pager := c.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKeyString("contoso"), nil)
	n := 0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Items)
		if r := page.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid"); !ranges[r] {
			t.Fatalf("prefix query answered by range %q, want one of %v", r, ranges)
		}
	}
	if n != 5 {
		t.Fatalf("prefix query returned %d items, want 5", n)
	}
}
