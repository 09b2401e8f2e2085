package diagnostics_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// BenchmarkPartitionTracker is a point read through azcosmos on cosmostest with and without the
// tracker installed per retry.
func BenchmarkPartitionTracker(b *testing.B) {
	for _, tc := range []struct {
		name    string
		tracker bool
	}{{"none", false}, {"tracker", true}} {
		b.Run(tc.name, func(b *testing.B) {
			srv := cosmostest.NewServer(b, cosmostest.WithHTTP(), cosmostest.WithPartitionCount(4))
			cred, _ := azcosmos.NewKeyCredential(srv.Key())
			co := srv.ClientOptions()
			if tc.tracker {
				tr, _ := diagnostics.NewPartitionTracker(diagnostics.TrackerOptions{})
				co.PerRetryPolicies = append(co.PerRetryPolicies, tr)
			}
			client, err := azcosmos.NewClientWithKey(srv.Endpoint(), cred, co)
			if err != nil {
				b.Fatal(err)
			}
			defer client.Close()
			ctx := context.Background()
			if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
				b.Fatal(err)
			}
			db, _ := client.NewDatabase("db")
			if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/country"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}}, nil); err != nil {
				b.Fatal(err)
			}
			c, _ := client.NewContainer("db", "c")
			pk := azcosmos.NewPartitionKeyString("US")
			doc, _ := json.Marshal(map[string]any{"id": "1", "country": "US"})
			if _, err := c.UpsertItem(ctx, pk, doc, nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.ReadItem(ctx, pk, "1", nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
