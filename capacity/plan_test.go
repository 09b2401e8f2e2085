package capacity_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/capacity"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// workedExample is issue 28's: 500 RPS of 2 KB point reads, 50 RPS creates, 20 RPS updates, 5 RPS
// of a cross-partition query, over 200 GB, single region.
func workedExample() capacity.Workload {
	return capacity.Workload{
		DataGB: 200,
		Patterns: []capacity.Pattern{
			{Name: "get-order", Kind: capacity.Read, PeakRPS: 500, DocumentKB: 2},
			{Name: "create-order", Kind: capacity.Create, PeakRPS: 50, DocumentKB: 2},
			{Name: "update-order", Kind: capacity.Replace, PeakRPS: 20, DocumentKB: 2},
			{Name: "orders-by-status", Kind: capacity.Query, PeakRPS: 5, CrossPartition: true},
		},
	}
}

func mustPlan(t *testing.T, w capacity.Workload) *capacity.Plan {
	t.Helper()
	p, err := capacity.New(w)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.005 }

func TestWorkedExample(t *testing.T) {
	p := mustPlan(t, workedExample())
	// The documented table: a 2 KB read 1.04 RU, a 2 KB write 6.29 (the replace 2×); the query 2.8
	// per partition (5) + 0.1 per document loaded + 0.1 per KB returned.
	wantRU := map[string]float64{"get-order": 1.04, "create-order": 6.29, "update-order": 12.58, "orders-by-status": 14.2}
	for _, pp := range p.Patterns {
		if !near(pp.RU, wantRU[pp.Name]) || pp.Source != capacity.SourceModel {
			t.Errorf("%s: RU %v (%s), want %v (model)", pp.Name, pp.RU, pp.Source, wantRU[pp.Name])
		}
	}
	// 520 + 314.5 + 251.6 + 71.
	if !near(p.PeakRUs, 1157.1) {
		t.Errorf("PeakRUs = %v, want 1157.1", p.PeakRUs)
	}
	// 200 GB + 20% index = 240 GB: 5 partitions of 50 GB.
	if !near(p.StorageGB, 240) || p.Partitions != 5 || p.PartitionsForStorage != 5 || p.PartitionsForThroughput != 1 {
		t.Errorf("storage %v GB, partitions = %d (storage %d, throughput %d), want 240, 5 (5, 1)", p.StorageGB, p.Partitions, p.PartitionsForStorage, p.PartitionsForThroughput)
	}
	if p.Manual.RUs != 1200 || p.ProvisionedRUs != 1200 || !near(p.PerPartitionRUs, 240) {
		t.Errorf("manual = %d, provisioned %d, per partition %v; want 1200, 1200, 240", p.Manual.RUs, p.ProvisionedRUs, p.PerPartitionRUs)
	}
	// 12 × $0.008 × 720 h = $69.12; 240 GB × $0.25 = $60.
	if !near(p.Manual.MonthlyCost, 69.12) || !near(p.ThroughputMonthly, 69.12) || !near(p.StorageMonthly, 60) || !near(p.TotalMonthly, 129.12) {
		t.Errorf("cost = %v throughput + %v storage = %v, want 69.12 + 60 = 129.12", p.ThroughputMonthly, p.StorageMonthly, p.TotalMonthly)
	}
	// Autoscale: max(peak, 10 × 240 GB) = 3000 RU/s; at peak all month 30 × $0.012 × 720.
	if p.Autoscale.MaxRUs != 3000 || !near(p.Autoscale.MonthlyCostAtPeak, 259.2) {
		t.Errorf("autoscale = %d, %v at peak; want 3000, 259.2", p.Autoscale.MaxRUs, p.Autoscale.MonthlyCostAtPeak)
	}
	if !hasWarning(p, "cross-partition-query", "orders-by-status") {
		t.Errorf("no cross-partition warning: %v", p.Warnings)
	}
}

func hasWarning(p *capacity.Plan, code, pattern string) bool {
	for _, w := range p.Warnings {
		if w.Code == code && w.Pattern == pattern {
			return true
		}
	}
	return false
}

func one(k capacity.Kind, rps float64) capacity.Workload {
	return capacity.Workload{Patterns: []capacity.Pattern{{Name: "p", Kind: k, PeakRPS: rps}}}
}

