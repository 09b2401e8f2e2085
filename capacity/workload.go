package capacity

import (
	"fmt"
	"math"
	"slices"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/rucharge"
)

// Kind is the operation an access pattern performs.
type Kind string

// The operation kinds.
const (
	Read    Kind = "read"    // point read by id and partition key
	Create  Kind = "create"  // insert
	Upsert  Kind = "upsert"  // insert or replace
	Replace Kind = "replace" // full replace ("update")
	Patch   Kind = "patch"   // partial update
	Delete  Kind = "delete"  // delete by id and partition key
	Query   Kind = "query"   // a query (one page per request)
)

// Consistency is the read consistency a pattern uses.
type Consistency string

// The consistency levels.
const (
	Strong           Consistency = "Strong"
	BoundedStaleness Consistency = "BoundedStaleness"
	Session          Consistency = "Session"
	ConsistentPrefix Consistency = "ConsistentPrefix"
	Eventual         Consistency = "Eventual"
)

// Mode is the throughput mode a plan's cost is given in.
type Mode string

// The throughput modes.
const (
	Manual     Mode = "manual"     // standard (manual) provisioned throughput
	Autoscale  Mode = "autoscale"  // autoscale between 10% and 100% of a maximum
	Serverless Mode = "serverless" // billed per request unit consumed; a serverless account
)

// IndexingMode is the container's indexing mode.
type IndexingMode string

// The indexing modes.
const (
	IndexingConsistent IndexingMode = "consistent" // the index is updated with every write
	IndexingNone       IndexingMode = "none"       // nothing is indexed (point operations only)
)

// Limits and defaults of the model.
const (
	// PartitionMaxGB is the most a physical partition stores.
	PartitionMaxGB = 50
	// PartitionMaxRUs is the most RU/s a physical partition serves.
	PartitionMaxRUs = 10_000
	// MinManualRUs is the smallest manual throughput of a container.
	MinManualRUs = 400
	// MinAutoscaleMaxRUs is the smallest autoscale maximum.
	MinAutoscaleMaxRUs = 1000
	// InitialPartitionRUs is the throughput per physical partition at creation: a new container
	// starts with ceil(RU/s / 6,000) physical partitions (learn.microsoft.com, "Best practices for
	// scaling provisioned throughput (RU/s)"; 25,000 RU/s starts with 5), growing to 10,000 RU/s
	// each before it splits.
	InitialPartitionRUs = 6000
	// MaxContainerRUs is the default per-container throughput limit (learn.microsoft.com, "Azure
	// Cosmos DB service quotas": 1,000,000 RU/s, raised by a support ticket).
	MaxContainerRUs = 1_000_000
	// ServerlessMaxGB is the most a serverless container stores (data and index; learn.microsoft.com,
	// "Azure Cosmos DB serverless account performance": up to 1 TB, 20 partitions of 50 GB).
	ServerlessMaxGB = 1000
	// ServerlessPartitionRUs is the most RU/s a serverless container serves per physical partition
	// (same page: "Throughput (RU/s) = Number of partitions × 5,000").
	ServerlessPartitionRUs = 5000
	// FreeTierRUs and FreeTierGB are what the free tier takes off an account's bill: the first
	// 1,000 RU/s and 25 GB (learn.microsoft.com, "Azure Cosmos DB free tier"); provisioned
	// throughput only, one account per subscription.
	FreeTierRUs = 1000
	FreeTierGB  = 25
	// DefaultIndexOverhead is the index size as a share of the data when none is declared: an
	// assumption (the docs give no figure; measure yours with the container's index size in the
	// portal's metrics, or on cosmostest with the container's indexing policy).
	DefaultIndexOverhead = 0.2
	// binningWritesPerSecond is the write rate above which the plan warns to bin or batch writes.
	binningWritesPerSecond = 10_000
	// MaxDocumentKB is the item size limit (2 MB).
	MaxDocumentKB = 2048
)

