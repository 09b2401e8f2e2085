// Command saas-tenants shows partitioning made visible, on the multi-tenant design of the
// partitioning rules:
//
//   - a container with the hierarchical key /tenantId, /userId, so one big tenant spreads over many
//     logical partitions (no 20 GB ceiling per tenant), with keys built and checked by package
//     partitionkey before any request;
//   - the storage report of package partitionstats: documents and size per physical partition and
//     the largest logical partitions, with the 20 GB / 50 GB warnings;
//   - a query on the tenant prefix that reaches only the tenant's physical partition, shown from the
//     diagnostics.PartitionTracker, and a point read with the full key;
//   - the same write load on a /country-style key with 400 RU/s (100 RU/s per physical partition):
//     RU and 429s per physical partition make the hot partition and the hot key visible; then the
//     fix, the hot value spread over 8 suffixes (partitionkey.Sharded), under the same load.
//
// With COSMOS_ENDPOINT (or COSMOS_CONNECTION_STRING) unset it starts the in-process cosmostest
// server with 4 physical partitions per container and throughput limits enforced per partition, so
// it runs anywhere Go does, with no setup:
//
//	go run ./examples/saas-tenants
//
// With COSMOS_ENDPOINT set it uses that account (see cosmoskit.LoadConfig; COSMOS_DATABASE names the
// database, default "saas"). It creates three containers, two of them with 400 RU/s of manual
// throughput, and upserts its items, so running it again is safe. A new container on a real account
// usually has one physical partition, so nothing is reported hot there: the report says so.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/partitionstats"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, cosmoskit.ConfigFromEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "saas-tenants:", err)
		os.Exit(1)
	}
}

// The demo's data: one big tenant, a few small ones, and an order load where one country dominates.
const (
	bigTenant      = "contoso"
	bigTenantUsers = 30
	smallTenants   = 9
	orders         = 60
	hotCountry     = "US"
	hotShare       = 4 // 3 orders in 4 are from hotCountry
	shards         = 8
	workers        = 8
)

type tenantDoc struct {
	ID       string `json:"id"`
	TenantID string `json:"tenantId"`
	UserID   string `json:"userId"`
	Note     string `json:"note"`
}

type order struct {
	ID      string `json:"id"`
	Country string `json:"country"`
	Shard   string `json:"countryShard,omitempty"`
	Total   int    `json:"total"`
}

// demo holds what the steps share.
type demo struct {
	out     io.Writer
	client  *cosmoskit.Client
	db      string
	tracker *diagnostics.PartitionTracker
}

func (d *demo) say(format string, args ...any) { _, _ = fmt.Fprintf(d.out, format, args...) }

// run does the demo against cfg, or against an in-process cosmostest server when cfg names no
// account, writing what it did to out.
func run(ctx context.Context, out io.Writer, cfg cosmoskit.Config) error {
	d := &demo{out: out}
	if cfg.Endpoint == "" && cfg.ConnectionString == "" {
		srv, err := cosmostest.Start(cosmostest.WithPartitionCount(4), cosmostest.WithThroughputLimits())
		if err != nil {
			return fmt.Errorf("start cosmostest: %w", err)
		}
		defer srv.Close()
		cfg.Endpoint, cfg.Key = srv.Endpoint(), srv.Key()
		d.say("COSMOS_ENDPOINT is not set: started an in-process cosmostest server (4 physical partitions per container, throughput limits on)\n")
	}
	if cfg.Database == "" {
		cfg.Database = "saas"
	}
	d.db = cfg.Database
	tracker, err := diagnostics.NewPartitionTracker(diagnostics.TrackerOptions{})
	if err != nil {
		return err
	}
	d.tracker = tracker
	// Per retry, so that throttled attempts that were retried are counted too.
	cfg.PerRetryPolicies = append(slices.Clip(cfg.PerRetryPolicies), tracker)
	client, err := cosmoskit.New(cfg)
	if err != nil {
		return err
	}
	defer client.Close()
	d.client = client

	if err := d.tenants(ctx); err != nil {
		return err
	}
	return d.hotKey(ctx)
}

