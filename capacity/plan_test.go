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
	wantRU := map[string]float64{"get-order": 2, "create-order": 10, "update-order": 14, "orders-by-status": 13}
	for _, pp := range p.Patterns {
		if !near(pp.RU, wantRU[pp.Name]) || pp.Source != capacity.SourceModel {
			t.Errorf("%s: RU %v (%s), want %v (model)", pp.Name, pp.RU, pp.Source, wantRU[pp.Name])
		}
	}
	if !near(p.PeakRUs, 1845) {
		t.Errorf("PeakRUs = %v, want 1845", p.PeakRUs)
	}
	if p.Partitions != 4 || p.PartitionsForStorage != 4 || p.PartitionsForThroughput != 1 {
		t.Errorf("partitions = %d (storage %d, throughput %d), want 4 (4, 1)", p.Partitions, p.PartitionsForStorage, p.PartitionsForThroughput)
	}
	if p.Manual.RUs != 1900 || p.ProvisionedRUs != 1900 || !near(p.PerPartitionRUs, 475) {
		t.Errorf("manual = %d, provisioned %d, per partition %v; want 1900, 1900, 475", p.Manual.RUs, p.ProvisionedRUs, p.PerPartitionRUs)
	}
	// 19 × $0.008 × 720 h = $109.44; 200 GB × $0.25 = $50.
	if !near(p.Manual.MonthlyCost, 109.44) || !near(p.ThroughputMonthly, 109.44) || !near(p.StorageMonthly, 50) || !near(p.TotalMonthly, 159.44) {
		t.Errorf("cost = %v throughput + %v storage = %v, want 109.44 + 50 = 159.44", p.ThroughputMonthly, p.StorageMonthly, p.TotalMonthly)
	}
	// Autoscale: max(peak, 10 × 200 GB) = 2000 RU/s; at peak all month 20 × $0.012 × 720.
	if p.Autoscale.MaxRUs != 2000 || !near(p.Autoscale.MonthlyCostAtPeak, 172.8) {
		t.Errorf("autoscale = %d, %v at peak; want 2000, 172.8", p.Autoscale.MaxRUs, p.Autoscale.MonthlyCostAtPeak)
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

// partitions = max(ceil(GB/50), ceil(RU/s / 10,000)).
func TestPartitions(t *testing.T) {
	for _, tc := range []struct {
		gb, rps float64
		want    int
	}{
		{0, 100, 1}, {50, 100, 1}, {50.5, 100, 2}, {0, 10_000, 1}, {0, 10_001, 2}, {120, 25_000, 3}, {400, 25_000, 8},
	} {
		w := one(capacity.Read, tc.rps)
		w.DataGB = tc.gb
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
	// 19,990 + 10 × (3 + 2.5 × 2) = 20,070 RU/s → 3 partitions → 10 × (3 + 7.5) = 105 → 20,095.
	if p.Partitions != 3 || !near(p.Patterns[1].RU, 10.5) || !near(p.PeakRUs, 20_095) {
		t.Errorf("partitions %d, query RU %v, peak %v; want 3, 10.5, 20095", p.Partitions, p.Patterns[1].RU, p.PeakRUs)
	}
}

// The manual floor: max(400, GB × 1 RU/s, highest ever / 100).
func TestManualFloor(t *testing.T) {
	for _, tc := range []struct {
		gb, highest float64
		want        int
	}{
		{0, 0, 400}, {350, 0, 400}, {1234, 0, 1300}, {10, 90_000, 900},
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
	if !near(p.ThroughputMonthly, 3*base.ThroughputMonthly) || !near(p.StorageMonthly, 150) {
		t.Errorf("3 regions: %v + %v, want %v + 150", p.ThroughputMonthly, p.StorageMonthly, 3*base.ThroughputMonthly)
	}
	w.ZoneRedundant = true
	p = mustPlan(t, w)
	if !near(p.ThroughputMonthly, 3*1.25*base.ThroughputMonthly) {
		t.Errorf("zone redundant: %v, want %v", p.ThroughputMonthly, 3*1.25*base.ThroughputMonthly)
	}
	w.MultiRegionWrites = true
	p = mustPlan(t, w)
	if !near(p.ThroughputMonthly, 3*base.ThroughputMonthly) {
		t.Errorf("zone redundant, multi-write: %v, want %v", p.ThroughputMonthly, 3*base.ThroughputMonthly)
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
		if want := []float64{6, 6, 5, 1}; !slicesNear(got, want) {
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
		{"Workload.Mode", func(w *capacity.Workload) { w.Mode = "serverless" }},
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
		if strings.Contains(err.Error(), "4096") || strings.Contains(err.Error(), "serverless") || strings.Contains(err.Error(), "strong-ish") {
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
		StoragePerGBMonth: 0.25, HoursPerMonth: 720, ZoneRedundancyFactor: 1.25}) {
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

// Autoscale bills the hour's highest RU/s, at least 10% of the maximum.
func TestAutoscale(t *testing.T) {
	w := capacity.Workload{Mode: capacity.Autoscale, Patterns: []capacity.Pattern{{Name: "r", Kind: capacity.Read, PeakRPS: 5000, AverageRPS: 200}}}
	p := mustPlan(t, w)
	// max 5000 RU/s; average 200 RU/s is below 10% (500): 5 × 0.012 × 720 = 43.2.
	if p.Autoscale.MaxRUs != 5000 || p.ProvisionedRUs != 5000 || !near(p.ThroughputMonthly, 43.2) || !near(p.Autoscale.MonthlyCostAtPeak, 432) {
		t.Errorf("autoscale %+v, throughput %v", p.Autoscale, p.ThroughputMonthly)
	}
	if hasWarning(p, "mode", "") {
		t.Errorf("spiky load: autoscale is cheaper, yet warned: %v", p.Warnings)
	}
	w.Mode = capacity.Manual
	if p := mustPlan(t, w); !hasWarning(p, "mode", "") {
		t.Errorf("spiky load on manual: no mode warning")
	}
}
