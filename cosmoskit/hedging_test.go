package cosmoskit_test

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

type hedgedDoc struct {
	ID string `json:"id"`
	PK string `json:"pk"`
	N  int    `json:"n"`
}

// TestClientHedgingAppliesToRepositoryReads: Config.Retry.Hedging.Enable hedges the library's own
// reads with no per-call wrapping: a repository Get on a preferred region slowed to 500 ms, with a
// 50 ms threshold, is answered by the other region after one hedge, and the slow request is
// cancelled. Writes are not hedged. (Before, only calls wrapped in retry.Hedge were hedged: the Get
// waited 500 ms and sent no hedge.) Counts, not wall time, are asserted; the time is logged.
func TestClientHedgingAppliesToRepositoryReads(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"), cosmostest.WithMultiWrite())
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: quiet,
		PreferredRegions: []string{"West US", "East US"},
		Retry:            retry.Options{Hedging: retry.HedgingOptions{Enable: true, Threshold: 50 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := context.Background()
	if _, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}}); err != nil {
		t.Fatal(err)
	}
	repo, err := repository.NewFromClient(c, "db", "c", repository.Options[hedgedDoc]{Type: "doc",
		Key: func(d hedgedDoc) (string, azcosmos.PartitionKey) { return d.ID, azcosmos.NewPartitionKeyString(d.PK) }})
	if err != nil {
		t.Fatal(err)
	}
	slowWrites := s.InjectFault(cosmostest.Fault{Region: "West US", Operation: cosmostest.OpUpsertItem, Delay: 100 * time.Millisecond})
	if _, err := repo.Upsert(ctx, hedgedDoc{ID: "1", PK: "a", N: 1}); err != nil {
		t.Fatal(err)
	}
	if got := c.Retry().HedgeStats(); got.Sent != 0 || slowWrites.Hits() != 1 {
		t.Fatalf("a slow write: HedgeStats %+v, %d slow upserts; want no hedge, 1 upsert", got, slowWrites.Hits())
	}

	slow := s.InjectFault(cosmostest.Fault{Region: "West US", Operation: cosmostest.OpReadItem, Delay: 500 * time.Millisecond})
	s.ResetRequests()
	start := time.Now()
	got, err := repo.Get(ctx, partitionkey.Of("a"), "1")
	took := time.Since(start)
	if err != nil || got.N != 1 {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	t.Logf("hedged Get took %v (threshold 50 ms, West US slowed to 500 ms)", took)
	if hs := c.Retry().HedgeStats(); hs != (retry.HedgeStats{Hedged: 1, Sent: 1, Won: 1, Cancelled: 1}) {
		t.Errorf("HedgeStats = %+v, want exactly one hedge, which won, and the slow request cancelled", hs)
	}
	if n := s.Requests(cosmostest.RequestFilter{Region: "East US", Operation: cosmostest.OpReadItem}); n != 1 {
		t.Errorf("%d reads in East US, want 1 (the hedge)", n)
	}
	for deadline := time.Now().Add(5 * time.Second); slow.Cancelled() != 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the slow West US read was not cancelled (hits %d, cancelled %d)", slow.Hits(), slow.Cancelled())
		}
	}
}
