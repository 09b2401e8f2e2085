package cosmostest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// exampleOrders creates database "shop" and container "orders" (partition key /customer) with
// the unmodified azcosmos client.
func exampleOrders(ctx context.Context, s *cosmostest.Server) *azcosmos.ContainerClient {
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		panic(err)
	}
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil); err != nil {
		panic(err)
	}
	db, _ := client.NewDatabase("shop")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "orders",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customer"}}}, nil); err != nil {
		panic(err)
	}
	orders, _ := db.NewContainer("orders")
	return orders
}

// Start a server for a program (tests use NewServer, closed by t.Cleanup) and talk to it with
// the unmodified azcosmos client.
func ExampleStart() {
	s, err := cosmostest.Start()
	if err != nil {
		panic(err)
	}
	defer s.Close()
	ctx := context.Background()
	orders := exampleOrders(ctx, s)

	pk := azcosmos.NewPartitionKeyString("alice")
	if _, err := orders.CreateItem(ctx, pk, []byte(`{"id":"o1","customer":"alice","total":42}`), nil); err != nil {
		panic(err)
	}
	resp, err := orders.ReadItem(ctx, pk, "o1", nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.ETag != "", resp.RequestCharge > 0)

	_, err = orders.ReadItem(ctx, pk, "o2", nil)
	var re *azcore.ResponseError
	fmt.Println(errors.As(err, &re) && re.StatusCode == http.StatusNotFound)
	fmt.Println("document reads:", s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReadItem}))
	// Output:
	// true true
	// true
	// document reads: 2
}

// A fault answers the next matching request the way the service answers under load, so a test
// sees how the code under test reacts; the client retries a 429 after its hint by itself.
func ExampleServer_InjectFault() {
	s, err := cosmostest.Start(cosmostest.WithHTTP())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	ctx := context.Background()
	orders := exampleOrders(ctx, s)
	pk := azcosmos.NewPartitionKeyString("alice")

	throttled := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpCreateItem,
		Status: http.StatusTooManyRequests, RetryAfter: time.Millisecond, Times: 2})
	_, err = orders.CreateItem(ctx, pk, []byte(`{"id":"o1","customer":"alice"}`), nil)
	fmt.Println(err, throttled.Hits(), s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpCreateItem}))

	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: http.StatusServiceUnavailable, Times: 1})
	_, err = orders.ReadItem(ctx, pk, "o1", nil)
	var re *azcore.ResponseError
	fmt.Println(errors.As(err, &re), re.StatusCode)
	_, err = orders.ReadItem(ctx, pk, "o1", nil)
	fmt.Println(err)
	// Output:
	// <nil> 2 3
	// true 503
	// <nil>
}
