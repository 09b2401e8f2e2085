package capacity

import (
	"fmt"
	"math"
)

// Model constants: RU of one operation on a 1 KB item (seed 004's "Constants for Reference").
const (
	ModelReadRU       = 1.0 // point read, per KB
	ModelCreateRU     = 5.0 // create or upsert, per KB
	ModelReplaceRU    = 7.0 // replace or patch, per KB
	ModelDeleteRU     = 5.0 // delete, per KB
	ModelQueryRU      = 3.0 // a query page of up to 1 KB of results (seed: "~2-5 RUs")
	ModelQueryPerKBRU = 1.0 // each further KB of a query page's results
	// ModelStrongReadFactor multiplies reads and queries at Strong and Bounded Staleness.
	ModelStrongReadFactor = 2.0
)

// Source says where a pattern's RU figure comes from.
type Source string

// The sources, in the order the plan prefers them.
const (
	SourceMeasured Source = "measured"
	SourceDeclared Source = "declared"
	SourceModel    Source = "model"
)

// PatternPlan is one pattern's share of a plan.
type PatternPlan struct {
	Name string
	Kind Kind
	// ModelRU is the model's RU per operation (with the plan's partition count for a
	// cross-partition query, and the consistency factor).
	ModelRU float64
	// DeclaredRU is Pattern.RU (0 if not declared), MeasuredRU Pattern.MeasuredRU (0 if not
	// measured).
	DeclaredRU, MeasuredRU float64
	// RU is the figure the plan uses: measured, else declared, else the model's; Source says which.
	RU     float64
	Source Source
	// PeakRUs and AverageRUs are RU × PeakRPS and RU × AverageRPS.
	PeakRUs, AverageRUs float64
}

// ManualPlan is the standard (manual) throughput to provision.
type ManualPlan struct {
	// RUs is the RU/s to provision: max(peak, floor) rounded up to a multiple of 100.
	RUs int
	// FloorRUs is the smallest RU/s the container may have: max(400, GB × 1, highest ever / 100).
	FloorRUs int
	// MonthlyCost is the throughput bill, every region included.
	MonthlyCost float64
}

// AutoscalePlan is the autoscale throughput to provision.
type AutoscalePlan struct {
	// MaxRUs is the autoscale maximum: max(peak, floor) rounded up to a multiple of 1000.
	MaxRUs int
	// FloorRUs is the smallest maximum allowed: max(1000, GB × 10, highest ever / 10).
	FloorRUs int
	// MonthlyCost is the bill when each hour scales to the average RU/s (never below 10% of
	// MaxRUs); MonthlyCostAtPeak when every hour reaches MaxRUs. Every region included.
	MonthlyCost, MonthlyCostAtPeak float64
}

// Warning is one finding of a plan. Code is stable ("binning", "cross-partition-query",
// "throughput-floor", "large-document", "measured-differs", "mode"); Pattern names the pattern
// it is about ("" for the workload).
type Warning struct {
	Code, Pattern, Message string
}

func (w Warning) String() string {
	if w.Pattern == "" {
		return w.Code + ": " + w.Message
	}
	return w.Code + " (" + w.Pattern + "): " + w.Message
}

// Plan is the capacity and cost plan of a workload.
type Plan struct {
	// Workload is the workload planned, defaults written out.
	Workload Workload
	Patterns []PatternPlan
	// PeakRUs and AverageRUs are the sums over the patterns.
	PeakRUs, AverageRUs float64
	// Partitions is the number of physical partitions: max(PartitionsForStorage,
	// PartitionsForThroughput).
	Partitions, PartitionsForStorage, PartitionsForThroughput int
	Manual                                                    ManualPlan
	Autoscale                                                 AutoscalePlan
	// ProvisionedRUs is the throughput of Workload.Mode (Manual.RUs or Autoscale.MaxRUs), and
	// PerPartitionRUs its even share per physical partition.
	ProvisionedRUs  int
	PerPartitionRUs float64
	// ThroughputMonthly is the throughput bill of Workload.Mode, StorageMonthly the storage bill
	// (every region stores a copy), TotalMonthly their sum; in Workload.Prices.Currency.
	ThroughputMonthly, StorageMonthly, TotalMonthly float64
	Warnings                                        []Warning
}

