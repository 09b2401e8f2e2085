// Package capacity turns a declared workload into a capacity and cost plan: the throughput, the
// partitions and the monthly bill of each throughput mode.
//
//	plan, err := capacity.New(capacity.Workload{DataGB: 200, Patterns: []capacity.Pattern{
//		{Name: "get-order", Kind: capacity.Read, PeakRPS: 500, DocumentKB: 2},
//		{Name: "create-order", Kind: capacity.Create, PeakRPS: 50, DocumentKB: 2},
//	}})
//	fmt.Print(plan.Table()) // or plan.Markdown(), plan.HTML()
//
// The workload is declared as access patterns, data size, load shape, regions, zone redundancy,
// multi-region writes, indexing, throughput mode and price options; the plan gives request units per operation and per pattern, peak RU/s hour by hour, the
// throughput to provision (manual and autoscale) and the serverless alternative, the number of
// physical partitions and each one's share, the monthly bill of each mode, a recommended mode and
// why, and warnings. The RU figures can be calibrated: [Measure] runs the caller's own operation
// through a client with package diagnostics installed and reads the request charge it really
// costs.
//
// # Method
//
// The method is seed 004's (access patterns → RU per operation → RU/s → partitions → monthly bill),
// corrected against the Azure documentation; each step below names its source and is pinned by a
// test built from that source's own example.
//
// Operation charges (internal/rucharge, which cosmostest bills with too):
//
//   - Point reads and inserts follow the size table of learn.microsoft.com, "Understand request
//     unit consumption" (1 KB: read 1.00, write 4.95 RU; 128 KB: 9.95 and 48.19; 2 MB: 291.80 and
//     1,250), linear between rows: reads grow far slower than size ("Optimize request cost": a
//     100 KB read is about 10 RU).
//   - Writes grow with the number of indexed properties and fall with a selective indexing policy
//     ("Request units": "Item indexing", "Indexed properties"): [Workload.IndexedProperties],
//     [Workload.Indexing]. The docs give no figure per property: 0.2 RU each beyond the two the
//     table's items are taken to have is an assumption. A replace or patch costs 2× an insert (an
//     assumption from the service's observed charges). A delete costs an insert.
//   - Strong and Bounded Staleness reads cost 2× ("Request units": "approximately two times more").
//   - A query page costs 2.8 RU per physical partition it reads, 0.1 per document it loads
//     ([Pattern.LoadedDocuments]) and 0.1 per KB it returns (cosmostest's figures; the service's
//     depend on index lookups and are not documented as numbers).
//
// Throughput and bill (prices: https://azure.microsoft.com/pricing/details/cosmos-db/, US list
// prices in USD; [Prices] documents each default):
//
//   - Storage is data plus index: [Workload.IndexOverhead] (default [DefaultIndexOverhead], an
//     assumption) times DataGB; "Service quotas": "Storage refers to the combined amount of data
//     and index storage", for the 50 GB per partition and the 1 RU/s per GB minimum.
//   - Physical partitions at creation = max(ceil(GB / 50), ceil(RU/s / 6,000)) ("Best practices for
//     scaling provisioned throughput": a new container gets one partition per 6,000 RU/s; 25,000
//     RU/s starts with 5). The docs state it for manual throughput; the plan applies it to the
//     autoscale maximum too (not confirmed). Serverless: ceil(GB / 50).
//   - Manual = max(peak, 400, GB × 1, highest ever / 100), in hundreds ("Provision standard
//     (manual) throughput": the minimum RU/s). Billed every hour:
//     RU/s / 100 × ManualPer100RUsHour × hours a month × regions × zone factor.
//   - Autoscale max = max(peak, 1,000, GB × 10, highest ever / 10), in thousands ("Provision
//     autoscale throughput": the minimum max RU/s). Billed hour by hour at the highest RU/s the
//     hour reached, never below 10% of the max ("Autoscale FAQ"): each hour of
//     [Workload.LoadShape] bills min(max, max(10% of max, level × peak)) / 100 ×
//     AutoscalePer100RUsHour, scaled from the shape's hours to a month. Without a shape every hour
//     reaches the peak (the conservative reading: a peak of five minutes bills the whole hour).
//   - Multi-region writes bill at MultiRegionWritePer100RUsHour (twice the single-write rate),
//     manual and autoscale alike ("Autoscale FAQ"), with no zone surcharge. Zone redundancy adds
//     25% with single-region writes ("Availability zones in Azure Cosmos DB").
//   - Every region multiplies the throughput and the storage ("Optimize multi-region cost": T × N).
//   - Serverless bills the RU consumed: average RU/s × 3,600 × hours a month / 10⁶ ×
//     ServerlessPerMillionRU. It is offered only in one region, up to 1 TB and 5,000 RU/s per
//     physical partition ("Azure Cosmos DB serverless account performance"); otherwise the plan
//     says why not.
//   - Price options: [Workload.FreeTier] takes the first 1,000 RU/s and 25 GB off the provisioned
//     modes ("Azure Cosmos DB free tier"; taken once for the account, not per region: a
//     conservative reading); [Prices.ReservedDiscount] a share of provisioned throughput
//     ("Reserved capacity": up to 63%).
//   - Seed 004's "$0.008/RU per hour" read literally is 100× too high: the price is per 100 RU/s
//     per hour (its own autoscale example prices 10,000 RU/s at about $584/month over 730 hours).
//   - Warnings: more than 10,000 writes/s calls for binning (seed 004); cross-partition queries;
//     the manual floor above the peak; large items; measured figures far from the model; a cheaper
//     mode; serverless limits; more than the default 1,000,000 RU/s per container ("Service
//     quotas").
//
// Monthly figures use 720 hours (seed 004's 2,592,000 seconds; the pricing page uses 730). Prices
// are data: the caller replaces them with their own (region, currency, negotiated prices).
//
// # Limits
//
// cosmostest validates the arithmetic and the closed loop (a plan's throughput admits its peak mix;
// half of it does not), not the service's prices or its exact charges: its charges follow the same
// documented table, but its queries have no filter index. Not modelled: analytical store, backup
// storage, egress, dedicated gateway, per-region or per-partition (dynamic) autoscale, hot logical
// partitions (a single key is capped at 10,000 RU/s whatever the plan).
package capacity