// The correction of seed 004's price: per 100 RU/s per hour, not per RU. Its autoscale example's
// 10,000 RU/s ≈ $584/month is $0.008 per 100 RU/s over 730 hours.
func TestPricePer100RUsHour(t *testing.T) {
	w := one(capacity.Read, 10_000)
	w.Prices.HoursPerMonth = 730
	p := mustPlan(t, w)
	if p.Manual.RUs != 10_000 || !near(p.Manual.MonthlyCost, 584) {
		t.Errorf("10,000 RU/s manual = %v/month, want 584", p.Manual.MonthlyCost)
	}
}

// Partitions at creation = max(ceil(GB/50), ceil(RU/s / 6,000)) ("Best practices for scaling
// provisioned throughput": 25,000 RU/s starts with 5 physical partitions), GB counting the index.
func TestPartitions(t *testing.T) {
	for _, tc := range []struct {
		gb, index, rps float64
		want           int
	}{
		{0, 0, 100, 1}, {50, 0, 100, 1}, {50.5, 0, 100, 2}, {0, 0, 6000, 1}, {0, 0, 6001, 2},
		{0, 0, 25_000, 5}, {120, 0, 25_000, 5}, {400, 0, 25_000, 8},
		{45, 0.2, 100, 2}, // 45 GB of data + 9 GB of index = 54 GB: two partitions, not one
	} {
		w := one(capacity.Read, tc.rps)
		w.DataGB, w.IndexOverhead, w.DisableIndexOverhead = tc.gb, tc.index, tc.index == 0
		if p := mustPlan(t, w); p.Partitions != tc.want {
			t.Errorf("%v GB, %v RU/s: %d partitions, want %d", tc.gb, tc.rps, p.Partitions, tc.want)
		}
	}
}

// The cross-partition charge follows the partition count that the throughput itself raises.
func TestCrossPartitionGrowsPartitions(t *testing.T) {
	w := capacity.Workload{Patterns: []capacity.Pattern{
		{Name: "reads", Kind: capacity.Read, PeakRPS: 19_990},
		{Name: "scan", Kind: capacity.Query, PeakRPS: 10, CrossPartition: true},
	}}
	p := mustPlan(t, w)
	// 19,990 + 10 × (2.8 + 0.2) = 20,020 RU/s → 4 partitions → 10 × (2.8 × 4 + 0.2) = 114 → 20,104.
	if p.Partitions != 4 || !near(p.Patterns[1].RU, 11.4) || !near(p.PeakRUs, 20_104) {
		t.Errorf("partitions %d, query RU %v, peak %v; want 4, 11.4, 20104", p.Partitions, p.Patterns[1].RU, p.PeakRUs)
	}
}

// The manual floor: max(400, GB × 1 RU/s, highest ever / 100).
func TestManualFloor(t *testing.T) {
	for _, tc := range []struct {
		gb, highest float64
		want        int
	}{
		{0, 0, 400}, {350, 0, 500}, {1234, 0, 1500}, {10, 90_000, 900}, // 1 RU/s per GB of data + 20% index
	} {
		w := one(capacity.Read, 10)
		w.DataGB, w.HighestProvisionedRUs = tc.gb, tc.highest
		p := mustPlan(t, w)
		if p.Manual.FloorRUs != tc.want || p.Manual.RUs != tc.want {
			t.Errorf("%v GB, highest %v: floor %d, RUs %d; want %d", tc.gb, tc.highest, p.Manual.FloorRUs, p.Manual.RUs, tc.want)
		}
		if !hasWarning(p, "throughput-floor", "") {
			t.Errorf("%v GB: no floor warning", tc.gb)
		}
	}
}

// Every region multiplies throughput and storage; zone redundancy adds 25% to throughput with
// single-region writes only.
func TestRegionsAndZones(t *testing.T) {
	base := mustPlan(t, workedExample())
	w := workedExample()
	w.Regions = 3
	p := mustPlan(t, w)
	if !near(p.ThroughputMonthly, 3*base.ThroughputMonthly) || !near(p.StorageMonthly, 180) {
		t.Errorf("3 regions: %v + %v, want %v + 180", p.ThroughputMonthly, p.StorageMonthly, 3*base.ThroughputMonthly)
	}
	w.ZoneRedundant = true
	p = mustPlan(t, w)
	if !near(p.ThroughputMonthly, 3*1.25*base.ThroughputMonthly) {
		t.Errorf("zone redundant: %v, want %v", p.ThroughputMonthly, 3*1.25*base.ThroughputMonthly)
	}
	// Multi-region writes: twice the rate, no zone surcharge.
	w.MultiRegionWrites = true
	p = mustPlan(t, w)
	if !near(p.ThroughputMonthly, 6*base.ThroughputMonthly) {
		t.Errorf("zone redundant, multi-write: %v, want %v", p.ThroughputMonthly, 6*base.ThroughputMonthly)
	}
}

