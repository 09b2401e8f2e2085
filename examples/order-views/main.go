// Command order-views keeps a materialized view in sync with the change feed: orders live in a
// container partitioned by customer, and two changefeed.Processor instances (as two replicas of
// a service would run) maintain an "orders by status" view in a container partitioned by status,
// so "all shipped orders" is a single-partition query. While the processors run, orders are
// created and moved through their statuses; at the end the view is printed with the estimated lag
// and checked against the orders.
//
// The view writes are idempotent, as change feed handlers must be (delivery is at least once):
// each order carries a version that grows with every write, a view entry is only replaced by a
// newer version (with If-Match), and the entries under other statuses are deleted only when
// older.
//
// With COSMOS_ENDPOINT (or COSMOS_CONNECTION_STRING) unset it starts an in-process cosmostest
// server with 4 physical partitions, so it runs with no setup:
//
//	go run ./examples/order-views
//
// With COSMOS_ENDPOINT set it uses that account (see cosmoskit.LoadConfig); COSMOS_DATABASE names
// the database (default "orderviews"). It creates the containers orders, views and leases if
// missing; running it again continues from the processors' checkpoints.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, cosmoskit.ConfigFromEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "order-views:", err)
		os.Exit(1)
	}
}

// statuses is the life of an order.
var statuses = []string{"pending", "paid", "shipped", "delivered"}

// order is the source document.
type order struct {
	repository.Meta
	ID         string `json:"id"`
	CustomerID string `json:"customerId"`
	Status     string `json:"status"`
	Total      int    `json:"total"`
	// Version grows with every write of the order; the view keeps the newest it has seen.
	Version int64 `json:"version"`
}

// entry is a view document: one per order, in the partition of its status.
type entry struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	CustomerID string `json:"customerId"`
	Total      int    `json:"total"`
	Version    int64  `json:"version"`
}

const nOrders, nChanges = 40, 120

