package retry_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// Install the policy on the options of the one azcosmos client of the account.
func ExamplePipelinePolicy_Install() {
	s, _ := cosmostest.Start(cosmostest.WithRegions("West US", "East US"))
	defer s.Close()

	opts := s.ClientOptions()
	opts.PreferredRegions = []string{"East US", "West US"}
	p := retry.NewPipelinePolicy(retry.Options{PreferredRegions: opts.PreferredRegions})
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
	fmt.Println(err, s.Requests(cosmostest.RequestFilter{Region: "West US", Operation: cosmostest.OpRead, ResourceType: cosmostest.ResourceDocument}))

	// A throttled request is retried after the server's hint, up to 9 times within 30 s.
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpRead, Status: http.StatusTooManyRequests, RetryAfter: time.Millisecond, Times: 2})
	_, err = orders.ReadItem(ctx, pk, "o1", nil)
	fmt.Println(err)

	// Past the budget the error matches ErrThrottled and carries the details.
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpRead, Status: http.StatusTooManyRequests, RetryAfter: time.Hour})
	_, err = orders.ReadItem(ctx, pk, "o1", nil)
	var de *diagnostics.Error
	fmt.Println(errors.Is(err, retry.ErrThrottled), errors.As(err, &de) && de.SubStatus == 3200, de.Attempts)
	// Output:
	// <nil> 1
	// <nil>
	// true true 1
}

func TestCircuitOpenErrorMessage(t *testing.T) {
	e := newEnv(t, retry.Options{Breaker: retry.BreakerOptions{ReadFailureThreshold: 1, OpenInterval: time.Hour}},
		cosmostest.WithRegions("West US"))
	e.s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpRead, ResourceType: cosmostest.ResourceDocument, Status: http.StatusInternalServerError})
	_ = e.read(context.Background())
	err := e.read(context.Background())
	if !errors.Is(err, retry.ErrCircuitOpen) {
		t.Fatalf("read = %v", err)
	}
	if want := "cosmoskit: read_item db/c: circuit breaker open for every region (West US)"; err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
	// Like every error cosmoskit makes, it is a *diagnostics.Error naming the operation.
	var de *diagnostics.Error
	if !errors.As(err, &de) || de.Operation != diagnostics.OpReadItem || de.Container != "c" || de.StatusCode != 0 ||
		diagnostics.IsRetryable(err) || !errors.Is(diagnostics.FromError("", err), retry.ErrCircuitOpen) {
		t.Errorf("circuit open error %#v (retryable %v)", de, diagnostics.IsRetryable(err))
	}
}
