package capacity_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// newContainer starts a cosmostest server (parts physical partitions, a fixed clock, throughput
// limits on) and creates container "c" (partition key /pk, indexing policy ip if not nil,
// throughput tp if not nil) through a client with diagnostics.Policy installed and no retries.
func newContainer(t *testing.T, parts int, ip *azcosmos.IndexingPolicy, tp *azcosmos.ThroughputProperties) (*cosmostest.Server, *azcosmos.ContainerClient) {
	t.Helper()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	srv := cosmostest.NewServer(t, cosmostest.WithHTTP(), cosmostest.WithPartitionCount(parts),
		cosmostest.WithThroughputLimits(), cosmostest.WithClock(func() time.Time { return start }))
	cred, err := azcosmos.NewKeyCredential(srv.Key())
	if err != nil {
		t.Fatal(err)
	}
	opts := srv.ClientOptions()
	diag, err := diagnostics.NewPolicy(diagnostics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts.PerCallPolicies = append(opts.PerCallPolicies, diag)
	opts.Retry = policy.RetryOptions{MaxRetries: -1}
	client, err := azcosmos.NewClientWithKey(srv.Endpoint(), cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}, IndexingPolicy: ip}
	if _, err := db.CreateContainer(ctx, props, &azcosmos.CreateContainerOptions{ThroughputProperties: tp}); err != nil {
		t.Fatal(err)
	}
	c, _ := client.NewContainer("db", "c")
	return srv, c
}

// doc returns an item of about size bytes of JSON (before the system properties).
func doc(id, pk string, size int) []byte {
	head := `{"id":"` + id + `","pk":"` + pk + `","kind":"order","pad":"`
	n := max(size-len(head)-2, 0)
	return []byte(head + strings.Repeat("x", n) + `"}`)
}
