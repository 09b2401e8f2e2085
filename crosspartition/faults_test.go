package crosspartition

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// TestFirstErrorCancelsTheRest: a range that fails stops the query at once, cancelling a range
// that is slow to answer (goleak in TestMain checks that nothing is left running).
func TestFirstErrorCancelsTheRest(t *testing.T) {
	s, c := newContainer(t, 8, nil)
	put(t, c, docs(80)...)
	x := mustNew(t, c)
	if _, err := x.routingMap(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpQueryItems, PartitionKeyRangeID: "5", Delay: 5 * time.Second})
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpQueryItems, PartitionKeyRangeID: "2", Status: http.StatusForbidden, SubStatus: 5300, Message: "injected"})
	start := time.Now()
	p := x.NewQueryItemsPager("SELECT c.id FROM c ORDER BY c.n", nil)
	_, err := p.NextPage(context.Background())
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusForbidden {
		t.Fatalf("err = %v, want the 403 of range 2", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("the query waited %v for the slow range after the first error", d)
	}
}

// TestThrottlingAndChargeThroughCosmoskit: a 429 on one range is retried by the client's retry
// layer; the request charge of every range lands in the caller's Meter and in the page.
func TestThrottlingAndChargeThroughCosmoskit(t *testing.T) {
	s, c0 := newContainer(t, 4, nil)
	put(t, c0, docs(40)...)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	client, err := cosmoskit.New(cosmoskit.Config{ConnectionString: s.ConnectionString(), ClientOptions: s.ClientOptions(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c, err := client.Container("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	x := mustNew(t, c)
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpQueryItems, PartitionKeyRangeID: "1", Status: http.StatusTooManyRequests, RetryAfter: 5 * time.Millisecond, Times: 2})
	ctx, meter := diagnostics.WithMeter(context.Background())
	p := x.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c", nil)
	resp, err := p.NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Items) != 1 || string(resp.Items[0]) != "40" {
		t.Fatalf("count = %s", resp.Items)
	}
	if meter.Throttles() != 2 {
		t.Errorf("meter saw %d throttles, want 2", meter.Throttles())
	}
	// plan request + 4 ranges (the pkranges and change-feed reads of the first query too)
	if meter.Requests() < 5 || float64(resp.RequestCharge) <= 0 || meter.RequestCharge() < float64(resp.RequestCharge)-0.01 {
		t.Errorf("meter: %d requests, %.2f RU; page charge %.2f", meter.Requests(), meter.RequestCharge(), resp.RequestCharge)
	}
	_ = azcosmos.QueryOptions{}
}
