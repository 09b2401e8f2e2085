package cosmostest_test

import (
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

var threeRegions = cosmostest.WithRegions("West US", "East US", "North Europe")

func TestPreferredRegionRouting(t *testing.T) {
	tests := []struct {
		name       string
		opts       []cosmostest.Option
		preferred  []string
		readRegion string
		writeRgn   string
	}{
		{"no preference reads the write region", []cosmostest.Option{threeRegions}, nil, "West US", "West US"},
		{"reads follow preference", []cosmostest.Option{threeRegions}, []string{"eastus", "West US"}, "East US", "West US"},
		{"multi-write writes follow preference", []cosmostest.Option{threeRegions, cosmostest.WithMultiWrite()}, []string{"North Europe"}, "North Europe", "North Europe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := cosmostest.NewServer(t, tt.opts...)
			c := newClient(t, s, func(o *azcosmos.ClientOptions) { o.PreferredRegions = tt.preferred })
			cc := newContainer(t, c, "c", nil)
			pk := azcosmos.NewPartitionKeyString("p")
			if _, err := cc.CreateItem(context.Background(), pk, []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
				t.Fatal(err)
			}
			if _, err := cc.ReadItem(context.Background(), pk, "a", nil); err != nil {
				t.Fatal(err)
			}
			if n := s.Requests(cosmostest.RequestFilter{Region: tt.readRegion, Operation: cosmostest.OpReadItem}); n != 1 {
				t.Errorf("reads in %s: %d", tt.readRegion, n)
			}
			if n := s.Requests(cosmostest.RequestFilter{Region: tt.writeRgn, Operation: cosmostest.OpCreateItem}); n != 1 {
				t.Errorf("creates in %s: %d", tt.writeRgn, n)
			}
		})
	}
}

// TestReadFailoverRegionDown is the one slow test: the SDK retries a refused connection three
// times with 1 s sleeps before it fails over (~4 s).
func TestReadFailoverRegionDown(t *testing.T) {
	if testing.Short() {
		t.Skip("takes ~4 s of the SDK's own backoff")
	}
	s := cosmostest.NewServer(t, threeRegions)
	c := newClient(t, s, func(o *azcosmos.ClientOptions) { o.PreferredRegions = []string{"East US", "West US"} })
	cc := newContainer(t, c, "c", nil)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRegionDown("East US", true); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.ReadItem(ctx, pk, "a", nil); err != nil {
		t.Fatalf("read with East US down: %v", err)
	}
	if n := s.Requests(cosmostest.RequestFilter{Region: "West US", Operation: cosmostest.OpReadItem}); n != 1 {
		t.Fatalf("reads served by West US: %d", n)
	}
	if err := s.SetRegionDown("East US", false); err != nil {
		t.Fatal(err)
	}
	// The region is back on the same port: a new client reads there again.
	c2 := newClient(t, s, func(o *azcosmos.ClientOptions) { o.PreferredRegions = []string{"East US"} })
	cc2, _ := c2.NewContainer("db", "c")
	if _, err := cc2.ReadItem(ctx, pk, "a", nil); err != nil {
		t.Fatal(err)
	}
	if n := s.Requests(cosmostest.RequestFilter{Region: "East US", Operation: cosmostest.OpReadItem}); n != 1 {
		t.Fatalf("reads served by East US after it came back: %d", n)
	}
}

func TestFailoverWriteRegion(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"))
	c := newClient(t, s, func(o *azcosmos.ClientOptions) { o.PreferredRegions = []string{"West US", "East US"} })
	cc := newContainer(t, c, "c", nil)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.FailoverWriteRegion("East US"); err != nil {
		t.Fatal(err)
	}
	// West US now answers 403/3; the SDK refreshes the account and retries in East US (~1 s).
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"b","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	if n := s.Requests(cosmostest.RequestFilter{Region: "East US", Operation: cosmostest.OpCreateItem}); n != 1 {
		t.Fatalf("creates in East US: %d", n)
	}
	if n := s.Requests(cosmostest.RequestFilter{Region: "West US", Operation: cosmostest.OpCreateItem}); n != 2 {
		t.Fatalf("creates sent to West US: %d (one success, one 403)", n)
	}
	// Both regions share one store.
	if _, err := cc.ReadItem(ctx, pk, "b", nil); err != nil {
		t.Fatal(err)
	}
}
