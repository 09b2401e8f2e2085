package throughput_test

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/throughput"
)

// Cap background work at 30% of a container's provisioned throughput, with Low priority, while
// the rest of the client's requests are not limited.
func ExampleNewGroup() {
	s, err := cosmostest.Start(cosmostest.WithThroughputLimits())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	// Install the policy once; requests join a group through their context.
	client, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: quiet,
		PerRetryPolicies: []policy.Policy{throughput.Policy()}})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	if _, err := client.Cosmos().CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil); err != nil {
		panic(err)
	}
	db, _ := client.Cosmos().NewDatabase("shop")
	ru := azcosmos.NewManualThroughputProperties(1000)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "orders",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customer"}}},
		&azcosmos.CreateContainerOptions{ThroughputProperties: &ru}); err != nil {
		panic(err)
	}
	orders, _ := db.NewContainer("orders")

	g, err := throughput.NewGroup(ctx, orders, throughput.GroupOptions{Name: "reindex", TargetFraction: 0.3, Priority: azcosmos.PriorityLevelLow})
	if err != nil {
		panic(err)
	}
	background := throughput.WithGroup(ctx, g)
	for i := range 3 {
		doc := fmt.Appendf(nil, `{"id":"o%d","customer":"ada"}`, i)
		if _, err := orders.UpsertItem(background, azcosmos.NewPartitionKeyString("ada"), doc, nil); err != nil {
			panic(err)
		}
	}
	st := g.Stats()
	fmt.Printf("budget %.0f RU/s; %d requests charged %.2f RU\n", g.Target(), st.Requests, st.RequestCharge)
	// Output:
	// budget 300 RU/s; 3 requests charged 14.85 RU
}

// Share one budget, 30% of a container's throughput, among every process of a fleet: each runs
// a GlobalGroup of the same name over the same control container and takes its share.
func ExampleNewGlobalGroup() {
	s, err := cosmostest.Start(cosmostest.WithThroughputLimits())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	client, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: quiet,
		PerRetryPolicies: []policy.Policy{throughput.Policy()}})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	if _, err := client.Cosmos().CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil); err != nil {
		panic(err)
	}
	db, _ := client.Cosmos().NewDatabase("shop")
	ru := azcosmos.NewManualThroughputProperties(1000)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "orders",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customer"}}},
		&azcosmos.CreateContainerOptions{ThroughputProperties: &ru}); err != nil {
		panic(err)
	}
	// The control container: partitioned on /groupId, time to live on so that the records of
	// processes that stopped without cleaning up expire.
	ttl := int32(-1)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "throughput-control", DefaultTimeToLive: &ttl,
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/groupId"}}}, nil); err != nil {
		panic(err)
	}
	orders, _ := db.NewContainer("orders")
	control, _ := db.NewContainer("throughput-control")

	g, err := throughput.NewGlobalGroup(ctx, orders, throughput.GroupOptions{Name: "import", TargetFraction: 0.3, Priority: azcosmos.PriorityLevelLow},
		throughput.GlobalOptions{Control: control})
	if err != nil {
		panic(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = g.Run(runCtx) // renews this process's record until stopped, then deletes it
	}()
	if err := g.WaitJoined(ctx); err != nil { // the share is 0 until then
		panic(err)
	}
	doc := []byte(`{"id":"o1","customer":"ada"}`)
	if _, err := orders.UpsertItem(throughput.WithGroup(ctx, g.Group), azcosmos.NewPartitionKeyString("ada"), doc, nil); err != nil {
		panic(err)
	}
	fmt.Printf("total %.0f RU/s; this process, alone in the group, takes %.0f\n", g.Total(), g.Target())
	stop()
	<-done
	// Output:
	// total 300 RU/s; this process, alone in the group, takes 300
}