// Pattern is one access pattern. Name, Kind and PeakRPS are required.
type Pattern struct {
	// Name identifies the pattern in the plan and matches it to a [Measurement].
	Name string
	// Kind is the operation. Required.
	Kind Kind
	// PeakRPS is the peak rate in requests per second (> 0).
	PeakRPS float64
	// AverageRPS is the average rate. Default (0): PeakRPS. At most PeakRPS.
	AverageRPS float64
	// DocumentKB is the item size in KB (1024 bytes). Default (0): 1.
	DocumentKB float64
	// ResultKB is, for a query, the size of one page of results in KB. Default (0): 1.
	ResultKB float64
	// LoadedDocuments is, for a query, the number of documents it loads (reads from the store)
	// per page: the documents its filter matches through the index, or every document in scope
	// without a usable index. Default (0): as many as ResultKB of DocumentKB items.
	LoadedDocuments float64
	// CrossPartition marks a query that does not name its partition key (it fans out to every
	// physical partition). Only for Query.
	CrossPartition bool
	// Consistency is the pattern's read consistency. Default (""): the workload's.
	Consistency Consistency
	// RU is the declared RU of one operation, replacing the model's estimate. Default (0): the
	// model. A measured figure (MeasuredRU) still wins over it.
	RU float64
	// MeasuredRU is the RU of one operation as measured ([Measure], [Workload.WithMeasurements]).
	// Default (0): not measured.
	MeasuredRU float64
}

// Workload is what a plan is made from. The zero value of every field but Patterns is its
// documented default; [Workload.Options] returns the workload with the defaults written out.
type Workload struct {
	// Patterns are the access patterns (at least one).
	Patterns []Pattern
	// DataGB is the data size in GB (excluding indexes). Default: 0.
	DataGB float64
	// Regions is the number of regions the account is in. Default (0): 1.
	Regions int
	// ZoneRedundant marks the regions as zone redundant: +25% throughput cost with single-region
	// writes, none with MultiRegionWrites. Default: false.
	ZoneRedundant bool
	// MultiRegionWrites marks an account that writes in every region. Default: false.
	MultiRegionWrites bool
	// Mode is the throughput mode the plan's cost is given in (all three are always computed).
	// Default (""): Manual.
	Mode Mode
	// LoadShape is the highest load of each hour of a day (24 levels) or a week (168), each a
	// share of the peak from 0 to 1, as the capacity calculator takes it: autoscale bills each
	// hour at its highest RU/s, so a workload that peaks for five minutes an hour pays that hour's
	// peak. [PeakHours] builds one from hours at peak. Default (nil): every hour reaches the peak.
	LoadShape []float64
	// Indexing is the container's indexing mode. Default (""): IndexingConsistent.
	Indexing IndexingMode
	// IndexedProperties is the number of property values of an item its indexing policy indexes
	// (each array element counts), for the write charge. Default (0): 2, the documented charges'
	// own (see internal/rucharge); 0 with IndexingNone.
	IndexedProperties int
	// IndexOverhead is the index size as a share of DataGB (0.2: the index is a fifth of the data);
	// the 50 GB per partition and the 1 RU/s per GB floor count data and index. Default (0):
	// DefaultIndexOverhead, or none with IndexingNone. DisableIndexOverhead counts no index.
	IndexOverhead        float64
	DisableIndexOverhead bool
	// FreeTier applies the free tier (the first 1,000 RU/s and 25 GB free) to the provisioned
	// modes. Default: false.
	FreeTier bool
	// Consistency is the account's default consistency. Default (""): Session.
	Consistency Consistency
	// HighestProvisionedRUs is the highest throughput the container ever had (manual RU/s or
	// autoscale max RU/s), for the floors: a hundredth of it for manual, a tenth for the autoscale
	// maximum. Default: 0 (a new container).
	HighestProvisionedRUs float64
	// Prices are the unit prices. Each zero field is its default (see [Prices]).
	Prices Prices
}