func run(ctx context.Context, out io.Writer, cfg cosmoskit.Config) error {
	say := func(format string, args ...any) { _, _ = fmt.Fprintf(out, format, args...) }
	embedded := cfg.Endpoint == "" && cfg.ConnectionString == ""
	if embedded {
		srv, err := cosmostest.Start(cosmostest.WithPartitionCount(4))
		if err != nil {
			return fmt.Errorf("start cosmostest: %w", err)
		}
		defer srv.Close()
		cfg.Endpoint, cfg.Key = srv.Endpoint(), srv.Key()
		say("COSMOS_ENDPOINT is not set: started an in-process cosmostest server with 4 physical partitions\n")
	}
	if cfg.Database == "" {
		cfg.Database = "orderviews"
	}
	client, err := cosmoskit.New(cfg)
	if err != nil {
		return err
	}
	defer client.Close()
	if _, err := client.EnsureDatabase(ctx, cfg.Database, cosmoskit.DatabaseOptions{}); err != nil {
		return err
	}
	res, err := client.EnsureContainer(ctx, cfg.Database, cosmoskit.ContainerSpec{ID: "orders", PartitionKeyPaths: []string{"/customerId"}})
	if err != nil {
		return err
	}
	ordersC := res.Container
	// /status has a handful of values, so EnsureContainer warns at creation (a low-cardinality key):
	// every order of one status shares one logical partition, capped at 20 GB and 10,000 RU/s.
	// That is acceptable for this demo's few orders; at scale key the view by a hierarchical key
	// (/status, /bucket) with a bucket derived from the order id, and count per bucket.
	res, err = client.EnsureContainer(ctx, cfg.Database, cosmoskit.ContainerSpec{ID: "views", PartitionKeyPaths: []string{"/status"}})
	if err != nil {
		return err
	}
	viewsC := res.Container
	orders, err := repository.NewFromClient(client, cfg.Database, "orders", repository.Options[order]{ // the client's logger and diagnostics
		Type: "order",
		Key: func(o order) (string, azcosmos.PartitionKey) {
			return o.ID, azcosmos.NewPartitionKeyString(o.CustomerID)
		},
	})
	if err != nil {
		return err
	}
	say("containers orders (by /customerId), views (by /status) and leases (by /id) are ready\n")

	// Each instance dispatches order changes to the view; a Dispatcher decodes them to order.
	v := &view{c: viewsC}
	leases := changefeed.EnsureLeases(client.Cosmos(), cfg.Database, "leases")
	var procs []*changefeed.Processor
	defer func() {
		for _, p := range procs {
			_ = p.Stop(context.WithoutCancel(ctx))
		}
	}()
	for _, instance := range []string{"view-1", "view-2"} {
		d, err := changefeed.NewDispatcher(changefeed.DispatchOptions{})
		if err != nil {
			return err
		}
		h, err := changefeed.On(d, orders, v.apply).Handler()
		if err != nil {
			return err
		}
		p, err := changefeed.New(ordersC, changefeed.Options{
			Name:                    "orders-by-status",
			Instance:                instance,
			Leases:                  leases,
			Handler:                 h,
			StartFrom:               changefeed.StartFromBeginning(),
			PollInterval:            50 * time.Millisecond,
			LeaseAcquireInterval:    200 * time.Millisecond,
			LeaseRenewInterval:      500 * time.Millisecond,
			LeaseExpirationInterval: 5 * time.Second,
		})
		if err != nil {
			return err
		}
		if err := p.Start(ctx); err != nil {
			return err
		}
		procs = append(procs, p)
	}
	say("started processor %q as instances view-1 and view-2\n", "orders-by-status")

	// Orders change while the processors run.
	truth, err := writeOrders(ctx, orders)
	if err != nil {
		return err
	}
	say("wrote %d orders and %d status changes\n", nOrders, nChanges)

	// Wait until the processors have caught up and the view matches the orders.
	est := procs[0].Estimator()
	want := countByStatus(truth)
	deadline := time.Now().Add(time.Minute)
	var got map[string]int
	var lag int64
	for {
		if lag, err = est.Total(ctx); err != nil {
			return err
		}
		if got, err = v.counts(ctx); err != nil {
			return err
		}
		if lag == 0 && equal(got, want) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the view did not catch up in a minute: lag %d, view %v, orders %v", lag, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	parts := make([]string, len(statuses))
	for i, s := range statuses {
		parts[i] = fmt.Sprintf("%s %d", s, got[s])
	}
	say("view: %s\n", strings.Join(parts, ", "))
	say("estimated lag: %d changes\n", lag)
	say("view in sync with the %d orders: %t\n", nOrders, equal(got, want))
	held := make([]string, len(procs))
	for i, p := range procs {
		held[i] = fmt.Sprintf("%s %d", p.Instance(), len(p.State()))
	}
	say("leases held: %s\n", strings.Join(held, ", "))
	return nil
}

// writeOrders creates the orders and moves random ones to their next status, returning each
// order's final status.
func writeOrders(ctx context.Context, orders *repository.Repository[order]) (map[string]string, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	var last int64
	version := func() int64 { // strictly increasing, and above the versions of earlier runs
		last = max(last+1, time.Now().UnixMicro()) // below 2^53: exact in JSON
		return last
	}
	state := map[string]*order{}
	for i := range nOrders {
		o := &order{ID: fmt.Sprintf("order-%02d", i), CustomerID: fmt.Sprintf("customer-%d", i%8), Status: statuses[0], Total: 10 + rng.IntN(90)}
		o.Version = version()
		if _, err := orders.Upsert(ctx, *o); err != nil {
			return nil, err
		}
		state[o.ID] = o
	}
	for range nChanges {
		o := state[fmt.Sprintf("order-%02d", rng.IntN(nOrders))]
		for i, s := range statuses {
			if s == o.Status && i+1 < len(statuses) {
				o.Status = statuses[i+1]
				break
			}
		}
		o.Version = version()
		if _, err := orders.Upsert(ctx, *o); err != nil {
			return nil, err
		}
	}
	out := make(map[string]string, len(state))
	for id, o := range state {
		out[id] = o.Status
	}
	return out, nil
}

// view maintains the orders-by-status container.
type view struct {
	c *azcosmos.ContainerClient
}

// apply brings the view up to date with one order change, idempotently: replaying it, or an
// older version after a newer one, changes nothing.
func (v *view) apply(ctx context.Context, o order) error {
	cur, etag, err := v.read(ctx, o.Status, o.ID)
	if err != nil {
		return err
	}
	if cur == nil || cur.Version < o.Version {
		b, _ := json.Marshal(entry{ID: o.ID, Status: o.Status, CustomerID: o.CustomerID, Total: o.Total, Version: o.Version})
		pk := azcosmos.NewPartitionKeyString(o.Status)
		if cur == nil {
			_, err = v.c.CreateItem(ctx, pk, b, nil)
		} else {
			_, err = v.c.ReplaceItem(ctx, pk, o.ID, b, &azcosmos.ItemOptions{IfMatchEtag: &etag})
		}
		if err != nil {
			return err // a conflict or 412 means a concurrent write: the batch is delivered again
		}
	}
	for _, s := range statuses {
		if s == o.Status {
			continue
		}
		old, etag, err := v.read(ctx, s, o.ID)
		if err != nil {
			return err
		}
		if old != nil && old.Version < o.Version {
			_, err := v.c.DeleteItem(ctx, azcosmos.NewPartitionKeyString(s), o.ID, &azcosmos.ItemOptions{IfMatchEtag: &etag})
			if err != nil && status(err) != http.StatusNotFound {
				return err
			}
		}
	}
	return nil
}

func (v *view) read(ctx context.Context, s, id string) (*entry, azcore.ETag, error) {
	resp, err := v.c.ReadItem(ctx, azcosmos.NewPartitionKeyString(s), id, nil)
	if status(err) == http.StatusNotFound {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	var e entry
	if err := json.Unmarshal(resp.Value, &e); err != nil {
		return nil, "", err
	}
	return &e, resp.ETag, nil
}

// counts counts the view's entries per status: one single-partition query each.
func (v *view) counts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	for _, s := range statuses {
		pager := v.c.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c", azcosmos.NewPartitionKeyString(s), nil)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				return nil, err
			}
			for _, raw := range page.Items {
				var n int
				if err := json.Unmarshal(raw, &n); err != nil {
					return nil, err
				}
				out[s] += n
			}
		}
	}
	return out, nil
}

func countByStatus(truth map[string]string) map[string]int {
	out := map[string]int{}
	for _, s := range truth {
		out[s]++
	}
	return out
}

func equal(a, b map[string]int) bool {
	for _, s := range statuses {
		if a[s] != b[s] {
			return false
		}
	}
	return true
}

func status(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}
