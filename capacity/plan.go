package capacity

import (
	"fmt"
	"math"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/rucharge"
)

// Model constants. The point read and write charges by size come from the documented table
// (internal/rucharge, which cosmostest bills with too); the query constants from seed 004.
const (
	ModelQueryRU      = 2.8 // a query page's charge per physical partition it reads (cosmostest's)
	ModelQueryPerDoc  = 0.1 // each document a query page loads
	ModelQueryPerKBRU = 0.1 // each KB of a query page's results
	// ModelStrongReadFactor multiplies reads and queries at Strong and Bounded Staleness.
	ModelStrongReadFactor = rucharge.StrongReadFactor
	// ModelReplaceFactor multiplies a replace's (and a patch's) write charge against an insert.
	ModelReplaceFactor = rucharge.ReplaceFactor
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
	// FloorRUs is the smallest RU/s the container may have: max(400, GB × 1, highest ever / 100),
	// GB counting data and index.
	FloorRUs int
	// MonthlyCost is the throughput bill, every region included, after the free tier and the
	// reserved discount:
	//
	//	(RUs − free tier's 1,000) / 100 × rate × hours × regions × zone factor × (1 − reserved)
	//
	// rate: Prices.ManualPer100RUsHour, or MultiRegionWritePer100RUsHour with multi-region
	// writes; zone factor: ZoneRedundancyFactor for zone-redundant single-write regions, else 1.
	MonthlyCost float64
}

// AutoscalePlan is the autoscale throughput to provision.
type AutoscalePlan struct {
	// MaxRUs is the autoscale maximum: max(peak, floor) rounded up to a multiple of 1000.
	MaxRUs int
	// FloorRUs is the smallest maximum allowed: max(1000, GB × 10, highest ever / 10), GB counting
	// data and index.
	FloorRUs int
	// HourlyBilledRUs is the RU/s billed in each hour of the load shape: the hour's highest
	// RU/s (its level × the peak), never below 10% of MaxRUs nor above it.
	HourlyBilledRUs []float64
	// MonthlyCost is the bill hour by hour over the load shape, scaled to a month:
	//
	//	Σ hours (billed RU/s − free tier's 1,000) / 100 × rate × (hours a month / hours in the shape)
	//	  × regions × zone factor × (1 − reserved)
	//
	// rate: Prices.AutoscalePer100RUsHour, or MultiRegionWritePer100RUsHour with multi-region
	// writes. MonthlyCostAtPeak is the same with every hour at MaxRUs.
	MonthlyCost, MonthlyCostAtPeak float64
}

// ServerlessPlan is the serverless alternative.
type ServerlessPlan struct {
	// Available is false when serverless cannot serve the workload; Reasons says why (the data
	// and index over 1 TB, more than one region, multi-region writes, a peak over 5,000 RU/s per
	// physical partition).
	Available bool
	Reasons   []string
	// MaxRUs is the most the container serves: 5,000 RU/s per physical partition.
	MaxRUs int
	// MonthlyRU is the request units consumed a month: the average RU/s × 3,600 × hours a month.
	// MonthlyCost is MonthlyRU / 1,000,000 × Prices.ServerlessPerMillionRU (no free tier, no
	// reservation: neither applies to serverless).
	MonthlyRU, MonthlyCost float64
}

// Warning is one finding of a plan. Code is stable ("binning", "cross-partition-query",
// "throughput-floor", "large-document", "measured-differs", "mode", "container-limit",
// "serverless"); Pattern names the pattern it is about ("" for the workload).
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
	// HourlyRUs is the highest RU/s of each hour of the load shape (its level × PeakRUs); 24
	// hours at the peak without a LoadShape.
	HourlyRUs []float64
	// IndexGB is the index's size (DataGB × IndexOverhead), StorageGB data and index.
	IndexGB, StorageGB float64
	// Partitions is the number of physical partitions at creation: max(PartitionsForStorage,
	// PartitionsForThroughput), where PartitionsForStorage = ceil(StorageGB / 50) and
	// PartitionsForThroughput = ceil(provisioned RU/s / 6,000) (serverless: none).
	Partitions, PartitionsForStorage, PartitionsForThroughput int
	Manual                                                    ManualPlan
	Autoscale                                                 AutoscalePlan
	Serverless                                                ServerlessPlan
	// ProvisionedRUs is the throughput of Workload.Mode (Manual.RUs or Autoscale.MaxRUs; for
	// serverless Serverless.MaxRUs), and PerPartitionRUs its even share per physical partition.
	ProvisionedRUs  int
	PerPartitionRUs float64
	// ThroughputMonthly is the throughput bill of Workload.Mode, StorageMonthly the storage bill
	// (data and index; every region stores a copy; the free tier's 25 GB off in provisioned
	// modes), TotalMonthly their sum; in Workload.Prices.Currency.
	ThroughputMonthly, StorageMonthly, TotalMonthly float64
	// Recommended is the mode of the lowest total monthly cost that can serve the workload, and
	// Why the reason in one sentence.
	Recommended Mode
	Why         string
	Warnings    []Warning
}

