package retry_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// Install the policy on the options of the one azcosmos client of the account.
func ExamplePipelinePolicy_Install() {
	s, _ := cosmostest.Start(cosmostest.WithRegions("West US", "East US"))
	defer s.Close()

	opts := s.ClientOptions()
	opts.PreferredRegions = []string{"East US", "West US"}
	p, _ := retry.NewPipelinePolicy(retry.Options{}) // Install routes by opts.PreferredRegions
	p.Install(opts)
	client, _ := azcosmos.NewClientFromConnectionString(s.ConnectionString(), opts)
	defer client.Close()

	ctx := context.Background()
	_, _ = client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil)
	db, _ := client.NewDatabase("shop")
	_, _ = db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "orders",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customer"}}}, nil)
	orders, _ := db.NewContainer("orders")
	pk := azcosmos.NewPartitionKeyString("alice")
	_, _ = orders.CreateItem(ctx, pk, []byte(`{"id":"o1","customer":"alice"}`), nil)

	// Keep this request away from East US (e.g. during a maintenance window there).
	_, err := orders.ReadItem(retry.WithExcludedRegions(ctx, "East US"), pk, "o1", nil)
	fmt.Println(err, s.Requests(cosmostest.RequestFilter{Region: "West US", Operation: cosmostest.OpReadItem}))

	// A throttled request is retried after the server's hint, up to 9 times within 30 s.
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: http.StatusTooManyRequests, RetryAfter: time.Millisecond, Times: 2})
	_, err = orders.ReadItem(ctx, pk, "o1", nil)
	fmt.Println(err)

	// Past the budget the error matches ErrThrottled and carries the details.
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: http.StatusTooManyRequests, RetryAfter: time.Hour})
	_, err = orders.ReadItem(ctx, pk, "o1", nil)
	var de *cosmoserr.Error
	fmt.Println(errors.Is(err, cosmoserr.ErrThrottled), errors.As(err, &de) && de.SubStatus == 3200, de.Attempts)
	// Output:
	// <nil> 1
	// <nil>
	// true true 1
}

// TestSingleReadRegionNeverFailsFast: an account with one region has nowhere else to read from,
// so an open read breaker lets each read through (half-open) instead of refusing it.
func TestSingleReadRegionNeverFailsFast(t *testing.T) {
	e := newEnv(t, envRegions{}, retry.Options{Breaker: retry.BreakerOptions{ReadFailureThreshold: 1}, Clock: newFakeClock()},
		cosmostest.WithRegions("West US"))
	fault := e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: http.StatusInternalServerError})
	_ = e.read(context.Background())
	if st, _ := breakerState(e.p, e.host(t, "West US"), false); st != retry.StateOpen {
		t.Fatalf("breaker %v, want open", st)
	}
	e.s.ResetRequests()
	err := e.read(context.Background())
	if err == nil {
		t.Fatalf("read = %v, want it sent and its 500", err)
	}
	var de *cosmoserr.Error
	if !errors.As(cosmoserr.FromError("", err), &de) || de.StatusCode != http.StatusInternalServerError {
		t.Errorf("read error %v, want the service's 500", err)
	}
	if got := e.s.Requests(docReads); got == 0 {
		t.Fatal("the read was not sent")
	}
	fault.Remove()
	if err := e.read(context.Background()); err != nil {
		t.Fatalf("read once the region recovered: %v", err)
	}
}

// Hedge a point read: when the first region has not answered after the threshold, the same read
// runs again pinned to the next region, and the first answer wins.
func ExampleHedge() {
	s, _ := cosmostest.Start(cosmostest.WithRegions("West US", "East US"))
	defer s.Close()

	opts := s.ClientOptions()
	opts.PreferredRegions = []string{"East US", "West US"}
	p, _ := retry.NewPipelinePolicy(retry.Options{
		Hedging: retry.HedgingOptions{Enable: true, Threshold: 20 * time.Millisecond}})
	p.Install(opts)
	client, _ := azcosmos.NewClientFromConnectionString(s.ConnectionString(), opts)
	defer client.Close()

	ctx := context.Background()
	_, _ = client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil)
	db, _ := client.NewDatabase("shop")
	_, _ = db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "orders",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customer"}}}, nil)
	orders, _ := db.NewContainer("orders")
	pk := azcosmos.NewPartitionKeyString("alice")
	_, _ = orders.CreateItem(ctx, pk, []byte(`{"id":"o1","customer":"alice"}`), nil)

	// East US, the preferred region, stalls.
	s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpReadItem, Delay: time.Minute})
	resp, err := retry.Hedge(ctx, p, func(ctx context.Context) (azcosmos.ItemResponse, error) {
		return orders.ReadItem(ctx, pk, "o1", nil)
	})
	fmt.Println(err, len(resp.Value) > 0, s.Requests(cosmostest.RequestFilter{Region: "West US", Operation: cosmostest.OpReadItem}))
	// Output:
	// <nil> true 1
}