// Prices are the unit prices of a plan. The zero value of each field is its default: US list
// prices in USD, single-region write, taken from https://azure.microsoft.com/pricing/details/cosmos-db/
// (they change; replace them with your region's and currency's, or your negotiated prices).
type Prices struct {
	// Currency labels the amounts. Default: "USD".
	Currency string
	// ManualPer100RUsHour is standard provisioned throughput per 100 RU/s per hour.
	// Default: 0.008.
	ManualPer100RUsHour float64
	// AutoscalePer100RUsHour is autoscale throughput per 100 RU/s (of the highest reached in the
	// hour) per hour. Default: 0.012.
	AutoscalePer100RUsHour float64
	// StoragePerGBMonth is transactional storage per GB per month. Default: 0.25.
	StoragePerGBMonth float64
	// HoursPerMonth is the hours billed per month. Default: 720 (seed 004's 2,592,000 seconds;
	// the pricing page uses 730).
	HoursPerMonth float64
	// ZoneRedundancyFactor multiplies the throughput price of zone-redundant regions in a
	// single-region-write account. Default: 1.25.
	ZoneRedundancyFactor float64
	// MultiRegionWritePer100RUsHour is provisioned throughput per 100 RU/s per hour in an account
	// with multi-region writes, manual and autoscale alike: twice the single-region-write rate
	// (pricing page; learn.microsoft.com, "Autoscale FAQ": "in accounts with multiple write
	// regions, the autoscale rate per 100 RU/s is the same as the rate for standard (manual)
	// provisioned multiple write region throughput"). Default: 0.016.
	MultiRegionWritePer100RUsHour float64
	// ServerlessPerMillionRU is serverless request units per million consumed. Default: 0.25
	// (pricing page, "Serverless: $0.25 per million RUs").
	ServerlessPerMillionRU float64
	// ReservedDiscount is the share taken off provisioned throughput (manual and autoscale) by
	// reserved capacity, from 0 to 0.65 (learn.microsoft.com, "Reserved capacity": "up to 63%";
	// autoscale draws on a reservation at 1.5× the manual rate, the same share of its bill).
	// Default: 0 (pay as you go).
	ReservedDiscount float64
}

// Default prices (see [Prices]).
const (
	DefaultCurrency               = "USD"
	DefaultManualPer100RUsHour    = 0.008
	DefaultAutoscalePer100RUsHour = 0.012
	DefaultStoragePerGBMonth      = 0.25
	DefaultHoursPerMonth          = 720
	DefaultZoneRedundancyFactor   = 1.25
	// DefaultMultiRegionWritePer100RUsHour is twice DefaultManualPer100RUsHour.
	DefaultMultiRegionWritePer100RUsHour = 0.016
	DefaultServerlessPerMillionRU        = 0.25
)

// Options returns p with every zero field set to its default.
func (p Prices) Options() Prices {
	if p.Currency == "" {
		p.Currency = DefaultCurrency
	}
	if p.ManualPer100RUsHour == 0 {
		p.ManualPer100RUsHour = DefaultManualPer100RUsHour
	}
	if p.AutoscalePer100RUsHour == 0 {
		p.AutoscalePer100RUsHour = DefaultAutoscalePer100RUsHour
	}
	if p.StoragePerGBMonth == 0 {
		p.StoragePerGBMonth = DefaultStoragePerGBMonth
	}
	if p.HoursPerMonth == 0 {
		p.HoursPerMonth = DefaultHoursPerMonth
	}
	if p.ZoneRedundancyFactor == 0 {
		p.ZoneRedundancyFactor = DefaultZoneRedundancyFactor
	}
	if p.MultiRegionWritePer100RUsHour == 0 {
		p.MultiRegionWritePer100RUsHour = DefaultMultiRegionWritePer100RUsHour
	}
	if p.ServerlessPerMillionRU == 0 {
		p.ServerlessPerMillionRU = DefaultServerlessPerMillionRU
	}
	return p
}

// Options returns w with every default written out (patterns included); it does not validate.
func (w Workload) Options() Workload {
	if w.Regions == 0 {
		w.Regions = 1
	}
	if w.Mode == "" {
		w.Mode = Manual
	}
	if w.Consistency == "" {
		w.Consistency = Session
	}
	if w.Indexing == "" {
		w.Indexing = IndexingConsistent
	}
	if w.IndexedProperties == 0 && w.Indexing == IndexingConsistent {
		w.IndexedProperties = rucharge.TableIndexedTerms
	}
	if w.IndexOverhead == 0 && !w.DisableIndexOverhead && w.Indexing == IndexingConsistent {
		w.IndexOverhead = DefaultIndexOverhead
	}
	if w.LoadShape != nil {
		w.LoadShape = slices.Clone(w.LoadShape)
	}
	w.Prices = w.Prices.Options()
	ps := make([]Pattern, len(w.Patterns))
	for i, p := range w.Patterns {
		if p.AverageRPS == 0 {
			p.AverageRPS = p.PeakRPS
		}
		if p.DocumentKB == 0 {
			p.DocumentKB = 1
		}
		if p.Kind == Query && p.ResultKB == 0 {
			p.ResultKB = 1
		}
		if p.Kind == Query && p.LoadedDocuments == 0 {
			p.LoadedDocuments = math.Max(1, math.Floor(p.ResultKB/p.DocumentKB))
		}
		if p.Consistency == "" {
			p.Consistency = w.Consistency
		}
		ps[i] = p
	}
	w.Patterns = ps
	return w
}

