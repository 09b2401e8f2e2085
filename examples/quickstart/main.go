// Command quickstart shows cosmoskit end to end: one client per process, a container provisioned with
// best-practice defaults, an item written and read back with its request charge, and a query.
//
// With COSMOS_ENDPOINT (or COSMOS_CONNECTION_STRING) unset it starts the in-process cosmostest server,
// so it runs anywhere Go does:
//
//	go run ./examples/quickstart
//
// With COSMOS_ENDPOINT set it uses that account, authenticating with COSMOS_KEY,
// COSMOS_CONNECTION_STRING, or the default Azure credential (see cosmoskit.LoadConfig). COSMOS_DATABASE
// names the database (default "quickstart").
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, cosmoskit.ConfigFromEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// product is the item type the quickstart stores. Every item carries a type discriminator, which leads
// the container's default composite indexes.
type product struct {
	ID       string  `json:"id"`
	Type     string  `json:"type"`
	Category string  `json:"category"`
	Name     string  `json:"name"`
	Price    float64 `json:"price"`
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

	client, err := cosmoskit.New(cfg)
	if err != nil {
		return err
	}
	defer client.Close()
	if !embedded {
		say("using the account at %s\n", client.Endpoint())
	}

	container, err := client.EnsureContainer(ctx, cfg.Database, cosmoskit.ContainerSpec{
		ID:                "products",
		PartitionKeyPaths: []string{"/category"},
		SortPaths:         []string{"/price"},
	})
	if err != nil {
		return err
	}
	say("database %q and container %q are ready (partition key /category)\n", cfg.Database, "products")

	items := []product{
		{ID: "tent", Type: "product", Category: "gear", Name: "Tent", Price: 120},
		{ID: "lamp", Type: "product", Category: "gear", Name: "Lamp", Price: 25},
		{ID: "stove", Type: "product", Category: "gear", Name: "Stove", Price: 60},
	}
	pk := azcosmos.NewPartitionKeyString("gear")
	var charge float32
	for _, it := range items {
		body, err := json.Marshal(it)
		if err != nil {
			return err
		}
		resp, err := container.UpsertItem(ctx, pk, body, nil)
		if err != nil {
			return fmt.Errorf("upsert %s: %w", it.ID, err)
		}
		charge += resp.RequestCharge
	}
	say("upserted %d items into partition %q (%.2f RU)\n", len(items), "gear", charge)

	read, err := container.ReadItem(ctx, pk, "tent", nil)
	if err != nil {
		return fmt.Errorf("read tent: %w", err)
	}
	var got product
	if err := json.Unmarshal(read.Value, &got); err != nil {
		return err
	}
	say("read item %q back: %s, %.2f (%.2f RU)\n", got.ID, got.Name, got.Price, read.RequestCharge)

	const query = "SELECT * FROM c WHERE c.type = @type AND c.price < @max"
	pager := container.NewQueryItemsPager(query, pk, &azcosmos.QueryOptions{
		QueryParameters: []azcosmos.QueryParameter{{Name: "@type", Value: "product"}, {Name: "@max", Value: 100}},
	})
	var names []string
	charge = 0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("query: %w", err)
		}
		charge += page.RequestCharge
		for _, raw := range page.Items {
			var p product
			if err := json.Unmarshal(raw, &p); err != nil {
				return err
			}
			names = append(names, p.Name)
		}
	}
	say("query %q returned %d items (%.2f RU): %s\n", query, len(names), charge, strings.Join(names, ", "))
	return nil
}
