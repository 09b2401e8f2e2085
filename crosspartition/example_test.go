package crosspartition_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/crosspartition"
)

// The three largest orders over every customer, on a container with four physical partitions:
// a query the gateway refuses across partitions (ORDER BY with TOP), run with one extra call.
func Example() {
	srv, _ := cosmostest.Start(cosmostest.WithPartitionCount(4))
	defer srv.Close()
	client, _ := azcosmos.NewClientFromConnectionString(srv.ConnectionString(), srv.ClientOptions())
	ctx := context.Background()
	_, _ = client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil)
	db, _ := client.NewDatabase("shop")
	_, _ = db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "orders",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customerId"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}}, nil)
	orders, _ := db.NewContainer("orders")
	for i, total := range []int{40, 15, 99, 7, 63, 28, 81, 12} {
		doc, _ := json.Marshal(map[string]any{"id": fmt.Sprint("o", i), "customerId": fmt.Sprint("c", i), "total": total})
		_, _ = orders.UpsertItem(ctx, azcosmos.NewPartitionKeyString(fmt.Sprint("c", i)), doc, nil)
	}

	xq, err := crosspartition.New(orders, crosspartition.Options{}) // the one extra call: keep it with the container
	if err != nil {
		fmt.Println(err)
		return
	}
	pager := xq.NewQueryItemsPager("SELECT TOP 3 c.customerId, c.total FROM c ORDER BY c.total DESC", nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, item := range page.Items {
			fmt.Println(string(item))
		}
	}
	// Output:
	// {"customerId":"c2","total":99}
	// {"customerId":"c6","total":81}
	// {"customerId":"c4","total":63}
}