// WithMeasurements returns a copy of w whose patterns carry the measured RU of the measurement
// with the same name (patterns without one keep theirs).
func (w Workload) WithMeasurements(ms ...Measurement) Workload {
	ps := make([]Pattern, len(w.Patterns))
	copy(ps, w.Patterns)
	for _, m := range ms {
		for i := range ps {
			if ps[i].Name == m.Pattern {
				ps[i].MeasuredRU = m.MeanRU
			}
		}
	}
	w.Patterns = ps
	return w
}

// Sanity bounds of a workload (far beyond any real account). They keep every product finite and
// within an int64, not within an int32: a workload inside them can still need more RU/s than a
// container's throughput can be set to, and New refuses it (see the check after compute).
const (
	maxDataGB   = 1e7
	maxRegions  = 100
	maxRPS      = 1e8
	maxResultKB = 4096
	maxRU       = 1e6
	maxLoaded   = 1e6

	maxIndexedProperties = 100_000
	maxIndexOverhead     = 10
	maxReservedDiscount  = 0.65
)

// PeakHours returns a daily LoadShape with hours hours at the peak and the rest at offPeak: the
// capacity calculator's "hours at peak" input. The peak hours are the first ones of the day;
// offPeak is a share of the peak, 0 to 1. hours is clamped to 0..24.
func PeakHours(hours int, offPeak float64) []float64 {
	s := make([]float64, 24)
	for i := range s {
		if i < hours {
			s[i] = 1
		} else {
			s[i] = offPeak
		}
	}
	return s
}

func bad(field, reason string) error {
	return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: field, Reason: reason}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// validate checks w (defaults applied) and names the first bad field.