// Strong and Bounded Staleness reads cost 2×; writes do not.
func TestStrongReadsCostDouble(t *testing.T) {
	for _, c := range []capacity.Consistency{capacity.Strong, capacity.BoundedStaleness} {
		w := capacity.Workload{Consistency: c, Patterns: []capacity.Pattern{
			{Name: "r", Kind: capacity.Read, PeakRPS: 1, DocumentKB: 3},
			{Name: "q", Kind: capacity.Query, PeakRPS: 1},
			{Name: "w", Kind: capacity.Create, PeakRPS: 1},
			{Name: "e", Kind: capacity.Read, PeakRPS: 1, Consistency: capacity.Eventual},
		}}
		p := mustPlan(t, w)
		got := []float64{p.Patterns[0].RU, p.Patterns[1].RU, p.Patterns[2].RU, p.Patterns[3].RU}
		// 3 KB read 1.09 × 2; query (2.8 + 0.1 + 0.1) × 2; 1 KB write 4.95; eventual read 1.
		if want := []float64{2.18, 6, 4.95, 1}; !slicesNear(got, want) {
			t.Errorf("%s: RU %v, want %v", c, got, want)
		}
	}
}

func slicesNear(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestBinningWarning(t *testing.T) {
	if p := mustPlan(t, one(capacity.Create, 10_000)); hasWarning(p, "binning", "") {
		t.Error("10,000 writes/s warned")
	}
	if p := mustPlan(t, one(capacity.Upsert, 10_001)); !hasWarning(p, "binning", "") {
		t.Error("10,001 writes/s not warned")
	}
}

// Measured beats declared beats the model; the output shows all three.
func TestMeasuredDeclaredModel(t *testing.T) {
	w := capacity.Workload{Patterns: []capacity.Pattern{
		{Name: "m", Kind: capacity.Read, PeakRPS: 10, RU: 1.5},
		{Name: "d", Kind: capacity.Read, PeakRPS: 10, RU: 1.5},
		{Name: "x", Kind: capacity.Create, PeakRPS: 10},
	}}.WithMeasurements(capacity.Measurement{Pattern: "m", MeanRU: 4}, capacity.Measurement{Pattern: "x", MeanRU: 5.71})
	p := mustPlan(t, w)
	for i, want := range []struct {
		ru  float64
		src capacity.Source
	}{{4, capacity.SourceMeasured}, {1.5, capacity.SourceDeclared}, {5.71, capacity.SourceMeasured}} {
		if pp := p.Patterns[i]; !near(pp.RU, want.ru) || pp.Source != want.src {
			t.Errorf("%s: %v (%s), want %v (%s)", pp.Name, pp.RU, pp.Source, want.ru, want.src)
		}
	}
	if !hasWarning(p, "measured-differs", "m") || hasWarning(p, "measured-differs", "x") {
		t.Errorf("warnings %v: want measured-differs for m only", p.Warnings)
	}
	for _, out := range []string{p.Table(), p.Markdown()} {
		if !strings.Contains(out, "measured") || !strings.Contains(out, "4.00") || !strings.Contains(out, "1.50") {
			t.Errorf("output lacks measured vs declared:\n%s", out)
		}
	}
}

func TestValidationNamesTheField(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		field string
		edit  func(*capacity.Workload)
	}{
		{"Workload.Patterns", func(w *capacity.Workload) { w.Patterns = nil }},
		{"Workload.DataGB", func(w *capacity.Workload) { w.DataGB = -1 }},
		{"Workload.Regions", func(w *capacity.Workload) { w.Regions = -2 }},
		{"Workload.Mode", func(w *capacity.Workload) { w.Mode = "provisioned-ish" }},
		{"Workload.LoadShape", func(w *capacity.Workload) { w.LoadShape = make([]float64, 23) }},
		{"Workload.LoadShape[3]", func(w *capacity.Workload) { w.LoadShape = capacity.PeakHours(2, 0.1); w.LoadShape[3] = 1.5 }},
		{"Workload.Prices.ReservedDiscount", func(w *capacity.Workload) { w.Prices.ReservedDiscount = 0.9 }},
		{"Workload.IndexedProperties", func(w *capacity.Workload) { w.Indexing = capacity.IndexingNone; w.IndexedProperties = 3 }},
		{"Workload.Consistency", func(w *capacity.Workload) { w.Consistency = "strong-ish" }},
		{"Workload.Prices.StoragePerGBMonth", func(w *capacity.Workload) { w.Prices.StoragePerGBMonth = nan }},
		{"Workload.Patterns[2].PeakRPS", func(w *capacity.Workload) { w.Patterns[2].PeakRPS = 0 }},
		{"Workload.Patterns[1].Name", func(w *capacity.Workload) { w.Patterns[1].Name = "get-order" }},
		{"Workload.Patterns[0].Kind", func(w *capacity.Workload) { w.Patterns[0].Kind = "scan" }},
		{"Workload.Patterns[0].AverageRPS", func(w *capacity.Workload) { w.Patterns[0].AverageRPS = 501 }},
		{"Workload.Patterns[0].DocumentKB", func(w *capacity.Workload) { w.Patterns[0].DocumentKB = 4096 }},
		{"Workload.Patterns[0].CrossPartition", func(w *capacity.Workload) { w.Patterns[0].CrossPartition = true }},
		{"Workload.Patterns[3].RU", func(w *capacity.Workload) { w.Patterns[3].RU = math.Inf(1) }},
	} {
		w := workedExample()
		tc.edit(&w)
		_, err := capacity.New(w)
		var ve *cosmoserr.ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field || !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("%s: got %v", tc.field, err)
			continue
		}
		if strings.Contains(err.Error(), "4096") || strings.Contains(err.Error(), "provisioned-ish") || strings.Contains(err.Error(), "strong-ish") {
			t.Errorf("%s: error echoes the value: %v", tc.field, err)
		}
	}
}

