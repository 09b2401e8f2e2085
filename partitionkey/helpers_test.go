package partitionkey_test

import (
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// newContainer starts a cosmostest server with 4 physical partitions and creates container "c" in
// database "db" with def.
func newContainer(t *testing.T, def azcosmos.PartitionKeyDefinition) (*cosmostest.Server, *azcosmos.ContainerClient) {
	t.Helper()
	srv := cosmostest.NewServer(t, cosmostest.WithHTTP(), cosmostest.WithPartitionCount(4))
	client, err := azcosmos.NewClientFromConnectionString(srv.ConnectionString(), srv.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, err := client.NewDatabase("db")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: def}, nil); err != nil {
		t.Fatal(err)
	}
	c, err := client.NewContainer("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}
