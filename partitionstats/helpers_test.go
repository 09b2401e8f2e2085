package partitionstats_test

import (
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// newContainer starts a cosmostest server with 4 physical partitions and creates container "c"
// (partition key def) in database "db".
func newContainer(t *testing.T, def azcosmos.PartitionKeyDefinition, opts ...cosmostest.Option) (*cosmostest.Server, *azcosmos.Client, *azcosmos.ContainerClient) {
	t.Helper()
	srv := cosmostest.NewServer(t, append([]cosmostest.Option{cosmostest.WithHTTP(), cosmostest.WithPartitionCount(4)}, opts...)...)
	client, err := azcosmos.NewClientFromConnectionString(srv.ConnectionString(), srv.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: def}, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := client.NewContainer("db", "c")
	return srv, client, c
}