func TestOptionsReadBack(t *testing.T) {
	w := capacity.Workload{Patterns: []capacity.Pattern{{Name: "q", Kind: capacity.Query, PeakRPS: 2}}}.Options()
	if w.Regions != 1 || w.Mode != capacity.Manual || w.Consistency != capacity.Session {
		t.Errorf("workload defaults: %+v", w)
	}
	if pr := w.Prices; pr != (capacity.Prices{Currency: "USD", ManualPer100RUsHour: 0.008, AutoscalePer100RUsHour: 0.012,
		StoragePerGBMonth: 0.25, HoursPerMonth: 720, ZoneRedundancyFactor: 1.25, MultiRegionWritePer100RUsHour: 0.016,
		ServerlessPerMillionRU: 0.25}) {
		t.Errorf("price defaults: %+v", pr)
	}
	if pt := w.Patterns[0]; pt.AverageRPS != 2 || pt.DocumentKB != 1 || pt.ResultKB != 1 || pt.Consistency != capacity.Session {
		t.Errorf("pattern defaults: %+v", pt)
	}
	p := mustPlan(t, capacity.Workload{Patterns: []capacity.Pattern{{Name: "q", Kind: capacity.Query, PeakRPS: 2}}})
	if p.Workload.Prices.Currency != "USD" || p.Workload.Patterns[0].ResultKB != 1 {
		t.Errorf("plan's workload lacks defaults: %+v", p.Workload)
	}
}