// New returns the plan of w, or a *cosmoserr.ValidationError naming the first bad field of w
// (e.g. "Workload.Patterns[2].PeakRPS").
func New(w Workload) (*Plan, error) {
	w = w.Options()
	if err := w.validate(); err != nil {
		return nil, err
	}
	p := &Plan{Workload: w}
	p.IndexGB = w.DataGB * w.IndexOverhead
	p.StorageGB = w.DataGB + p.IndexGB
	p.PartitionsForStorage = max(1, ceilInt(p.StorageGB/PartitionMaxGB))
	parts := p.PartitionsForStorage
	// The cross-partition charge depends on the partition count, which depends on the RU/s: grow
	// the count until it is stable (it only grows, so a few rounds suffice).
	tooMuch := bad("Workload.Patterns", "need more than 2,147,483,647 RU/s, more than a container's throughput can be set to (an int32 in the API); split the workload")
	for range 8 {
		p.compute(parts)
		if p.PeakRUs > math.MaxInt32 || max(p.Manual.RUs, p.Autoscale.MaxRUs) > math.MaxInt32 {
			return nil, tooMuch
		}
		if p.Partitions == parts {
			break
		}
		parts = p.Partitions
	}
	p.recommend()
	p.warn()
	return p, nil
}

func (p *Plan) compute(parts int) {
	w := p.Workload
	pr := w.Prices
	p.Patterns = p.Patterns[:0]
	p.PeakRUs, p.AverageRUs = 0, 0
	for _, pt := range w.Patterns {
		pp := PatternPlan{Name: pt.Name, Kind: pt.Kind, ModelRU: round2(modelRU(pt, w, parts)), DeclaredRU: pt.RU, MeasuredRU: pt.MeasuredRU}
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
	shape := w.LoadShape
	if shape == nil {
		shape = PeakHours(24, 1)
	}
	p.HourlyRUs = make([]float64, len(shape))
	for i, level := range shape {
		p.HourlyRUs[i] = round2(level * p.PeakRUs)
	}

	gb := p.StorageGB
	// Manual: max(400, GB × 1 RU/s, highest ever / 100), and the peak, in hundreds.
	floor := math.Max(MinManualRUs, math.Max(math.Ceil(gb), math.Ceil(w.HighestProvisionedRUs/100)))
	p.Manual.FloorRUs = roundUp(floor, 100)
	p.Manual.RUs = roundUp(math.Max(p.PeakRUs, floor), 100)
	// Autoscale: max(1000, GB × 10 RU/s, highest ever / 10), and the peak, in thousands.
	afloor := math.Max(MinAutoscaleMaxRUs, math.Max(math.Ceil(gb*10), math.Ceil(w.HighestProvisionedRUs/10)))
	p.Autoscale.FloorRUs = roundUp(afloor, 1000)
	p.Autoscale.MaxRUs = roundUp(math.Max(p.PeakRUs, afloor), 1000)

	// Throughput prices: per 100 RU/s per hour, every region, the zone factor with single-region
	// writes; multi-region writes at their own rate, the same for manual and autoscale.
	regions := float64(w.Regions)
	zone := 1.0
	if w.ZoneRedundant && !w.MultiRegionWrites {
		zone = pr.ZoneRedundancyFactor
	}
	manualRate, autoRate := pr.ManualPer100RUsHour, pr.AutoscalePer100RUsHour
	if w.MultiRegionWrites {
		manualRate, autoRate = pr.MultiRegionWritePer100RUsHour, pr.MultiRegionWritePer100RUsHour
	}
	free := 0.0
	if w.FreeTier {
		free = FreeTierRUs
	}
	discount := 1 - pr.ReservedDiscount
	// hourCost is one hour at rus RU/s: the free tier's 1,000 RU/s off once (one region's worth),
	// the rest in every region.
	hourCost := func(rus, rate float64) float64 {
		return math.Max(0, rus*regions*zone-free) / 100 * rate * discount
	}
	p.Manual.MonthlyCost = round2(hourCost(float64(p.Manual.RUs), manualRate) * pr.HoursPerMonth)
	tmax := float64(p.Autoscale.MaxRUs)
	p.Autoscale.HourlyBilledRUs = make([]float64, len(shape))
	sum := 0.0
	for i, rus := range p.HourlyRUs {
		billed := math.Min(tmax, math.Max(0.1*tmax, rus))
		p.Autoscale.HourlyBilledRUs[i] = billed
		sum += hourCost(billed, autoRate)
	}
	p.Autoscale.MonthlyCost = round2(sum * pr.HoursPerMonth / float64(len(shape)))
	p.Autoscale.MonthlyCostAtPeak = round2(hourCost(tmax, autoRate) * pr.HoursPerMonth)

	p.computeServerless()

	switch w.Mode {
	case Autoscale:
		p.ProvisionedRUs, p.ThroughputMonthly = p.Autoscale.MaxRUs, p.Autoscale.MonthlyCost
	case Serverless:
		p.ProvisionedRUs, p.ThroughputMonthly = p.Serverless.MaxRUs, p.Serverless.MonthlyCost
	default:
		p.ProvisionedRUs, p.ThroughputMonthly = p.Manual.RUs, p.Manual.MonthlyCost
	}
	p.PartitionsForThroughput = 1
	if w.Mode != Serverless {
		p.PartitionsForThroughput = max(1, ceilInt(float64(p.ProvisionedRUs)/InitialPartitionRUs))
	}
	p.Partitions = max(p.PartitionsForStorage, p.PartitionsForThroughput)
	if w.Mode == Serverless {
		p.ProvisionedRUs = ServerlessPartitionRUs * p.Partitions
		p.Serverless.MaxRUs = p.ProvisionedRUs
	}
	p.PerPartitionRUs = round2(float64(p.ProvisionedRUs) / float64(p.Partitions))
	p.StorageMonthly = p.storageCost(w.Mode)
	p.TotalMonthly = round2(p.ThroughputMonthly + p.StorageMonthly)
}

// storageCost is the storage bill in mode m: data and index in every region, the free tier's
// 25 GB off in the provisioned modes.
func (p *Plan) storageCost(m Mode) float64 {
	w := p.Workload
	gb := p.StorageGB * float64(w.Regions)
	if w.FreeTier && m != Serverless {
		gb = math.Max(0, gb-FreeTierGB)
	}
	return round2(gb * w.Prices.StoragePerGBMonth)
}

// computeServerless fills p.Serverless: the RU consumed at the average rate, and whether the
// serverless limits admit the workload.
func (p *Plan) computeServerless() {
	w := p.Workload
	s := ServerlessPlan{Available: true}
	parts := p.PartitionsForStorage
	s.MaxRUs = ServerlessPartitionRUs * parts
	if p.StorageGB > ServerlessMaxGB {
		s.Reasons = append(s.Reasons, fmt.Sprintf("%.0f GB of data and index is over serverless's %d GB per container", p.StorageGB, ServerlessMaxGB))
	}
	if w.Regions > 1 || w.MultiRegionWrites {
		s.Reasons = append(s.Reasons, "a serverless account runs in one region only")
	}
	if p.PeakRUs > float64(s.MaxRUs) {
		s.Reasons = append(s.Reasons, fmt.Sprintf("the peak of %.0f RU/s is over serverless's %d RU/s (%d per physical partition × %d)", p.PeakRUs, s.MaxRUs, ServerlessPartitionRUs, parts))
	}
	s.Available = len(s.Reasons) == 0
	s.MonthlyRU = round2(p.AverageRUs * 3600 * w.Prices.HoursPerMonth)
	s.MonthlyCost = round2(s.MonthlyRU / 1e6 * w.Prices.ServerlessPerMillionRU)
	p.Serverless = s
}

// modelRU is the model's RU for one operation of pt over parts physical partitions.
func modelRU(pt Pattern, w Workload, parts int) float64 {
	kb := math.Max(1, pt.DocumentKB)
	write := rucharge.WriteRU(kb, w.IndexedProperties)
	var ru float64
	switch pt.Kind {
	case Read:
		ru = rucharge.ReadRU(kb)
	case Create, Upsert, Delete:
		ru = write
	case Replace, Patch:
		ru = ModelReplaceFactor * write
	case Query:
		fan := 1
		if pt.CrossPartition {
			fan = parts
		}
		ru = ModelQueryRU*float64(fan) + ModelQueryPerDoc*pt.LoadedDocuments + ModelQueryPerKBRU*math.Ceil(pt.ResultKB)
	}
	if (pt.Kind == Read || pt.Kind == Query) && (pt.Consistency == Strong || pt.Consistency == BoundedStaleness) {
		ru *= ModelStrongReadFactor
	}
	return ru
}

// modeCost is a mode's total monthly cost (throughput and storage).
func (p *Plan) modeCost(m Mode) float64 {
	switch m {
	case Autoscale:
		return round2(p.Autoscale.MonthlyCost + p.storageCost(m))
	case Serverless:
		return round2(p.Serverless.MonthlyCost + p.storageCost(m))
	}
	return round2(p.Manual.MonthlyCost + p.storageCost(m))
}

// autoscaleRatio is autoscale's rate over manual's: 1.5 with single-region writes, 1 with
// multi-region writes (both at the multi-region-write rate).
func (p *Plan) autoscaleRatio() float64 {
	pr := p.Workload.Prices
	if p.Workload.MultiRegionWrites || pr.ManualPer100RUsHour == 0 {
		return 1
	}
	return pr.AutoscalePer100RUsHour / pr.ManualPer100RUsHour
}

// recommend picks the cheapest mode that can serve the workload.
func (p *Plan) recommend() {
	best := Manual
	for _, m := range []Mode{Autoscale, Serverless} {
		if m == Serverless && !p.Serverless.Available {
			continue
		}
		if p.modeCost(m) < p.modeCost(best) {
			best = m
		}
	}
	p.Recommended = best
	cur := p.Workload.Prices.Currency
	switch best {
	case Manual:
		p.Why = fmt.Sprintf("the load is steady enough that paying for %d RU/s every hour (%.2f %s a month) costs less than autoscale's rate (%g× manual's) on each hour's highest RU/s (%.2f)",
			p.Manual.RUs, p.modeCost(Manual), cur, round2(p.autoscaleRatio()), p.modeCost(Autoscale))
	case Autoscale:
		p.Why = fmt.Sprintf("the load is spiky enough that billing each hour at its highest RU/s (%.2f %s a month) costs less than holding %d RU/s all month (%.2f)",
			p.modeCost(Autoscale), cur, p.Manual.RUs, p.modeCost(Manual))
	case Serverless:
		p.Why = fmt.Sprintf("the load is light enough that paying per request unit consumed (%.2f %s a month) costs less than any provisioned floor (manual %.2f, autoscale %.2f); serverless offers no throughput guarantee",
			p.modeCost(Serverless), cur, p.modeCost(Manual), p.modeCost(Autoscale))
	}
	if !p.Serverless.Available {
		p.Why += "; serverless is out: " + strings.Join(p.Serverless.Reasons, "; ")
	}
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
			over := ModelQueryRU * float64(p.Partitions-1)
			p.Warnings = append(p.Warnings, Warning{"cross-partition-query", pt.Name, fmt.Sprintf(
				"fans out to %d physical partitions: %.1f RU of overhead per query (%.2f RU/s at peak), growing with the data; give the query its partition key if the pattern allows",
				p.Partitions, over, over*pt.PeakRPS)})
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
	if writes > binningWritesPerSecond {
		p.Warnings = append(p.Warnings, Warning{"binning", "", fmt.Sprintf(
			"%.0f writes/s at peak (more than %d): group records into chunks (binning) or batch them to cut the number of writes", writes, binningWritesPerSecond)})
	}
	if float64(p.Manual.FloorRUs) > p.PeakRUs && w.Mode == Manual {
		p.Warnings = append(p.Warnings, Warning{"throughput-floor", "", fmt.Sprintf(
			"the manual minimum of %d RU/s (400, 1 RU/s per GB of data and index, a hundredth of the highest ever) exceeds the peak of %.0f RU/s", p.Manual.FloorRUs, p.PeakRUs)})
	}
	if w.Mode != Serverless && p.ProvisionedRUs > MaxContainerRUs {
		p.Warnings = append(p.Warnings, Warning{"container-limit", "", fmt.Sprintf(
			"%d RU/s is over the default limit of %d RU/s per container: file a support request to raise it, or split the workload", p.ProvisionedRUs, MaxContainerRUs)})
	}
	if w.Mode == Serverless && !p.Serverless.Available {
		p.Warnings = append(p.Warnings, Warning{"serverless", "", "serverless cannot serve this workload: " + strings.Join(p.Serverless.Reasons, "; ")})
	}
	if w.Mode != p.Recommended {
		p.Warnings = append(p.Warnings, Warning{"mode", "", fmt.Sprintf("%s would cost %.2f %s a month against %.2f %s: %s",
			p.Recommended, p.modeCost(p.Recommended), w.Prices.Currency, p.modeCost(w.Mode), w.Mode, p.Why)})
	}
}

// maxExact bounds the float-to-int conversions: past it (2^53) a float64 holds no exact integer and
// a conversion past an int's range is undefined; New refuses such workloads anyway (the int32
// check), so saturating here only keeps the arithmetic defined until it does.
const maxExact = 1 << 53

func ceilInt(v float64) int { return int(math.Min(math.Ceil(v), maxExact)) }

func roundUp(v float64, step int) int {
	return int(math.Min(math.Ceil(v/float64(step)), maxExact/float64(step))) * step
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
