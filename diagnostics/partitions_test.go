package diagnostics_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// trackedContainer starts cosmostest with 4 physical partitions and returns container "c"
// (partition key /country) on a client with tracker installed per retry.
func trackedContainer(t *testing.T, tracker *diagnostics.PartitionTracker, throughput int32, opts ...cosmostest.Option) *azcosmos.ContainerClient {
	t.Helper()
	srv := cosmostest.NewServer(t, append([]cosmostest.Option{cosmostest.WithHTTP(), cosmostest.WithPartitionCount(4)}, opts...)...)
	cred, err := azcosmos.NewKeyCredential(srv.Key())
	if err != nil {
		t.Fatal(err)
	}
	co := srv.ClientOptions()
	co.PerRetryPolicies = append(co.PerRetryPolicies, tracker)
	co.Retry = policy.RetryOptions{MaxRetries: -1} // a 429 comes back as an error, counted once
	client, err := azcosmos.NewClientWithKey(srv.Endpoint(), cred, co)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	var cco *azcosmos.CreateContainerOptions
	if throughput > 0 {
		tp := azcosmos.NewManualThroughputProperties(throughput)
		cco = &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}
	}
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/country"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}}, cco); err != nil {
		t.Fatal(err)
	}
	c, _ := client.NewContainer("db", "c")
	return c
}

// upsert writes item i in country and returns the physical partition that answered (-1 on 429).
func upsert(t *testing.T, c *azcosmos.ContainerClient, country string, i int) (string, int) {
	t.Helper()
	doc, _ := json.Marshal(map[string]any{"id": fmt.Sprint(i), "country": country})
	resp, err := c.UpsertItem(context.Background(), azcosmos.NewPartitionKeyString(country), doc, nil)
	if err != nil {
		var re *azcore.ResponseError
		if errAs(err, &re) && re.StatusCode == http.StatusTooManyRequests {
			return re.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid"), http.StatusTooManyRequests
		}
		t.Fatal(err)
	}
	return resp.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid"), resp.RawResponse.StatusCode
}

func TestPartitionTrackerSkewed(t *testing.T) {
	mr := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(mr))
	tracker, err := diagnostics.NewPartitionTracker(diagnostics.TrackerOptions{MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	c := trackedContainer(t, tracker, 0)
	usRange := ""
	for i := range 200 {
		country := "US"
		if i%5 == 4 {
			country = fmt.Sprintf("C%02d", i%40) // 20% spread over 8 other countries
		}
		r, _ := upsert(t, c, country, i)
		if r == "" {
			t.Fatal("no x-ms-documentdb-partitionkeyrangeid on the response")
		}
		if country == "US" {
			usRange = r
		}
	}
	// A query in the US partition counts for the physical partition, not as a logical key's
	// point operation.
	pager := c.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKeyString("US"), nil)
	pages := 0
	for pager.More() {
		if _, err := pager.NextPage(context.Background()); err != nil {
			t.Fatal(err)
		}
		pages++
	}
	rep := tracker.Report(diagnostics.ReportOptions{PhysicalPartitions: 4})
	hotParts, hotKeys := rep.Hot()
	if len(hotParts) != 1 || hotParts[0].PartitionKeyRangeID != usRange || hotParts[0].Container != "c" || hotParts[0].Share < 0.8 {
		t.Fatalf("hot partitions %+v; US is in range %s; all: %+v", hotParts, usRange, rep.Partitions)
	}
	if len(hotKeys) != 1 || hotKeys[0].Key != `["US"]` || hotKeys[0].PartitionKeyRangeID != usRange || hotKeys[0].Requests != 160 {
		t.Fatalf("hot keys %+v", hotKeys)
	}
	var total int64
	for _, p := range rep.Partitions {
		total += p.Requests
	}
	if total != int64(200+pages) {
		t.Fatalf("%d requests attributed to partitions, want 200 writes and %d query pages", total, pages)
	}

	// The metrics carry the same per-partition figures.
	var rm metricdata.ResourceMetrics
	if err := mr.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != diagnostics.MetricPartitionRequests {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				if v, _ := dp.Attributes.Value("cosmoskit.partition_key_range_id"); v.AsString() == usRange && dp.Value >= 160 {
					found = true
				}
			}
		}
	}
	if !found {
		t.Fatalf("no %s data point for range %s", diagnostics.MetricPartitionRequests, usRange)
	}

	tracker.Reset()
	if r := tracker.Report(diagnostics.ReportOptions{}); len(r.Partitions) != 0 || len(r.Keys) != 0 {
		t.Fatalf("after Reset: %+v", r)
	}
}

func TestPartitionTrackerBalanced(t *testing.T) {
	tracker, err := diagnostics.NewPartitionTracker(diagnostics.TrackerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := trackedContainer(t, tracker, 0)
	for i := range 400 {
		upsert(t, c, fmt.Sprintf("C%03d", i%100), i)
	}
	rep := tracker.Report(diagnostics.ReportOptions{PhysicalPartitions: 4})
	if hp, hk := rep.Hot(); len(hp) != 0 || len(hk) != 0 {
		t.Fatalf("a balanced load reported hot: %+v %+v (partitions %+v)", hp, hk, rep.Partitions)
	}
	if len(rep.Partitions) != 4 || len(rep.Keys) != 100 {
		t.Fatalf("%d partitions, %d keys", len(rep.Partitions), len(rep.Keys))
	}
}

func TestPartitionTrackerThrottles(t *testing.T) {
	tracker, err := diagnostics.NewPartitionTracker(diagnostics.TrackerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// 400 RU/s over 4 partitions: 100 RU/s each; the server clock stands still, so the hot
	// partition stays out of budget for the whole test.
	c := trackedContainer(t, tracker, 400, cosmostest.WithThroughputLimits())
	throttledRange := ""
	for i := range 60 {
		r, status := upsert(t, c, "US", i)
		if status == http.StatusTooManyRequests {
			throttledRange = r
		}
	}
	if throttledRange == "" {
		t.Fatal("no 429 from the hot partition")
	}
	rep := tracker.Report(diagnostics.ReportOptions{PhysicalPartitions: 4, MinRequestCharge: 1})
	for _, p := range rep.Partitions {
		if p.PartitionKeyRangeID == throttledRange && (p.Throttles == 0 || !p.Hot) {
			t.Fatalf("throttled partition %+v", p)
		}
		if p.PartitionKeyRangeID != throttledRange && p.Throttles != 0 {
			t.Fatalf("throttles on an idle partition: %+v", p)
		}
	}
}

func TestPartitionTrackerBoundedKeys(t *testing.T) {
	tracker, err := diagnostics.NewPartitionTracker(diagnostics.TrackerOptions{MaxKeys: 5})
	if err != nil {
		t.Fatal(err)
	}
	c := trackedContainer(t, tracker, 0)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 30 {
				country := "HOT"
				if i%2 == 0 {
					country = fmt.Sprintf("K%d-%d", g, i)
				}
				doc, _ := json.Marshal(map[string]any{"id": fmt.Sprint(g*100 + i), "country": country})
				_, _ = c.UpsertItem(context.Background(), azcosmos.NewPartitionKeyString(country), doc, nil)
			}
		}()
	}
	wg.Wait()
	rep := tracker.Report(diagnostics.ReportOptions{})
	if len(rep.Keys) != 5 || rep.Keys[0].Key != `["HOT"]` {
		t.Fatalf("keys %+v", rep.Keys)
	}
}

func errAs(err error, target any) bool { return errors.As(err, target) }
