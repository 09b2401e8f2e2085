package consistency_test

import (
	"context"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// The hand-off against a two-region cosmostest server whose East US copy lags a minute behind:
// an instance in West US writes and captures the token; an instance in East US reads with it and
// sees the write, where a read without it finds the stale local copy.
func ExampleCapture() {
	srv, err := cosmostest.Start(cosmostest.WithRegions("West US", "East US"), cosmostest.WithReplicationLag(time.Minute))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	// One client per instance, each with its session container (cosmoskit.New installs one).
	inRegion := func(region string) *azcosmos.Client {
		o := srv.ClientOptions()
		o.PreferredRegions = []string{region}
		session, err := consistency.NewPolicy(consistency.Options{})
		if err != nil {
			panic(err)
		}
		o.PerCallPolicies = append(o.PerCallPolicies, session)
		c, err := azcosmos.NewClientFromConnectionString(srv.ConnectionString(), o)
		if err != nil {
			panic(err)
		}
		return c
	}
	west, east := inRegion("West US"), inRegion("East US")
	defer west.Close()
	defer east.Close()
	ctx := context.Background()
	if _, err := west.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil); err != nil {
		panic(err)
	}
	db, _ := west.NewDatabase("shop")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "orders",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customer"}}}, nil); err != nil {
		panic(err)
	}
	pk := azcosmos.NewPartitionKeyString("alice")

	// West US instance: write, and hand the token on (a cookie, a header).
	wctx, session := consistency.Capture(ctx)
	orders, _ := west.NewContainer("shop", "orders")
	if _, err := orders.CreateItem(wctx, pk, []byte(`{"id":"o1","customer":"alice"}`), nil); err != nil {
		panic(err)
	}
	token := session.Token("shop", "orders")

	// East US instance: without the token the local copy has not seen the write yet.
	orders, _ = east.NewContainer("shop", "orders")
	_, err = orders.ReadItem(ctx, pk, "o1", nil)
	fmt.Println("without the token:", err != nil)
	rctx, err := consistency.WithSessionToken(ctx, "shop", "orders", token)
	if err != nil {
		panic(err)
	}
	_, err = orders.ReadItem(rctx, pk, "o1", nil)
	fmt.Println("with the token:", err)
	// Output:
	// without the token: true
	// with the token: <nil>
}
