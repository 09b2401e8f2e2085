package capacity_test

import (
	"fmt"

	"github.com/cosmoskit/cosmoskit-go/capacity"
)

// The worked example of issue 28: four access patterns over 200 GB in one region.
func Example() {
	plan, err := capacity.New(capacity.Workload{
		DataGB: 200,
		Patterns: []capacity.Pattern{
			{Name: "get-order", Kind: capacity.Read, PeakRPS: 500, DocumentKB: 2},
			{Name: "create-order", Kind: capacity.Create, PeakRPS: 50, DocumentKB: 2},
			{Name: "update-order", Kind: capacity.Replace, PeakRPS: 20, DocumentKB: 2},
			{Name: "orders-by-status", Kind: capacity.Query, PeakRPS: 5, CrossPartition: true},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("peak %.0f RU/s, %d partitions, manual %d RU/s: %.2f + %.2f storage = %.2f USD/month\n",
		plan.PeakRUs, plan.Partitions, plan.Manual.RUs, plan.ThroughputMonthly, plan.StorageMonthly, plan.TotalMonthly)
	for _, w := range plan.Warnings {
		fmt.Println(w.Code, w.Pattern)
	}
	// Output:
	// peak 1157 RU/s, 5 partitions, manual 1200 RU/s: 69.12 + 60.00 storage = 129.12 USD/month
	// cross-partition-query orders-by-status
}

// Plan.Table prints the plan; a measured figure replaces the model's.
func ExamplePlan_Table() {
	w := capacity.Workload{Patterns: []capacity.Pattern{
		{Name: "read", Kind: capacity.Read, PeakRPS: 100},
		{Name: "write", Kind: capacity.Upsert, PeakRPS: 20, DocumentKB: 1.5},
	}}
	plan, err := capacity.New(w.WithMeasurements(capacity.Measurement{Pattern: "write", MeanRU: 11.42}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(plan.Table())
	// Output:
	// pattern  kind    RU/op  source    model  declared  measured  peak RU/s  avg RU/s
	// read     read    1.00   model     1.00   -         -         100.00     100.00
	// write    upsert  11.42  measured  5.62   -         11.42     228.40     228.40
	// total                                                        328.40     328.40
	//
	// Data:                        0 GB + 0 GB index = 0 GB
	// Regions:                     1 (zone redundant: no, single-region writes)
	// Physical partitions:         1 (storage 1, throughput 1)
	// Manual throughput:           400 RU/s (floor 400), 23.04 USD/month
	// Autoscale throughput:        max 1000 RU/s (floor 1000), 28.37 USD/month hour by hour, 86.40 at peak
	// Serverless:                  up to 5000 RU/s, 851.2 M RU, 212.80 USD/month
	// Mode:                        manual: 400 RU/s, 400.00 RU/s per partition
	// Throughput cost:             23.04 USD/month
	// Storage cost:                0.00 USD/month
	// Total:                       23.04 USD/month
	// Recommended:                 manual: the load is steady enough that paying for 400 RU/s every hour (23.04 USD a month) costs less than autoscale's rate (1.5× manual's) on each hour's highest RU/s (28.37)
	// warning: measured-differs (write): measured 11.42 RU per operation against 5.62 declared or modelled; the plan uses the measured figure
	// warning: throughput-floor: the manual minimum of 400 RU/s (400, 1 RU/s per GB of data and index, a hundredth of the highest ever) exceeds the peak of 328 RU/s
}
