package cosmostest_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestRequestCharge: the server's per-container total of the charges its responses carried, by
// operation, equals what the client was told (azcosmos keeps a float32); ResetRequests clears it.
func TestRequestCharge(t *testing.T) {
	s := cosmostest.NewServer(t)
	if err := s.CreateContainer("db", "c", "/pk"); err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	cc, _ := client.NewContainer("db", "c")
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	var writes, reads float64
	for i := range 5 {
		w, err := cc.UpsertItem(ctx, pk, fmt.Appendf(nil, `{"id":"d%d","pk":"p","pad":"%0900d"}`, i, 0), nil)
		if err != nil {
			t.Fatal(err)
		}
		writes += float64(w.RequestCharge)
		r, err := cc.ReadItem(ctx, pk, fmt.Sprint("d", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		reads += float64(r.RequestCharge)
	}
	got := func(op cosmostest.Operation) float64 {
		return s.RequestCharge(cosmostest.RequestFilter{Database: "db", Container: "c", Operation: op})
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-4 }
	if w, r := got(cosmostest.OpUpsertItem), got(cosmostest.OpReadItem); !near(w, writes) || !near(r, reads) || writes <= 5 {
		t.Errorf("server: upserts %v RU, reads %v RU; client was charged %v and %v", w, r, writes, reads)
	}
	if all := s.RequestCharge(cosmostest.RequestFilter{Container: "c"}); !near(all, writes+reads) {
		t.Errorf("container total %v RU, want %v", all, writes+reads)
	}
	if other := s.RequestCharge(cosmostest.RequestFilter{Container: "other"}); other != 0 {
		t.Errorf("another container: %v RU", other)
	}
	s.ResetRequests()
	if all := s.RequestCharge(cosmostest.RequestFilter{}); all != 0 {
		t.Errorf("after ResetRequests: %v RU", all)
	}
}
