package retry_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

func TestExcludedRegions(t *testing.T) {
	three := cosmostest.WithRegions("West US", "East US", "North Europe")
	tests := []struct {
		name       string
		preferred  []string
		client     []string
		request    []string
		wantRegion string
		wantOrder  []string
	}{
		{name: "none", preferred: []string{"East US", "North Europe", "West US"},
			wantRegion: "East US", wantOrder: []string{"East US", "North Europe", "West US"}},
		{name: "client", preferred: []string{"East US", "North Europe", "West US"}, client: []string{"east us"},
			wantRegion: "North Europe", wantOrder: []string{"North Europe", "West US"}},
		{name: "request", preferred: []string{"East US", "North Europe", "West US"}, request: []string{"EastUS"},
			wantRegion: "North Europe", wantOrder: []string{"North Europe", "West US"}},
		{name: "client and request", preferred: []string{"East US", "North Europe", "West US"},
			client: []string{"East US"}, request: []string{"North Europe"},
			wantRegion: "West US", wantOrder: []string{"West US"}},
		{name: "all excluded falls back to the write region", preferred: []string{"East US", "North Europe"},
			client: []string{"East US"}, request: []string{"North Europe"},
			wantRegion: "West US", wantOrder: []string{"West US"}},
		{name: "no preferred regions: the account's order", client: []string{"West US"},
			wantRegion: "East US", wantOrder: []string{"East US", "North Europe"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envRegions{preferred: tt.preferred, excluded: tt.client}, retry.Options{}, three)
			ctx := context.Background()
			if tt.request != nil {
				ctx = retry.WithExcludedRegions(ctx, tt.request...)
			}
			if err := e.read(ctx); err != nil {
				t.Fatal(err)
			}
			if got := e.s.Requests(regionReads(tt.wantRegion)); got != 1 || e.s.Requests(docReads) != 1 {
				t.Errorf("reads in %s: %d of %d, want the only one", tt.wantRegion, got, e.s.Requests(docReads))
			}
			if got := e.p.Regions(ctx); !slices.Equal(got, tt.wantOrder) {
				t.Errorf("Regions = %q, want %q", got, tt.wantOrder)
			}
		})
	}
}

func TestExcludedRegionFailoverSkipsIt(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "North Europe", "West US"}}, retry.Options{},
		cosmostest.WithRegions("West US", "East US", "North Europe"))
	if err := e.s.SetRegionDown("East US", true); err != nil {
		t.Fatal(err)
	}
	ctx := retry.WithExcludedRegions(context.Background(), "North Europe")
	if err := e.read(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(regionReads("North Europe")); got != 0 {
		t.Errorf("failover went to the excluded region (%d reads)", got)
	}
	if got := e.s.Requests(regionReads("West US")); got != 1 {
		t.Errorf("%d reads in West US, want 1", got)
	}
}

func TestExcludedRegionsChangeAtRuntime(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{})
	ctx := context.Background()
	e.p.SetExcludedRegions("East US")
	if err := e.read(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(regionReads("West US")); got != 1 {
		t.Fatalf("excluded East US: %d reads in West US", got)
	}
	if got := e.p.ExcludedRegions(); !slices.Equal(got, []string{"East US"}) {
		t.Errorf("ExcludedRegions = %q", got)
	}
	e.p.SetExcludedRegions()
	if err := e.read(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(regionReads("East US")); got != 1 {
		t.Fatalf("nothing excluded: %d reads in East US", got)
	}

	// Changing the list while reads run is race-free (run with -race).
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				e.p.SetExcludedRegions("East US")
			} else {
				e.p.SetExcludedRegions("West US")
			}
			time.Sleep(time.Millisecond)
		}
	}()
	var readers sync.WaitGroup
	errs := make(chan error, 40)
	for range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for range 10 {
				if err := e.read(ctx); err != nil {
					errs <- err
				}
			}
		}()
	}
	readers.Wait()
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestWritesGoToTheWriteRegion(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}, excluded: []string{"West US"}}, retry.Options{})
	_, err := e.cc.UpsertItem(context.Background(), azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"b","pk":"p"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(cosmostest.RequestFilter{Region: "West US", Operation: cosmostest.OpUpsertItem}); got != 1 {
		t.Errorf("%d upserts in the write region, want 1", got)
	}
}

func TestMultiWriteWritesHonourExclusion(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"West US", "East US"}}, retry.Options{}, cosmostest.WithMultiWrite())
	ctx := retry.WithExcludedRegions(context.Background(), "West US")
	_, err := e.cc.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"b","pk":"p"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(cosmostest.RequestFilter{Region: "East US", Operation: cosmostest.OpUpsertItem}); got != 1 {
		t.Errorf("%d upserts in East US, want 1", got)
	}
}

func TestRegionsBeforeTopology(t *testing.T) {
	p := mustPolicy(t, retry.Options{})
	if got := p.Regions(context.Background()); got != nil {
		t.Errorf("Regions before the account was read = %q", got)
	}
}

func TestSessionRetryKeepsTheSDKsChoice(t *testing.T) {
	// East US keeps answering 404/1002 (read session not available): the SDK retries once on the
	// write region, and the policy must let it (after its own in-region retries, on a fake clock).
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{Clock: newFakeClock()})
	e.s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpReadItem,
		Status: 404, SubStatus: 1002})
	if err := e.read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(regionReads("West US")); got != 1 {
		t.Errorf("%d reads in West US, want the SDK's session retry there", got)
	}
}