// Autoscale bills each hour at its highest RU/s, at least 10% of the maximum ("Autoscale FAQ":
// "billed hourly for the highest throughput T the system scaled to within the hour"), whatever
// the average: a load that peaks every hour pays the peak every hour.
func TestAutoscaleHourlyBilling(t *testing.T) {
	w := capacity.Workload{Mode: capacity.Autoscale, Patterns: []capacity.Pattern{{Name: "r", Kind: capacity.Read, PeakRPS: 5000, AverageRPS: 200}}}
	p := mustPlan(t, w)
	// No load shape: every hour reaches 5,000 RU/s: 50 × $0.012 × 720 = $432, the average notwithstanding.
	if p.Autoscale.MaxRUs != 5000 || p.ProvisionedRUs != 5000 || !near(p.ThroughputMonthly, 432) || !near(p.Autoscale.MonthlyCostAtPeak, 432) {
		t.Errorf("autoscale %+v, throughput %v", p.Autoscale, p.ThroughputMonthly)
	}
	// Two hours a day at the peak, 22 at 5% (250 RU/s, billed at the 10% floor of 500):
	// (2 × 5,000 + 22 × 500) / 100 × $0.012 × 720 / 24 = $75.60.
	w.LoadShape = capacity.PeakHours(2, 0.05)
	p = mustPlan(t, w)
	if !near(p.Autoscale.MonthlyCost, 75.6) || p.Autoscale.HourlyBilledRUs[0] != 5000 || p.Autoscale.HourlyBilledRUs[5] != 500 {
		t.Errorf("shaped autoscale %v (hours %v), want 75.60", p.Autoscale.MonthlyCost, p.Autoscale.HourlyBilledRUs)
	}
	// The docs' example ("Autoscale FAQ"): an hour whose highest is 6,000 RU/s bills 60 × 1.5 =
	// 90 units of the manual rate: $0.72 at $0.008.
	one := capacity.Workload{Mode: capacity.Autoscale, Patterns: []capacity.Pattern{{Name: "r", Kind: capacity.Read, PeakRPS: 6000}}}
	one.Prices.HoursPerMonth = 1
	if p := mustPlan(t, one); !near(p.Autoscale.MonthlyCost, 0.72) {
		t.Errorf("one hour at 6,000 RU/s: %v, want 0.72", p.Autoscale.MonthlyCost)
	}
	// A steady load is cheaper manual, a spiky one autoscale; the advice says so.
	steady := capacity.Workload{Regions: 2, Mode: capacity.Autoscale, Patterns: []capacity.Pattern{{Name: "r", Kind: capacity.Read, PeakRPS: 5000}}}
	if p := mustPlan(t, steady); p.Recommended != capacity.Manual || !hasWarning(p, "mode", "") {
		t.Errorf("steady: recommended %s, warnings %v", p.Recommended, p.Warnings)
	}
	spiky := steady
	spiky.LoadShape = capacity.PeakHours(2, 0.05)
	if p := mustPlan(t, spiky); p.Recommended != capacity.Autoscale || hasWarning(p, "mode", "") {
		t.Errorf("spiky: recommended %s, warnings %v", p.Recommended, p.Warnings)
	}
}

// Multi-region writes are billed at twice the single-write rate, manual and autoscale alike
// (pricing page; "Autoscale FAQ"): 2 regions at 1,000 RU/s: 10 × $0.016 × 720 × 2 = $230.40, not $115.20.
func TestMultiRegionWritePricing(t *testing.T) {
	w := capacity.Workload{Regions: 2, MultiRegionWrites: true, Patterns: []capacity.Pattern{{Name: "r", Kind: capacity.Read, PeakRPS: 1000}}}
	p := mustPlan(t, w)
	if p.Manual.RUs != 1000 || !near(p.Manual.MonthlyCost, 230.4) {
		t.Errorf("manual %d RU/s: %v, want 230.40", p.Manual.RUs, p.Manual.MonthlyCost)
	}
	// Autoscale at the same rate: max 1,000, every hour at 1,000.
	if !near(p.Autoscale.MonthlyCost, 230.4) {
		t.Errorf("autoscale: %v, want 230.40", p.Autoscale.MonthlyCost)
	}
	w.MultiRegionWrites = false
	if p := mustPlan(t, w); !near(p.Manual.MonthlyCost, 115.2) {
		t.Errorf("single write: %v, want 115.20", p.Manual.MonthlyCost)
	}
}

