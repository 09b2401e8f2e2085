// Command quickstart shows cosmoskit end to end in one short run: one client per process, a
// container provisioned with best-practice defaults, a typed repository.Repository (Create, a point
// Get, an Update guarded by the item's ETag and retried on a concurrent write, a parameterized query
// read page by page with continuation tokens), and a diagnostics.Meter that adds up what the run cost
// in request units.
//
// With COSMOS_ENDPOINT (or COSMOS_CONNECTION_STRING) unset it starts the in-process cosmostest server,
// so it runs anywhere Go does, with no setup:
//
//	go run ./examples/quickstart
//
// With COSMOS_ENDPOINT set it uses that account, authenticating with COSMOS_KEY,
// COSMOS_CONNECTION_STRING, or the default Azure credential (see cosmoskit.LoadConfig). COSMOS_DATABASE
// names the database (default "quickstart"). Running it again on the same account resets the three
// sample items.
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

// product is the quickstart's item type: a plain struct. The repository stamps the "type"
// discriminator and "schemaVersion" itself; embedding repository.Meta receives the ETag and timestamp.
type product struct {
	repository.Meta
	ID       string  `json:"id"`
	Category string  `json:"category"`
	Name     string  `json:"name"`
	Price    float64 `json:"price"`
}

// productKey tells the repository where a product lives: its id and partition key (/category).
func productKey(p product) (string, azcosmos.PartitionKey) {
	return p.ID, azcosmos.NewPartitionKeyString(p.Category)
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
		ID:                "products",
		PartitionKeyPaths: []string{"/category"},
		SortPaths:         []string{"/price"}, // composite indexes (type, price) for the query below
	}); err != nil {
		return err
	}
	say("database %q and container %q are ready (partition key /category)\n", cfg.Database, "products")

	products, err := repository.NewFromClient(client, cfg.Database, "products", repository.Options[product]{
		Type: "product",
		Key:  productKey,
	})
	if err != nil {
		return err
	}

	gear := azcosmos.NewPartitionKeyString("gear")
	created, reset := 0, 0
	for _, p := range []product{
		{ID: "tent", Category: "gear", Name: "Tent", Price: 120},
		{ID: "lamp", Category: "gear", Name: "Lamp", Price: 25},
		{ID: "stove", Category: "gear", Name: "Stove", Price: 60},
	} {
		_, err := products.Create(ctx, p) // never an upsert in disguise: a duplicate is cosmoserr.ErrConflict
		if errors.Is(err, cosmoserr.ErrConflict) {
			_, err = products.Upsert(ctx, p) // left by an earlier run on a real account
			reset++
		} else if err == nil {
			created++
		}
		if err != nil {
			return err
		}
	}
	say("created %d products in partition %q", created, "gear")
	if reset > 0 {
		say(" (%d left by an earlier run were reset)", reset)
	}
	say("\n")

	tent, err := products.Get(ctx, gear, "tent") // a point read by id and partition key, never a query
	if err != nil {
		return err
	}
	say("read %q by id and partition key: %s, %.2f\n", tent.ID, tent.Name, tent.Price)

	// Update reads, applies the change and replaces with If-Match on the ETag it read; if another
	// writer got there first it reads again and re-applies the change.
	updated, err := products.Update(ctx, gear, "tent", func(p *product) error {
		p.Price = 99
		return nil
	})
	if err != nil {
		return err
	}
	say("updated %q with an ETag check: price %.2f -> %.2f, new ETag: %t\n",
		updated.ID, tent.Price, updated.Price, updated.ETag != tent.ETag)

	// A template plus parameters: values never reach the SQL text. @type is bound to "product".
	const sql = "SELECT * FROM c WHERE c.type = @type AND c.price < @max ORDER BY c.price"
	q := repository.SQL(sql, repository.Param("@max", 100)).Partition(gear)
	token := ""
	for n := 1; ; n++ {
		page, err := products.Page(ctx, q, 2, token)
		if err != nil {
			return err
		}
		names := make([]string, len(page.Items))
		for i, p := range page.Items {
			names[i] = fmt.Sprintf("%s %.2f", p.Name, p.Price)
		}
		more := "last page"
		if page.Next != "" {
			more = "more with its continuation token"
		}
		say("query page %d: %s (%s)\n", n, strings.Join(names, ", "), more)
		if page.Next == "" {
			break
		}
		token = page.Next // opaque and URL-safe: hand it to the next HTTP request of a paging API
	}

	say("this run cost %.2f RU in %d calls\n", meter.RequestCharge(), meter.Requests())
	return nil
}
