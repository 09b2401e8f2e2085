package cosmostest

import (
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestDeleteForgetsBudgets: deleting a container or a database drops the throughput budgets of
// its partitions, so a server that creates and deletes containers (one per test) does not grow.
func TestDeleteForgetsBudgets(t *testing.T) {
	s := NewServer(t, WithThroughputLimits(), WithPartitionCount(2))
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	tp := azcosmos.NewManualThroughputProperties(400)
	for _, id := range []string{"a", "b"} {
		props := azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
		if _, err := db.CreateContainer(ctx, props, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
			t.Fatal(err)
		}
		c, _ := db.NewContainer(id)
		for _, pk := range []string{"p1", "p2", "p3", "p4"} {
			if _, err := c.UpsertItem(ctx, azcosmos.NewPartitionKeyString(pk), []byte(`{"id":"x","pk":"`+pk+`"}`), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	budgets := func() int {
		s.s.mu.Lock()
		defer s.s.mu.Unlock()
		return len(s.s.tput.buckets)
	}
	if n := budgets(); n != 4 {
		t.Fatalf("%d budgets after writing to 2 containers of 2 partitions, want 4", n)
	}
	a, _ := db.NewContainer("a")
	if _, err := a.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := budgets(); n != 2 {
		t.Errorf("%d budgets after deleting a container, want 2", n)
	}
	if _, err := db.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := budgets(); n != 0 {
		t.Errorf("%d budgets after deleting the database, want 0", n)
	}
}