// New returns the plan of w, or a *cosmoserr.ValidationError naming the first bad field of w
// (e.g. "Workload.Patterns[2].PeakRPS").
func New(w Workload) (*Plan, error) {
	w = w.Options()
	if err := w.validate(); err != nil {
		return nil, err
	}
	p := &Plan{Workload: w}
	p.PartitionsForStorage = max(1, ceilInt(w.DataGB/PartitionMaxGB))
	parts := p.PartitionsForStorage
	// The cross-partition charge depends on the partition count, which depends on the RU/s: grow
	// the count until it is stable (it only grows, so a few rounds suffice).
	for range 8 {
		p.compute(parts)
		if p.Partitions == parts {
			break
		}
		parts = p.Partitions
	}
	if max(p.Manual.RUs, p.Autoscale.MaxRUs) > math.MaxInt32 {
		return nil, bad("Workload.Patterns", "need more than 2,147,483,647 RU/s, more than a container's throughput can be set to (an int32 in the API); split the workload")
	}
	p.warn()
	return p, nil
}

func (p *Plan) compute(parts int) {
	w := p.Workload
	pr := w.Prices
	p.Patterns = p.Patterns[:0]
	p.PeakRUs, p.AverageRUs = 0, 0
	for _, pt := range w.Patterns {
		pp := PatternPlan{Name: pt.Name, Kind: pt.Kind, ModelRU: round2(modelRU(pt, parts)), DeclaredRU: pt.RU, MeasuredRU: pt.MeasuredRU}
		switch {
		case pt.MeasuredRU > 0:
			pp.RU, pp.Source = pt.MeasuredRU, SourceMeasured
		case pt.RU > 0:
			pp.RU, pp.Source = pt.RU, SourceDeclared
		default:
			pp.RU, pp.Source = pp.ModelRU, SourceModel
		}
		pp.PeakRUs = round2(pp.RU * pt.PeakRPS)
		pp.AverageRUs = round2(pp.RU * pt.AverageRPS)
		p.PeakRUs += pp.PeakRUs
		p.AverageRUs += pp.AverageRUs
		p.Patterns = append(p.Patterns, pp)
	}
	p.PeakRUs, p.AverageRUs = round2(p.PeakRUs), round2(p.AverageRUs)

	// Manual: max(400, GB × 1 RU/s, highest ever / 100), and the peak, in hundreds.
	floor := math.Max(MinManualRUs, math.Max(math.Ceil(w.DataGB), math.Ceil(w.HighestProvisionedRUs/100)))
	p.Manual.FloorRUs = roundUp(floor, 100)
	p.Manual.RUs = roundUp(math.Max(p.PeakRUs, floor), 100)
	// Autoscale: max(1000, GB × 10 RU/s, highest ever / 10), and the peak, in thousands.
	afloor := math.Max(MinAutoscaleMaxRUs, math.Max(math.Ceil(w.DataGB*10), math.Ceil(w.HighestProvisionedRUs/10)))
	p.Autoscale.FloorRUs = roundUp(afloor, 1000)
	p.Autoscale.MaxRUs = roundUp(math.Max(p.PeakRUs, afloor), 1000)

	regions := float64(w.Regions)
	zone := 1.0
	if w.ZoneRedundant && !w.MultiRegionWrites {
		zone = pr.ZoneRedundancyFactor
	}
	perRUsMonth := func(price float64) float64 { return price / 100 * pr.HoursPerMonth * regions * zone }
	p.Manual.MonthlyCost = round2(float64(p.Manual.RUs) * perRUsMonth(pr.ManualPer100RUsHour))
	scaled := math.Min(float64(p.Autoscale.MaxRUs), math.Max(0.1*float64(p.Autoscale.MaxRUs), p.AverageRUs))
	p.Autoscale.MonthlyCost = round2(scaled * perRUsMonth(pr.AutoscalePer100RUsHour))
	p.Autoscale.MonthlyCostAtPeak = round2(float64(p.Autoscale.MaxRUs) * perRUsMonth(pr.AutoscalePer100RUsHour))

	if w.Mode == Autoscale {
		p.ProvisionedRUs, p.ThroughputMonthly = p.Autoscale.MaxRUs, p.Autoscale.MonthlyCost
	} else {
		p.ProvisionedRUs, p.ThroughputMonthly = p.Manual.RUs, p.Manual.MonthlyCost
	}
	p.PartitionsForThroughput = max(1, ceilInt(float64(p.ProvisionedRUs)/PartitionMaxRUs))
	p.Partitions = max(p.PartitionsForStorage, p.PartitionsForThroughput)
	p.PerPartitionRUs = round2(float64(p.ProvisionedRUs) / float64(p.Partitions))
	p.StorageMonthly = round2(w.DataGB * pr.StoragePerGBMonth * regions)
	p.TotalMonthly = round2(p.ThroughputMonthly + p.StorageMonthly)
}

