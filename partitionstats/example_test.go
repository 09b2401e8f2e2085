package partitionstats_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionstats"
)

// ReadStorage against an in-process cosmostest server with 2 physical partitions.
func ExampleReadStorage() {
	srv, _ := cosmostest.Start(cosmostest.WithHTTP(), cosmostest.WithPartitionCount(2))
	defer srv.Close()
	client, _ := azcosmos.NewClientFromConnectionString(srv.ConnectionString(), srv.ClientOptions())
	defer client.Close()
	ctx := context.Background()
	_, _ = client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil)
	db, _ := client.NewDatabase("db")
	_, _ = db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{
		Paths: []string{"/tenantId"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}}, nil)
	c, _ := client.NewContainer("db", "c")
	for i := range 30 {
		tenant := "big"
		if i%3 == 0 {
			tenant = fmt.Sprint("t", i)
		}
		doc, _ := json.Marshal(map[string]any{"id": fmt.Sprint(i), "tenantId": tenant})
		_, _ = c.CreateItem(ctx, azcosmos.NewPartitionKeyString(tenant), doc, nil)
	}

	// Warn from 80% of a (tiny, for the example) 6 KB logical partition limit.
	r, err := partitionstats.ReadStorage(ctx, c, partitionstats.StorageOptions{LogicalLimitKB: 6})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("documents:", r.DocumentCount)
	for _, p := range r.Partitions {
		fmt.Printf("physical partition %s: %d documents, %d logical partitions\n", p.ID, p.DocumentCount, p.SampledDistinctKeys)
	}
	fmt.Println("largest:", r.Largest[0].Key, r.Largest[0].SizeKB, "KB")
	for _, w := range r.Warnings {
		fmt.Println(w)
	}
	// Output:
	// documents: 30
	// physical partition 0: 6 documents, 6 logical partitions
	// physical partition 1: 24 documents, 5 logical partitions
	// largest: [big] 5 KB
	// logical partition ["big"] in physical partition 1 holds 5 KB, 83% of its 6 KB limit
}
