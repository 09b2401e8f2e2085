package cosmoskit

import (
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// BenchmarkNewOpenAccount measures New and Close for an account that already has a client: the
// cost a caller pays for asking the registry instead of keeping the *Client.
func BenchmarkNewOpenAccount(b *testing.B) {
	cfg := Config{Endpoint: "https://bench.documents.azure.com/", Key: testKey, PreferredRegions: []string{"West US", "East US"}, Logger: quiet}
	keep, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer keep.Close()
	b.ReportAllocs()
	for b.Loop() {
		c, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkContainer measures a cached container handle lookup.
func BenchmarkContainer(b *testing.B) {
	c, err := New(Config{Endpoint: "https://bench2.documents.azure.com/", Key: testKey, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Container("db", "orders"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPointRead reads one item through a bare azcosmos client and through a cosmoskit client
// (default Config: diagnostics and retry policies installed) against the same in-process
// cosmostest, side by side in one run, so that benchstat compares what the client's own policies
// cost on the hottest path.
func BenchmarkPointRead(b *testing.B) {
	s := cosmostest.NewServer(b)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p1")
	bare := func() *azcosmos.ContainerClient {
		c, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(c.Close)
		cc, _ := c.NewContainer("db1", "c1")
		return cc
	}
	{
		admin, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := admin.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db1"}, nil); err != nil {
			b.Fatal(err)
		}
		db, _ := admin.NewDatabase("db1")
		if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c1",
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
			b.Fatal(err)
		}
		c, _ := admin.NewContainer("db1", "c1")
		if _, err := c.UpsertItem(ctx, pk, []byte(`{"id":"a","pk":"p1","n":1}`), nil); err != nil {
			b.Fatal(err)
		}
		admin.Close()
	}
	kitOpts := s.ClientOptions() // one transport: with -count > 1, New hands back the same client
	kit := func() *azcosmos.ContainerClient {
		c, err := New(Config{ConnectionString: s.ConnectionString(), ClientOptions: kitOpts, Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(c.Close)
		cc, err := c.Container("db1", "c1")
		if err != nil {
			b.Fatal(err)
		}
		return cc
	}
	for _, bc := range []struct {
		name string
		cc   func() *azcosmos.ContainerClient
	}{{"client=azcosmos", bare}, {"client=cosmoskit", kit}} {
		b.Run(bc.name, func(b *testing.B) {
			cc := bc.cc()
			if _, err := cc.ReadItem(ctx, pk, "a", nil); err != nil { // warm up: account and container reads
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cc.ReadItem(ctx, pk, "a", nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
