// Command capacity-modes compares the three ways to pay for Azure Cosmos DB throughput (manual,
// autoscale, serverless) for two workloads of the same order size, and prints which mode each
// should use and why:
//
//   - a spiky one: a shop's order API that peaks at 12,000 RU/s for two hours a day and runs at a
//     tenth of that the other 22 (its load shape, as the capacity calculator takes it);
//   - a steady one: telemetry ingestion at 3,000 RU/s around the clock.
//
// The figures are package capacity's: the documented charges per operation, list prices in USD,
// autoscale billed hour by hour on each hour's highest RU/s, serverless per million RU consumed.
// Nothing is sent anywhere:
//
//	go run ./examples/capacity-modes
//	go run ./examples/capacity-modes -html modes.html   # also writes the spiky plan's page
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cosmoskit/cosmoskit-go/capacity"
)

func main() {
	htmlPath := flag.String("html", "", "also write the spiky workload's plan as an HTML page to this file")
	flag.Parse()
	if err := run(os.Stdout, *htmlPath); err != nil {
		fmt.Fprintln(os.Stderr, "capacity-modes:", err)
		os.Exit(1)
	}
}

// spiky is an order API: reads, creates and a per-customer query, 2 hours a day at the peak.
func spiky() capacity.Workload {
	return capacity.Workload{
		DataGB: 100,
		// Two peak hours, the rest at a tenth of the peak.
		LoadShape: capacity.PeakHours(2, 0.1),
		Patterns: []capacity.Pattern{
			// Averages follow the shape: (2 × peak + 22 × peak/10) / 24 = 0.175 × peak.
			{Name: "get-order", Kind: capacity.Read, PeakRPS: 6000, AverageRPS: 1050, DocumentKB: 2},
			{Name: "create-order", Kind: capacity.Create, PeakRPS: 600, AverageRPS: 105, DocumentKB: 2},
			{Name: "customer-orders", Kind: capacity.Query, PeakRPS: 400, AverageRPS: 70, ResultKB: 8},
		},
	}
}

// steady is telemetry ingestion: small writes and a few reads, the same every hour.
func steady() capacity.Workload {
	return capacity.Workload{
		DataGB: 100,
		Patterns: []capacity.Pattern{
			{Name: "ingest", Kind: capacity.Create, PeakRPS: 550},
			{Name: "latest", Kind: capacity.Read, PeakRPS: 250},
		},
	}
}

func run(out io.Writer, htmlPath string) error {
	say := func(format string, args ...any) { _, _ = fmt.Fprintf(out, format, args...) }
	for _, c := range []struct {
		name string
		w    capacity.Workload
	}{{"spiky", spiky()}, {"steady", steady()}} {
		p, err := capacity.New(c.w)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		cur := p.Workload.Prices.Currency
		say("%s workload: peak %.0f RU/s, average %.0f RU/s, %g GB + %g GB index\n", c.name, p.PeakRUs, p.AverageRUs, p.Workload.DataGB, p.IndexGB)
		say("  manual      %6d RU/s            %9.2f %s/month\n", p.Manual.RUs, p.Manual.MonthlyCost+p.StorageMonthly, cur)
		say("  autoscale   max %6d RU/s        %9.2f %s/month (hour by hour; %.2f if every hour hit the max)\n",
			p.Autoscale.MaxRUs, p.Autoscale.MonthlyCost+p.StorageMonthly, cur, p.Autoscale.MonthlyCostAtPeak+p.StorageMonthly)
		serverless := "available"
		if !p.Serverless.Available {
			serverless = "not available"
		}
		say("  serverless  %7.1f M RU/month     %9.2f %s/month (%s, up to %d RU/s)\n",
			p.Serverless.MonthlyRU/1e6, p.Serverless.MonthlyCost+p.StorageMonthly, cur, serverless, p.Serverless.MaxRUs)
		say("  recommended: %s, because %s\n\n", p.Recommended, p.Why)
		if c.name == "spiky" && htmlPath != "" {
			if err := os.WriteFile(htmlPath, []byte(p.HTML()), 0o600); err != nil {
				return err
			}
			say("  wrote %s\n\n", htmlPath)
		}
	}
	return nil
}
