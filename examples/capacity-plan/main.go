// Command capacity-plan measures its own access patterns and prints the capacity and cost plan
// they imply (package capacity): each pattern's operation runs a few times under a
// diagnostics.Meter, and the plan uses the measured request units instead of the model's.
//
// With COSMOS_ENDPOINT (or COSMOS_CONNECTION_STRING) unset it measures on the in-process
// cosmostest server, whose charges are a model of the service's (see cosmostest/ru.go); set them to
// measure on a real account (COSMOS_DATABASE, default "capacityplan"; the run creates a container
// "orders" and a few items there):
//
//	go run ./examples/capacity-plan
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/capacity"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, cosmoskit.ConfigFromEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "capacity-plan:", err)
		os.Exit(1)
	}
}

// workload is the application's declared workload: its access patterns at peak, over 200 GB.
func workload() capacity.Workload {
	return capacity.Workload{
		DataGB: 200,
		Patterns: []capacity.Pattern{
			{Name: "get-order", Kind: capacity.Read, PeakRPS: 500, AverageRPS: 300, DocumentKB: 2},
			{Name: "create-order", Kind: capacity.Create, PeakRPS: 50, AverageRPS: 20, DocumentKB: 2},
			{Name: "update-order", Kind: capacity.Replace, PeakRPS: 20, AverageRPS: 10, DocumentKB: 2},
			{Name: "customer-orders", Kind: capacity.Query, PeakRPS: 30, AverageRPS: 10, ResultKB: 10},
		},
	}
}

// order builds an order item of a little under 2 KB with the system properties.
func order(id, customer string) []byte {
	return []byte(fmt.Sprintf(`{"id":%q,"customerId":%q,"type":"order","status":"open","lines":%q}`, id, customer, strings.Repeat("x", 1600)))
}

func run(ctx context.Context, out io.Writer, cfg cosmoskit.Config) error {
	say := func(format string, args ...any) { _, _ = fmt.Fprintf(out, format, args...) }
	if cfg.Endpoint == "" && cfg.ConnectionString == "" {
		srv, err := cosmostest.Start()
		if err != nil {
			return fmt.Errorf("start cosmostest: %w", err)
		}
		defer srv.Close()
		cfg.Endpoint, cfg.Key = srv.Endpoint(), srv.Key()
		say("measuring on an in-process cosmostest server (its RU model, not the service's charges)\n")
	}
	if cfg.Database == "" {
		cfg.Database = "capacityplan"
	}
	client, err := cosmoskit.New(cfg)
	if err != nil {
		return err
	}
	defer client.Close()
	res, err := client.EnsureContainer(ctx, cfg.Database, cosmoskit.ContainerSpec{ID: "orders", PartitionKeyPaths: []string{"/customerId"}})
	if err != nil {
		return err
	}
	orders := res.Container
	// Five orders of one customer for the reads, the updates and the query.
	cust := azcosmos.NewPartitionKeyString("c1")
	for i := range 5 {
		if _, err := orders.UpsertItem(ctx, cust, order(fmt.Sprint("o", i), "c1"), nil); err != nil {
			return err
		}
	}
	run := time.Now().UnixNano()
	n := 0
	ops := []struct {
		name string
		op   func(context.Context) error
	}{
		{"get-order", func(ctx context.Context) error {
			_, err := orders.ReadItem(ctx, cust, "o1", nil)
			return err
		}},
		{"create-order", func(ctx context.Context) error {
			n++
			id := fmt.Sprintf("new-%d-%d", run, n)
			_, err := orders.CreateItem(ctx, azcosmos.NewPartitionKeyString(id), order(id, id), nil)
			return err
		}},
		{"update-order", func(ctx context.Context) error {
			_, err := orders.ReplaceItem(ctx, cust, "o2", order("o2", "c1"), nil)
			return err
		}},
		{"customer-orders", func(ctx context.Context) error {
			pager := orders.NewQueryItemsPager("SELECT * FROM c WHERE c.customerId = @c AND c.type = 'order'", cust,
				&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@c", Value: "c1"}}})
			for pager.More() {
				if _, err := pager.NextPage(ctx); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	var ms []capacity.Measurement
	for _, o := range ops {
		m, err := capacity.Measure(ctx, o.name, o.op, capacity.MeasureOptions{Runs: 5, Warmup: 1})
		if err != nil {
			return err
		}
		say("measured %-16s %6.2f RU per operation (%d runs, %d requests)\n", o.name, m.MeanRU, m.Runs, m.Requests)
		ms = append(ms, m)
	}
	plan, err := capacity.New(workload().WithMeasurements(ms...))
	if err != nil {
		return err
	}
	say("\n%s", plan.Table())
	return nil
}
