package changefeed_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// A processor over an in-process cosmostest server: the lease container is provisioned on Start,
// every change is handed to the handler, and Stop releases the leases.
func ExampleNew() {
	srv, err := cosmostest.Start(cosmostest.WithHTTP(), cosmostest.WithPartitionCount(2))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	client, err := cosmoskit.New(cosmoskit.Config{Endpoint: srv.Endpoint(), Key: srv.Key()})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	res, err := client.EnsureContainer(ctx, "shop", cosmoskit.ContainerSpec{ID: "orders", PartitionKeyPaths: []string{"/customerId"}})
	if err != nil {
		panic(err)
	}
	orders := res.Container

	var mu sync.Mutex
	perLease := map[string]int{}
	total := 0
	handle := func(_ context.Context, b changefeed.Batch) error {
		mu.Lock()
		defer mu.Unlock()
		perLease[b.LeaseToken] += len(b.Items)
		total += len(b.Items)
		return nil // the batch is checkpointed
	}
	p, err := changefeed.New(orders, changefeed.Options{
		Name:         "order-events",
		Instance:     "instance-1",
		Leases:       changefeed.EnsureLeases(client.Cosmos(), "shop", "leases"),
		Handler:      handle,
		StartFrom:    changefeed.StartFromBeginning(),
		PollInterval: 10 * time.Millisecond,
	})
	if err != nil {
		panic(err)
	}
	if err := p.Start(ctx); err != nil {
		panic(err)
	}
	for _, c := range []string{"ada", "bob", "eve"} {
		doc := fmt.Sprintf(`{"id":"order-1","customerId":%q}`, c)
		if _, err := orders.CreateItem(ctx, azcosmos.NewPartitionKeyString(c), []byte(doc), nil); err != nil {
			panic(err)
		}
	}
	est := p.Estimator()
	for {
		mu.Lock()
		n := total
		mu.Unlock()
		if lag, err := est.Total(ctx); err == nil && lag == 0 && n == 3 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := p.Stop(ctx); err != nil {
		panic(err)
	}
	fmt.Println(len(p.State()), "leases held after Stop; the handler saw:")
	for _, lease := range slices.Sorted(maps.Keys(perLease)) {
		fmt.Printf("%d change(s) from lease %s\n", perLease[lease], lease)
	}
	fmt.Println("defaults:", p.Options().LeaseRenewInterval, p.Options().LeaseAcquireInterval, p.Options().LeaseExpirationInterval, p.Options().MaxItems)
	// Output:
	// 0 leases held after Stop; the handler saw:
	// 3 change(s) from lease 0
	// defaults: 17s 13s 1m0s 100
}

// Run blocks until its context ends, then stops gracefully: the batches in flight finish and the
// leases are released.
func ExampleProcessor_Run() {
	srv, err := cosmostest.Start(cosmostest.WithHTTP())
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	client, err := cosmoskit.New(cosmoskit.Config{Endpoint: srv.Endpoint(), Key: srv.Key()})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	res, err := client.EnsureContainer(context.Background(), "shop", cosmoskit.ContainerSpec{ID: "orders", PartitionKeyPaths: []string{"/customerId"}})
	if err != nil {
		panic(err)
	}
	orders := res.Container
	ctx, cancel := context.WithCancel(context.Background())
	p, err := changefeed.New(orders, changefeed.Options{
		Name:     "order-events",
		Instance: "instance-1",
		Leases:   changefeed.EnsureLeases(client.Cosmos(), "shop", "leases"),
		Handler: func(_ context.Context, b changefeed.Batch) error {
			fmt.Println("handled", len(b.Items), "change(s)")
			cancel() // e.g. SIGTERM
			return nil
		},
		StartFrom:    changefeed.StartFromBeginning(),
		PollInterval: 10 * time.Millisecond,
	})
	if err != nil {
		panic(err)
	}
	if _, err := orders.CreateItem(ctx, azcosmos.NewPartitionKeyString("ada"), []byte(`{"id":"order-1","customerId":"ada"}`), nil); err != nil {
		panic(err)
	}
	fmt.Println("Run:", p.Run(ctx))
	fmt.Println(len(p.State()), "leases held")
	// Output:
	// handled 1 change(s)
	// Run: <nil>
	// 0 leases held
}