func (w Workload) validate() error {
	if len(w.Patterns) == 0 {
		return bad("Workload.Patterns", "is empty; declare at least one access pattern")
	}
	if !finite(w.DataGB) || w.DataGB < 0 || w.DataGB > maxDataGB {
		return bad("Workload.DataGB", "must be a number of GB from 0 to 10,000,000")
	}
	if w.Regions < 1 || w.Regions > maxRegions {
		return bad("Workload.Regions", "must be from 1 to 100")
	}
	switch w.Mode {
	case Manual, Autoscale, Serverless:
	default:
		return bad("Workload.Mode", `must be "manual", "autoscale" or "serverless"`)
	}
	switch w.Indexing {
	case IndexingConsistent, IndexingNone:
	default:
		return bad("Workload.Indexing", `must be "consistent" or "none"`)
	}
	if w.IndexedProperties < 0 || w.IndexedProperties > maxIndexedProperties || (w.Indexing == IndexingNone && w.IndexedProperties != 0) {
		return bad("Workload.IndexedProperties", "must be from 0 to 100,000, and 0 with indexing mode none")
	}
	if !finite(w.IndexOverhead) || w.IndexOverhead < 0 || w.IndexOverhead > maxIndexOverhead {
		return bad("Workload.IndexOverhead", "must be a share of the data from 0 to 10")
	}
	if n := len(w.LoadShape); n != 0 && n != 24 && n != 168 {
		return bad("Workload.LoadShape", "must have 24 hourly levels (a day) or 168 (a week)")
	}
	for i, v := range w.LoadShape {
		if !finite(v) || v < 0 || v > 1 {
			return bad(fmt.Sprintf("Workload.LoadShape[%d]", i), "must be a share of the peak from 0 to 1")
		}
	}
	if !validConsistency(w.Consistency) {
		return bad("Workload.Consistency", "is not a consistency level (Strong, BoundedStaleness, Session, ConsistentPrefix, Eventual)")
	}
	if !finite(w.HighestProvisionedRUs) || w.HighestProvisionedRUs < 0 || w.HighestProvisionedRUs > math.MaxInt32 {
		return bad("Workload.HighestProvisionedRUs", "must be a number of RU/s from 0 to 2,147,483,647")
	}
	pr := w.Prices
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"ManualPer100RUsHour", pr.ManualPer100RUsHour},
		{"AutoscalePer100RUsHour", pr.AutoscalePer100RUsHour},
		{"StoragePerGBMonth", pr.StoragePerGBMonth},
		{"HoursPerMonth", pr.HoursPerMonth},
		{"ZoneRedundancyFactor", pr.ZoneRedundancyFactor},
		{"MultiRegionWritePer100RUsHour", pr.MultiRegionWritePer100RUsHour},
		{"ServerlessPerMillionRU", pr.ServerlessPerMillionRU},
		{"ReservedDiscount", pr.ReservedDiscount},
	} {
		if !finite(f.v) || f.v < 0 {
			return bad("Workload.Prices."+f.name, "must be a finite number, 0 or more")
		}
	}
	if pr.ReservedDiscount > maxReservedDiscount {
		return bad("Workload.Prices.ReservedDiscount", "must be a share from 0 to 0.65")
	}
	names := map[string]int{}
	for i, p := range w.Patterns {
		field := fmt.Sprintf("Workload.Patterns[%d]", i)
		if p.Name == "" {
			return bad(field+".Name", "is required")
		}
		if j, dup := names[p.Name]; dup {
			return bad(field+".Name", fmt.Sprintf("repeats Workload.Patterns[%d].Name", j))
		}
		names[p.Name] = i
		switch p.Kind {
		case Read, Create, Upsert, Replace, Patch, Delete, Query:
		default:
			return bad(field+".Kind", "is not one of read, create, upsert, replace, patch, delete, query")
		}
		if !finite(p.PeakRPS) || p.PeakRPS <= 0 || p.PeakRPS > maxRPS {
			return bad(field+".PeakRPS", "must be above 0 and at most 100,000,000")
		}
		if !finite(p.AverageRPS) || p.AverageRPS < 0 || p.AverageRPS > p.PeakRPS {
			return bad(field+".AverageRPS", "must be between 0 and PeakRPS")
		}
		if !finite(p.DocumentKB) || p.DocumentKB <= 0 || p.DocumentKB > MaxDocumentKB {
			return bad(field+".DocumentKB", "must be above 0 and at most 2048 (the 2 MB item limit)")
		}
		if !finite(p.ResultKB) || p.ResultKB < 0 || p.ResultKB > maxResultKB {
			return bad(field+".ResultKB", "must be from 0 to 4096 (a query page holds at most 4 MB)")
		}
		if p.ResultKB != 0 && p.Kind != Query {
			return bad(field+".ResultKB", "applies to queries only")
		}
		if !finite(p.LoadedDocuments) || p.LoadedDocuments < 0 || p.LoadedDocuments > maxLoaded || (p.LoadedDocuments != 0 && p.Kind != Query) {
			return bad(field+".LoadedDocuments", "applies to queries only, from 0 to 1,000,000")
		}
		if p.CrossPartition && p.Kind != Query {
			return bad(field+".CrossPartition", "applies to queries only")
		}
		if !validConsistency(p.Consistency) {
			return bad(field+".Consistency", "is not a consistency level (Strong, BoundedStaleness, Session, ConsistentPrefix, Eventual)")
		}
		if !finite(p.RU) || p.RU < 0 || p.RU > maxRU {
			return bad(field+".RU", "must be from 0 to 1,000,000")
		}
		if !finite(p.MeasuredRU) || p.MeasuredRU < 0 || p.MeasuredRU > maxRU {
			return bad(field+".MeasuredRU", "must be from 0 to 1,000,000")
		}
	}
	return nil
}

func validConsistency(c Consistency) bool {
	switch c {
	case Strong, BoundedStaleness, Session, ConsistentPrefix, Eventual:
		return true
	}
	return false
}
