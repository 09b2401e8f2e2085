package diagnostics_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// statsCapture is a per-call policy installed after diagnostics.Policy: it records what
// StatsFromContext reports for the last call.
type statsCapture struct {
	mu    sync.Mutex
	stats diagnostics.Stats
	ok    bool
}

func (c *statsCapture) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	st, ok := diagnostics.StatsFromContext(req.Raw().Context())
	c.mu.Lock()
	c.stats, c.ok = st, ok
	c.mu.Unlock()
	return resp, err
}

func (c *statsCapture) last() (diagnostics.Stats, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats, c.ok
}

// statsClient returns a container client of a two-region server (West US writes) whose pipeline
// has a diagnostics policy configured by o, the capture below it and the attempt policy.
func statsClient(t *testing.T, o diagnostics.Options, preferred ...string) (*cosmostest.Server, *azcosmos.ContainerClient, *statsCapture) {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"))
	capture := &statsCapture{}
	copts := s.ClientOptions()
	copts.PerCallPolicies = append(copts.PerCallPolicies, mustPolicy(t, o), capture)
	copts.PerRetryPolicies = append(copts.PerRetryPolicies, diagnostics.NewAttemptPolicy())
	copts.PreferredRegions = preferred
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), copts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db1"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db1")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c1",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c1")
	if _, err := c.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p1"), []byte(`{"id":"a","pk":"p1"}`), nil); err != nil {
		t.Fatal(err)
	}
	return s, c, capture
}

func regionHost(t *testing.T, s *cosmostest.Server, region string) string {
	t.Helper()
	u, err := url.Parse(s.RegionEndpoint(region))
	if err != nil || u.Host == "" {
		t.Fatalf("region %q endpoint %q: %v", region, s.RegionEndpoint(region), err)
	}
	return u.Host
}

// TestStatsFromContextNeedsWork checks the documented rule: with a zero Options the policy
// records Stats only for calls made with a Meter; with a logger it records them for every call.
// Stats.Region names the region that answered, also on the cheap path.
func TestStatsFromContextNeedsWork(t *testing.T) {
	s, c, capture := statsClient(t, diagnostics.Options{})
	pk := azcosmos.NewPartitionKeyString("p1")
	if _, err := c.ReadItem(context.Background(), pk, "a", nil); err != nil {
		t.Fatal(err)
	}
	if st, ok := capture.last(); ok {
		t.Errorf("zero Options, no Meter: StatsFromContext = %+v, true; want false", st)
	}
	ctx, _ := diagnostics.WithMeter(context.Background())
	if _, err := c.ReadItem(ctx, pk, "a", nil); err != nil {
		t.Fatal(err)
	}
	st, ok := capture.last()
	if !ok || st.Attempts != 1 || st.RequestCharge <= 0 {
		t.Fatalf("zero Options with a Meter: StatsFromContext = %+v, %v; want one attempt", st, ok)
	}
	if want := regionHost(t, s, "West US"); st.Host != want || st.Region != "West US" {
		t.Errorf("Host %q Region %q, want %q West US", st.Host, st.Region, want)
	}

	_, c, capture = statsClient(t, diagnostics.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if _, err := c.ReadItem(context.Background(), pk, "a", nil); err != nil {
		t.Fatal(err)
	}
	if st, ok := capture.last(); !ok || st.Attempts != 1 || st.Region != "West US" {
		t.Errorf("with a Logger, no Meter: StatsFromContext = %+v, %v; want one attempt in West US", st, ok)
	}
}

// TestStatsRegionOfPreferredRegion checks that Stats.Region follows the endpoint that answered:
// a read with East US preferred is answered there, a write by the write region.
func TestStatsRegionOfPreferredRegion(t *testing.T) {
	s, c, capture := statsClient(t, diagnostics.Options{}, "East US")
	ctx, _ := diagnostics.WithMeter(context.Background())
	pk := azcosmos.NewPartitionKeyString("p1")
	if _, err := c.ReadItem(ctx, pk, "a", nil); err != nil {
		t.Fatal(err)
	}
	if st, _ := capture.last(); st.Region != "East US" || st.Host != regionHost(t, s, "East US") {
		t.Errorf("read: Region %q Host %q, want East US %q", st.Region, st.Host, regionHost(t, s, "East US"))
	}
	if _, err := c.UpsertItem(ctx, pk, []byte(`{"id":"b","pk":"p1"}`), nil); err != nil {
		t.Fatal(err)
	}
	if st, _ := capture.last(); st.Region != "West US" {
		t.Errorf("write: Region %q, want West US (the write region)", st.Region)
	}
}
