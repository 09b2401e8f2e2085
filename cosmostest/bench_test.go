package cosmostest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

func benchContainer(b *testing.B) *azcosmos.ContainerClient {
	b.Helper()
	s := cosmostest.NewServer(b)
	c, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		b.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		b.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	return cc
}

func BenchmarkPointRead(b *testing.B) {
	cc := benchContainer(b)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p","payload":"0123456789abcdef"}`), nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cc.ReadItem(ctx, pk, "a", nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUpsert(b *testing.B) {
	cc := benchContainer(b)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body := fmt.Appendf(nil, `{"id":"%d","pk":"p","payload":"0123456789abcdef"}`, i%100)
		if _, err := cc.UpsertItem(ctx, pk, body, nil); err != nil {
			b.Fatal(err)
		}
	}
}