// tenants is the hierarchical-key part: write, storage report, prefix query, point read.
func (d *demo) tenants(ctx context.Context) error {
	res, err := d.client.EnsureContainer(ctx, d.db, cosmoskit.ContainerSpec{ID: "tenants", PartitionKeyPaths: []string{"/tenantId", "/userId"}})
	if err != nil {
		return err
	}
	c := res.Container
	def, err := partitionkey.ReadDefinition(ctx, c)
	if err != nil {
		return err
	}
	d.say("\n== hierarchical key %s (%s, values up to %d bytes) ==\n", strings.Join(def.Paths(), ", "), def.Kind(), def.MaxBytes())

	// Keys are built from the container's own definition: a wrong number of levels or an
	// over-long value is refused here, before any request.
	if _, err := def.Key(bigTenant); err != nil {
		d.say("refused before sending: %v\n", err)
	}
	n := 0
	put := func(tenant, user string, i int) error {
		pk, err := def.Key(tenant, user)
		if err != nil {
			return err
		}
		doc, _ := json.Marshal(tenantDoc{ID: fmt.Sprint("note-", i), TenantID: tenant, UserID: user, Note: strings.Repeat("n", 200)})
		_, err = c.UpsertItem(ctx, pk.SDK(), doc, nil)
		n++
		return err
	}
	for u := range bigTenantUsers {
		for i := range 2 {
			if err := put(bigTenant, fmt.Sprintf("user-%02d", u), i); err != nil {
				return err
			}
		}
	}
	for t := range smallTenants {
		for u := range 2 {
			if err := put(fmt.Sprintf("tenant-%02d", t), fmt.Sprintf("user-%02d", u), 0); err != nil {
				return err
			}
		}
	}
	d.say("wrote %d documents: tenant %q with %d users (%d logical partitions), %d small tenants\n", n, bigTenant, bigTenantUsers, bigTenantUsers, smallTenants)

	st, err := partitionstats.ReadStorage(ctx, c, partitionstats.StorageOptions{})
	if err != nil {
		return err
	}
	d.say("storage (x-ms-documentdb-populatepartitionstatistics): %d documents, %d KB\n", st.DocumentCount, st.UsageKB)
	for _, p := range st.Partitions {
		d.say("  physical partition %s: %d documents, %d KB, about %d logical partitions\n", p.ID, p.DocumentCount, p.SizeKB, p.SampledDistinctKeys)
	}
	if len(st.Largest) > 0 {
		k, _ := json.Marshal(st.Largest[0].Key)
		d.say("  largest logical partition: %s, %d KB in physical partition %s (warned from %.0f%% of 20 GB)\n", k, st.Largest[0].SizeKB, st.Largest[0].PhysicalPartition, 100*partitionstats.DefaultWarnFraction)
	}
	if len(st.Warnings) == 0 {
		d.say("  no logical partition near 20 GB, no physical partition near 50 GB\n")
	}
	for _, w := range st.Warnings {
		d.say("  WARNING: %s\n", w)
	}

	// A query on the tenant prefix: routed to the physical partition(s) that hold the tenant.
	prefix, err := def.Prefix(bigTenant)
	if err != nil {
		return err
	}
	d.tracker.Reset()
	items := 0
	pager := c.NewQueryItemsPager("SELECT * FROM c", prefix.SDK(), nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return err
		}
		items += len(page.Items)
	}
	var reached []string
	for _, p := range d.tracker.Report(diagnostics.ReportOptions{}).Partitions {
		if p.Container == "tenants" {
			reached = append(reached, p.PartitionKeyRangeID)
		}
	}
	d.say("prefix query [%q]: %d documents from physical partition(s) %v of %d (from diagnostics)\n", bigTenant, items, reached, len(st.Partitions))

	pk, err := def.Key(bigTenant, "user-07")
	if err != nil {
		return err
	}
	d.tracker.Reset()
	resp, err := c.ReadItem(ctx, pk.SDK(), "note-1", nil)
	if err != nil {
		return err
	}
	reached = reached[:0]
	for _, p := range d.tracker.Report(diagnostics.ReportOptions{}).Partitions {
		reached = append(reached, p.PartitionKeyRangeID)
	}
	d.say("point read [%q, %q] id note-1: %.2f RU, physical partition %v\n", bigTenant, "user-07", resp.RequestCharge, reached)
	return nil
}