// Serverless: per million RU consumed; 5,000 RU/s per physical partition; 1 TB per container;
// one region ("Azure Cosmos DB serverless account performance").
func TestServerless(t *testing.T) {
	// 100 reads/s of 1 KB on average: 100 × 3,600 × 720 = 259.2 M RU × $0.25 = $64.80.
	w := capacity.Workload{Mode: capacity.Serverless, DataGB: 10, DisableIndexOverhead: true,
		Patterns: []capacity.Pattern{{Name: "r", Kind: capacity.Read, PeakRPS: 4000, AverageRPS: 100}}}
	p := mustPlan(t, w)
	if !p.Serverless.Available || !near(p.Serverless.MonthlyRU, 259.2e6) || !near(p.Serverless.MonthlyCost, 64.8) || p.ProvisionedRUs != 5000 || !near(p.ThroughputMonthly, 64.8) {
		t.Errorf("serverless %+v, provisioned %d, throughput %v", p.Serverless, p.ProvisionedRUs, p.ThroughputMonthly)
	}
	for _, tc := range []struct {
		name string
		edit func(*capacity.Workload)
	}{
		{"over 5,000 RU/s on one partition", func(w *capacity.Workload) { w.Patterns[0].PeakRPS = 5001 }},
		{"over 1 TB", func(w *capacity.Workload) { w.DataGB = 1001 }},
		{"two regions", func(w *capacity.Workload) { w.Regions = 2 }},
	} {
		w2 := w
		w2.Patterns = append([]capacity.Pattern(nil), w.Patterns...)
		tc.edit(&w2)
		p := mustPlan(t, w2)
		if p.Serverless.Available || len(p.Serverless.Reasons) == 0 || !hasWarning(p, "serverless", "") || p.Recommended == capacity.Serverless {
			t.Errorf("%s: %+v, recommended %s", tc.name, p.Serverless, p.Recommended)
		}
	}
	// 5,000 RU/s per partition: 150 GB is 3 partitions, 15,000 RU/s.
	w.DataGB, w.Patterns[0].PeakRPS = 150, 14_000
	if p := mustPlan(t, w); !p.Serverless.Available || p.Serverless.MaxRUs != 15_000 {
		t.Errorf("150 GB: %+v", p.Serverless)
	}
}

// The free tier takes the first 1,000 RU/s and 25 GB off; reserved capacity a share of the
// provisioned throughput.
func TestPriceOptions(t *testing.T) {
	w := capacity.Workload{DataGB: 30, DisableIndexOverhead: true, FreeTier: true, Patterns: []capacity.Pattern{{Name: "r", Kind: capacity.Read, PeakRPS: 1000}}}
	p := mustPlan(t, w)
	if p.Manual.MonthlyCost != 0 || !near(p.StorageMonthly, 1.25) {
		t.Errorf("free tier: %v + %v, want 0 + 1.25 (5 GB)", p.Manual.MonthlyCost, p.StorageMonthly)
	}
	w.FreeTier = false
	w.Prices.ReservedDiscount = 0.2
	if p := mustPlan(t, w); !near(p.Manual.MonthlyCost, 46.08) { // 57.60 × 0.8
		t.Errorf("reserved 20%%: %v, want 46.08", p.Manual.MonthlyCost)
	}
}

// Beyond the default 1,000,000 RU/s per container the plan warns.
func TestContainerLimitWarning(t *testing.T) {
	if p := mustPlan(t, one(capacity.Read, 1_000_000)); hasWarning(p, "container-limit", "") {
		t.Error("1,000,000 RU/s warned")
	}
	if p := mustPlan(t, one(capacity.Read, 1_000_100)); !hasWarning(p, "container-limit", "") {
		t.Error("1,000,100 RU/s not warned")
	}
}

// Operation charges follow the documented table: a 100 KB read about 10 RU (not 100), a replace
// twice an insert, fewer indexed properties a cheaper write.
func TestOperationCharges(t *testing.T) {
	w := capacity.Workload{Patterns: []capacity.Pattern{
		{Name: "read", Kind: capacity.Read, PeakRPS: 1, DocumentKB: 100},
		{Name: "insert", Kind: capacity.Create, PeakRPS: 1},
		{Name: "replace", Kind: capacity.Replace, PeakRPS: 1},
	}}
	p := mustPlan(t, w)
	if r := p.Patterns[0].RU; r < 7 || r > 10.5 {
		t.Errorf("100 KB read %v RU, want about 10", r)
	}
	if !near(p.Patterns[2].RU, 2*p.Patterns[1].RU) || !near(p.Patterns[1].RU, 4.95) {
		t.Errorf("insert %v, replace %v; want 4.95 and twice that", p.Patterns[1].RU, p.Patterns[2].RU)
	}
	w.IndexedProperties = 20
	many := mustPlan(t, w)
	w.IndexedProperties, w.Indexing = 0, capacity.IndexingNone
	none := mustPlan(t, w)
	if !(none.Patterns[1].RU < p.Patterns[1].RU && p.Patterns[1].RU < many.Patterns[1].RU) {
		t.Errorf("insert RU none %v, default %v, 20 indexed %v: want increasing", none.Patterns[1].RU, p.Patterns[1].RU, many.Patterns[1].RU)
	}
}
