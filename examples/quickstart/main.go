// Command quickstart shows cosmoskit end to end in one short run: one client per process, a
// container of customers' orders partitioned by customer id (a high-cardinality key: one logical
// partition per customer) and provisioned with best-practice defaults, a typed
// repository.Repository (Create, a point Get, an Update guarded by the item's ETag and retried on a
// concurrent write, a parameterized query in the customer's partition read page by page with
// continuation tokens), and a diagnostics.Meter that adds up what the run cost in request units.
//
// With COSMOS_ENDPOINT (or COSMOS_CONNECTION_STRING) unset it starts the in-process cosmostest server,
// so it runs anywhere Go does, with no setup:
//
//	go run ./examples/quickstart
//
// With COSMOS_ENDPOINT set it uses that account, authenticating with COSMOS_KEY,
// COSMOS_CONNECTION_STRING, or the default Azure credential (see cosmoskit.LoadConfig). COSMOS_DATABASE
// names the database (default "quickstart"). Running it again on the same account resets the three
// sample orders.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, cosmoskit.ConfigFromEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// order is the quickstart's item type: a customer's order, a plain struct. The repository stamps
// the "type" discriminator and "schemaVersion" itself; embedding repository.Meta receives the ETag
// and timestamp.
type order struct {
	repository.Meta
	ID         string  `json:"id"`
	CustomerID string  `json:"customerId"`
	PlacedAt   string  `json:"placedAt"` // RFC 3339, UTC: sorts as text
	Status     string  `json:"status"`
	Lines      []line  `json:"lines"`
	Total      float64 `json:"total"`
}

// line is one product of an order.
type line struct {
	Product string  `json:"product"`
	Qty     int     `json:"qty"`
	Price   float64 `json:"price"`
}

// newOrder returns a placed order with its total.
func newOrder(id, customer, placedAt string, lines ...line) order {
	o := order{ID: id, CustomerID: customer, PlacedAt: placedAt, Status: "placed", Lines: lines}
	for _, l := range lines {
		o.Total += float64(l.Qty) * l.Price
	}
	return o
}

// orderKey tells the repository where an order lives: its id and partition key. The key is
// /customerId: many distinct values (one logical partition per customer, so storage and throughput
// spread over the physical partitions as customers grow), and the value every request of a
// customer's session already has, so reads are point reads and queries stay in one partition.
func orderKey(o order) (string, azcosmos.PartitionKey) {
	return o.ID, azcosmos.NewPartitionKeyString(o.CustomerID)
}

// run does the quickstart against cfg, or against an in-process cosmostest server when cfg names no
// account, writing what it did to out.
func run(ctx context.Context, out io.Writer, cfg cosmoskit.Config) error {
	say := func(format string, args ...any) { _, _ = fmt.Fprintf(out, format, args...) }
	embedded := cfg.Endpoint == "" && cfg.ConnectionString == ""
	if embedded {
		srv, err := cosmostest.Start()
		if err != nil {
			return fmt.Errorf("start cosmostest: %w", err)
		}
		defer srv.Close()
		cfg.Endpoint, cfg.Key = srv.Endpoint(), srv.Key()
		say("COSMOS_ENDPOINT is not set: started an in-process cosmostest server at %s\n", srv.Endpoint())
	}
	if cfg.Database == "" {
		cfg.Database = "quickstart"
	}

	client, err := cosmoskit.New(cfg) // one shared azcosmos client per account in the process
	if err != nil {
		return err
	}
	defer client.Close()
	if !embedded {
		say("using the account at %s\n", client.Endpoint())
	}

	// Every Cosmos DB call made with ctx from here on is added to the meter.
	ctx, meter := diagnostics.WithMeter(ctx)

	if _, err := client.EnsureContainer(ctx, cfg.Database, cosmoskit.ContainerSpec{
		ID:                "orders",
		PartitionKeyPaths: []string{"/customerId"}, // high cardinality: one logical partition per customer
		SortPaths:         []string{"/placedAt"},   // composite indexes (type, placedAt) for the query below
	}); err != nil {
		return err
	}
	say("database %q and container %q are ready (partition key /customerId)\n", cfg.Database, "orders")

	orders, err := repository.NewFromClient(client, cfg.Database, "orders", repository.Options[order]{
		Type: "order",
		Key:  orderKey,
	})
	if err != nil {
		return err
	}

	const customer = "ada"
	ada := azcosmos.NewPartitionKeyString(customer)
	created, reset := 0, 0
	for _, o := range []order{
		newOrder("o-1001", customer, "2026-03-01T09:30:00Z", line{Product: "tent", Qty: 1, Price: 120}),
		newOrder("o-1002", customer, "2026-03-02T14:05:00Z", line{Product: "lamp", Qty: 2, Price: 12.5}),
		newOrder("o-1003", customer, "2026-03-03T18:45:00Z", line{Product: "stove", Qty: 1, Price: 60}),
	} {
		_, err := orders.Create(ctx, o) // never an upsert in disguise: a duplicate is cosmoserr.ErrConflict
		if errors.Is(err, cosmoserr.ErrConflict) {
			_, err = orders.Upsert(ctx, o) // left by an earlier run on a real account
			reset++
		} else if err == nil {
			created++
		}
		if err != nil {
			return err
		}
	}
	say("created %d orders of customer %q", created, customer)
	if reset > 0 {
		say(" (%d left by an earlier run were reset)", reset)
	}
	say("\n")

	first, err := orders.Get(ctx, ada, "o-1001") // a point read by id and partition key, never a query
	if err != nil {
		return err
	}
	say("read %q by id and partition key: %d line(s), total %.2f, %s\n", first.ID, len(first.Lines), first.Total, first.Status)

	// Update reads, applies the change and replaces with If-Match on the ETag it read; if another
	// writer got there first it reads again and re-applies the change.
	shipped, err := orders.Update(ctx, ada, "o-1001", func(o *order) error {
		o.Status = "shipped"
		return nil
	})
	if err != nil {
		return err
	}
	say("updated %q with an ETag check: status %s -> %s, new ETag: %t\n",
		shipped.ID, first.Status, shipped.Status, shipped.ETag != first.ETag)

	// The customer's recent orders, newest first: a template plus parameters (values never reach
	// the SQL text; @type is bound to "order"), in the customer's partition only. Ordering by the
	// filtered type first lets the service serve it from the composite index SortPaths made.
	const sql = "SELECT * FROM c WHERE c.type = @type AND c.placedAt >= @since ORDER BY c.type DESC, c.placedAt DESC"
	q := repository.SQL(sql, repository.Param("@since", "2026-03-01T00:00:00Z")).Partition(ada)
	token := ""
	for n := 1; ; n++ {
		page, err := orders.Page(ctx, q, 2, token)
		if err != nil {
			return err
		}
		list := make([]string, len(page.Items))
		for i, o := range page.Items {
			list[i] = fmt.Sprintf("%s %.2f %s", o.ID, o.Total, o.Status)
		}
		more := "last page"
		if page.Next != "" {
			more = "more with its continuation token"
		}
		say("query page %d: %s (%s)\n", n, strings.Join(list, ", "), more)
		if page.Next == "" {
			break
		}
		token = page.Next // opaque and URL-safe: hand it to the next HTTP request of a paging API
	}

	say("this run cost %.2f RU in %d calls\n", meter.RequestCharge(), meter.Requests())
	return nil
}