// modelRU is the model's RU for one operation of pt over parts physical partitions.
func modelRU(pt Pattern, parts int) float64 {
	kb := math.Max(1, math.Ceil(pt.DocumentKB))
	var ru float64
	switch pt.Kind {
	case Read:
		ru = ModelReadRU * kb
	case Create, Upsert:
		ru = ModelCreateRU * kb
	case Replace, Patch:
		ru = ModelReplaceRU * kb
	case Delete:
		ru = ModelDeleteRU * kb
	case Query:
		ru = ModelQueryRU + ModelQueryPerKBRU*(math.Max(1, math.Ceil(pt.ResultKB))-1)
		if pt.CrossPartition {
			ru += CrossPartitionRUPerPartition * float64(parts)
		}
	}
	if (pt.Kind == Read || pt.Kind == Query) && (pt.Consistency == Strong || pt.Consistency == BoundedStaleness) {
		ru *= ModelStrongReadFactor
	}
	return ru
}

func (p *Plan) warn() {
	w := p.Workload
	var writes float64
	for i, pt := range w.Patterns {
		pp := p.Patterns[i]
		switch pt.Kind {
		case Create, Upsert, Replace, Patch, Delete:
			writes += pt.PeakRPS
		}
		if pt.CrossPartition {
			p.Warnings = append(p.Warnings, Warning{"cross-partition-query", pt.Name, fmt.Sprintf(
				"fans out to %d physical partitions: %.1f RU of overhead per query (%.2f RU/s at peak), growing with the data; give the query its partition key if the pattern allows",
				p.Partitions, CrossPartitionRUPerPartition*float64(p.Partitions), CrossPartitionRUPerPartition*float64(p.Partitions)*pt.PeakRPS)})
		}
		if pt.DocumentKB > 10 {
			p.Warnings = append(p.Warnings, Warning{"large-document", pt.Name, fmt.Sprintf(
				"%.0f KB items: RU grow with size; split rarely read parts out or exclude them from indexing", pt.DocumentKB)})
		}
		if pp.MeasuredRU > 0 {
			ref := pp.DeclaredRU
			if ref == 0 {
				ref = pp.ModelRU
			}
			if pp.MeasuredRU > 2*ref || pp.MeasuredRU < ref/2 {
				p.Warnings = append(p.Warnings, Warning{"measured-differs", pt.Name, fmt.Sprintf(
					"measured %.2f RU per operation against %.2f declared or modelled; the plan uses the measured figure", pp.MeasuredRU, ref)})
			}
		}
	}
	if writes > BinningWritesPerSecond {
		p.Warnings = append(p.Warnings, Warning{"binning", "", fmt.Sprintf(
			"%.0f writes/s at peak (more than %d): group records into chunks (binning) or batch them to cut the number of writes", writes, BinningWritesPerSecond)})
	}
	if float64(p.Manual.FloorRUs) > p.PeakRUs {
		p.Warnings = append(p.Warnings, Warning{"throughput-floor", "", fmt.Sprintf(
			"the manual minimum of %d RU/s (400, 1 RU/s per GB, a hundredth of the highest ever) exceeds the peak of %.0f RU/s", p.Manual.FloorRUs, p.PeakRUs)})
	}
	switch {
	case w.Mode == Manual && p.Autoscale.MonthlyCost < p.Manual.MonthlyCost:
		p.Warnings = append(p.Warnings, Warning{"mode", "", fmt.Sprintf(
			"autoscale would cost about %.2f %s a month at the average load, against %.2f manual: the load is variable enough for autoscale",
			p.Autoscale.MonthlyCost, w.Prices.Currency, p.Manual.MonthlyCost)})
	case w.Mode == Autoscale && p.Manual.MonthlyCost < p.Autoscale.MonthlyCost:
		p.Warnings = append(p.Warnings, Warning{"mode", "", fmt.Sprintf(
			"manual throughput would cost %.2f %s a month against about %.2f autoscale: the load is steady enough for manual",
			p.Manual.MonthlyCost, w.Prices.Currency, p.Autoscale.MonthlyCost)})
	}
}

func ceilInt(v float64) int { return int(math.Ceil(v)) }

func roundUp(v float64, step int) int {
	return int(math.Ceil(v/float64(step))) * step
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
