package cosmoskit_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// twoRegions returns a two-region server, a client preferring West US, and a container with one item.
func twoRegions(t *testing.T, cfg cosmoskit.Config) (*cosmostest.Server, *cosmoskit.Client, *azcosmos.ContainerClient) {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"))
	cfg.Endpoint, cfg.Key, cfg.Logger = s.Endpoint(), s.Key(), quiet
	cfg.PreferredRegions = []string{"West US", "East US"}
	c, err := cosmoskit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ccRes, err := c.EnsureContainer(context.Background(), "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}})
	if err != nil {
		t.Fatal(err)
	}
	cc := ccRes.Container
	if _, err := cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString("a"), []byte(`{"id":"1","pk":"a"}`), nil); err != nil {
		t.Fatal(err)
	}
	return s, c, cc
}

// readsIn reads the item n times and returns how many reads each region served.
func readsIn(t *testing.T, s *cosmostest.Server, cc *azcosmos.ContainerClient, n int) (west, east int) {
	t.Helper()
	s.ResetRequests()
	for range n {
		if _, err := cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("a"), "1", nil); err != nil {
			t.Fatal(err)
		}
	}
	f := cosmostest.RequestFilter{Operation: cosmostest.OpReadItem}
	f.Region = "West US"
	west = s.Requests(f)
	f.Region = "East US"
	east = s.Requests(f)
	return west, east
}

func TestExcludedRegionsRouteAtRuntime(t *testing.T) {
	s, c, cc := twoRegions(t, cosmoskit.Config{})
	if w, e := readsIn(t, s, cc, 3); w != 3 || e != 0 {
		t.Fatalf("before exclusion: West %d, East %d; want 3, 0", w, e)
	}
	if err := c.SetExcludedRegions("west us"); err != nil {
		t.Fatal(err)
	}
	if w, e := readsIn(t, s, cc, 3); w != 0 || e != 3 {
		t.Fatalf("West US excluded: West %d, East %d; want 0, 3", w, e)
	}
	if got := c.Retry().ExcludedRegions(); !slices.Equal(got, []string{"west us"}) {
		t.Errorf("retry policy exclusions = %q", got)
	}
	if err := c.SetExcludedRegions(); err != nil {
		t.Fatal(err)
	}
	if w, e := readsIn(t, s, cc, 3); w != 3 || e != 0 {
		t.Fatalf("exclusion cleared: West %d, East %d; want 3, 0", w, e)
	}
}

func TestExcludedRegionsFromConfig(t *testing.T) {
	s, _, cc := twoRegions(t, cosmoskit.Config{ExcludedRegions: []string{"West US"}})
	if w, e := readsIn(t, s, cc, 2); w != 0 || e != 2 {
		t.Fatalf("West %d, East %d; want 0, 2", w, e)
	}
}

func TestThrottlingIsRetriedOnceByTheRetryPolicy(t *testing.T) {
	s, _, cc := twoRegions(t, cosmoskit.Config{})
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: http.StatusTooManyRequests, RetryAfter: 5 * time.Millisecond, Times: 3})
	if w, _ := readsIn(t, s, cc, 1); w != 4 {
		t.Errorf("3 throttles then success: %d attempts, want 4", w)
	}

	// A storm past the budget: ErrThrottled, within the budget, no azcore retries on top.
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: http.StatusTooManyRequests, RetryAfter: time.Millisecond})
	s.ResetRequests()
	_, err := cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("a"), "1", nil)
	if !errors.Is(err, cosmoserr.ErrThrottled) {
		t.Fatalf("storm: %v, want ErrThrottled", err)
	}
	if n := s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReadItem}); n != 10 {
		t.Errorf("storm: %d attempts, want 10 (1 + 9 retries, one retry layer)", n)
	}
}