// hotKey runs the same order load on a /country key and on the sharded fix, and prints RU and 429s
// per physical partition.
func (d *demo) hotKey(ctx context.Context) error {
	res, err := d.client.EnsureContainer(ctx, d.db, cosmoskit.ContainerSpec{ID: "orders", PartitionKeyPaths: []string{"/country"}, ManualThroughput: 400})
	if err != nil {
		return err
	}
	byCountry := res.Container
	countryDef, err := partitionkey.ReadDefinition(ctx, byCountry)
	if err != nil {
		return err
	}
	st, err := partitionstats.ReadStorage(ctx, byCountry, partitionstats.StorageOptions{})
	if err != nil {
		return err
	}
	nparts := len(st.Partitions)
	ids := make([]string, nparts)
	for i, p := range st.Partitions {
		ids[i] = p.ID
	}
	d.say("\n== /country key, 400 RU/s over %d physical partitions (%d RU/s each); %d orders, 3 in 4 from %q ==\n", nparts, 400/max(nparts, 1), orders, hotCountry)
	d.tracker.Reset()
	start := time.Now()
	err = d.load(ctx, func(o order) error {
		pk, err := countryDef.Key(o.Country)
		if err != nil {
			return err
		}
		doc, _ := json.Marshal(o)
		_, err = byCountry.UpsertItem(ctx, pk.SDK(), doc, nil)
		return err
	})
	if err != nil {
		return err
	}
	d.report("orders", ids, time.Since(start))

	// The fix: the hot value spread over suffixes chosen by a hash of the order id. A point read
	// recomputes the suffix from the id; a read of all of a country's orders fans out over the
	// suffixes (partitionkey.FanOut).
	res, err = d.client.EnsureContainer(ctx, d.db, cosmoskit.ContainerSpec{ID: "orders-sharded", PartitionKeyPaths: []string{"/countryShard"}, ManualThroughput: 400})
	if err != nil {
		return err
	}
	sharded := res.Container
	s := partitionkey.Sharded{Count: shards}
	d.say("\n== the fix: /countryShard = country-0..%d by a hash of the order id, same load ==\n", shards-1)
	d.tracker.Reset()
	start = time.Now()
	err = d.load(ctx, func(o order) error {
		shard, err := s.Value(o.Country, o.ID)
		if err != nil {
			return err
		}
		o.Shard = shard
		doc, _ := json.Marshal(o)
		_, err = sharded.UpsertItem(ctx, azcosmos.NewPartitionKeyString(shard), doc, nil)
		return err
	})
	if err != nil {
		return err
	}
	d.report("orders-sharded", ids, time.Since(start))

	all, err := partitionkey.FanOut(ctx, s, hotCountry, func(ctx context.Context, pk partitionkey.Key) ([]order, error) {
		var got []order
		pager := sharded.NewQueryItemsPager("SELECT * FROM c", pk.SDK(), nil)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				return nil, err
			}
			for _, b := range page.Items {
				var o order
				if err := json.Unmarshal(b, &o); err != nil {
					return nil, err
				}
				got = append(got, o)
			}
		}
		return got, nil
	})
	if err != nil {
		return err
	}
	d.say("read back all %q orders over the %d suffixes: %d orders\n", hotCountry, shards, len(all))
	return nil
}

// load writes the order load with a few concurrent workers: 3 in 4 orders from hotCountry, the
// rest spread over 8 other countries.
func (d *demo) load(ctx context.Context, write func(order) error) error {
	jobs := make(chan order)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range jobs {
				if err := write(o); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	others := []string{"BR", "DE", "FR", "IN", "JP", "KE", "MX", "NZ"}
	var err error
send:
	for i := range orders {
		o := order{ID: fmt.Sprintf("order-%03d", i), Country: hotCountry, Total: 10 + i}
		if i%hotShare == hotShare-1 {
			o.Country = others[(i/hotShare)%len(others)]
		}
		select {
		case jobs <- o:
		case err = <-errs:
			break send
		case <-ctx.Done():
			err = ctx.Err()
			break send
		}
	}
	close(jobs)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return err
}

// report prints the tracker's per-partition figures for container, every physical partition in ids
// (the idle ones too), hot ones marked.
func (d *demo) report(container string, ids []string, took time.Duration) {
	rep := d.tracker.Report(diagnostics.ReportOptions{PhysicalPartitions: len(ids)})
	byID := map[string]diagnostics.PartitionUsage{}
	for _, p := range rep.Partitions {
		if p.Container == container {
			byID[p.PartitionKeyRangeID] = p
			if !slices.Contains(ids, p.PartitionKeyRangeID) { // a split since the storage read
				ids = append(ids, p.PartitionKeyRangeID)
			}
		}
	}
	var throttles int64
	for _, id := range ids {
		p := byID[id]
		mark := ""
		if p.Hot {
			mark = "  <- HOT"
		}
		throttles += p.Throttles
		d.say("  physical partition %s: %7.2f RU (%3.0f%%), %3d requests, %3d x 429%s\n", id, p.RequestCharge, 100*p.Share, p.Requests, p.Throttles, mark)
	}
	hot := 0
	for _, k := range rep.Keys {
		if k.Container == container && k.Hot {
			hot++
			d.say("  hot logical partition %s: %.0f%% of the RU, in physical partition %s\n", k.Key, 100*k.Share, k.PartitionKeyRangeID)
		}
	}
	if hot == 0 {
		d.say("  no logical partition takes more than a physical partition's fair share\n")
	}
	if len(ids) < 2 {
		d.say("  (one physical partition: hot-partition detection needs at least two)\n")
	}
	d.say("  %d throttled attempts in all, retried by cosmoskit; the load took %s\n", throttles, took.Round(100*time.Millisecond))
}
