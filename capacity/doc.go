// Package capacity turns a declared workload (access patterns, data size, regions, zone redundancy,
// throughput mode) into a capacity and cost plan: request units per operation and per pattern, peak
// RU/s, the throughput to provision (manual and autoscale), the number of physical partitions, each
// partition's share of the throughput, the monthly throughput and storage cost, and warnings. The
// RU figures can be calibrated: [Measure] runs the caller's own operation through a client with
// package diagnostics installed and reads the request charge it really costs.
//
// # Method
//
// The method is seed 004's (the cosmosdb-datamodeling skill: access patterns → RU per operation →
// RU/s → partitions → monthly bill), with these corrections:
//
//   - Throughput is priced per 100 RU/s per hour. Seed 004's "$0.008/RU per hour" read literally is
//     100× too high; its own autoscale example prices 10,000 RU/s at about $584/month, which is
//     $0.008 per 100 RU/s per hour over 730 hours. Source: the Azure Cosmos DB pricing page
//     (https://azure.microsoft.com/pricing/details/cosmos-db/, "Standard provisioned throughput:
//     $0.008/hour per 100 RU/s"; autoscale $0.012/hour per 100 RU/s).
//   - Physical partitions = max(ceil(GB / 50), ceil(RU/s / 10,000)): a physical partition holds at
//     most 50 GB and serves at most 10,000 RU/s (learn.microsoft.com, "Partitioning and horizontal
//     scaling in Azure Cosmos DB"). Seed 004 counts storage only.
//   - The manual throughput floor is max(400, GB × 1 RU/s, highest RU/s ever provisioned / 100)
//     (learn.microsoft.com, "Provision standard (manual) throughput on a container": "the minimum
//     RU/s"). The provisioned figure is the larger of the peak and the floor, rounded up to 100.
//   - Each extra region multiplies the throughput bill (and the storage bill: each region stores a
//     copy) (pricing page: "provisioned throughput ... multiplied by the number of regions").
//   - Zone redundancy adds 25% to the throughput of a single-region-write account; the plan adds
//     none with MultiRegionWrites (learn.microsoft.com, "Availability zones in Azure Cosmos DB";
//     check the pricing page for your account, and set Prices.ManualPer100RUsHour to the
//     multi-region-write price if yours differs).
//   - Autoscale's maximum is at least max(1,000, GB × 10 RU/s, highest throughput ever / 10) and is billed per hour at the highest
//     RU/s reached, never below 10% of the maximum (learn.microsoft.com, "Provision autoscale
//     throughput"); the plan bills the average RU/s.
//   - Strong and Bounded Staleness reads cost 2× (they read from two replicas of the quorum)
//     (learn.microsoft.com, "Consistency levels ... and request units"; seed 000's consistency rule).
//   - Cross-partition queries pay about 2.5 RU per physical partition on top of the query's own
//     cost (seed 004, "Cross-partition query overhead").
//   - More than 10,000 writes/s calls for binning (grouping records into chunks) (seed 004,
//     "MASSIVE SCALE WARNING").
//
// The per-operation model (RU for a 1 KB item, growing linearly with size in whole KB) uses seed
// 004's constants: point read 1 RU, create/upsert 5 RU, replace/patch 7 RU, delete 5 RU, query
// 3 RU (seed: "~2-5 RUs") for a page of up to 1 KB of results plus 1 RU per further KB. Declare a
// pattern's RU yourself, or measure it, when you know better: the plan uses measured figures first,
// then declared ones, then the model.
//
// Monthly figures use 720 hours (seed 004's 2,592,000 seconds). Prices are data: [Prices] holds
// list prices in USD that the caller replaces with their own (region, currency, reservations,
// discounts); the defaults and their sources are documented on its fields.
//
// # Limits
//
// cosmostest validates the arithmetic and the closed loop (a plan's throughput admits its peak mix;
// half of it does not), not the service's prices or its exact charges: the RU model of cosmostest
// (cosmostest/ru.go) is calibrated against the documented charges but is not the service's. Not
// modelled: serverless, reserved capacity, free tier, analytical store, backup storage,
// egress, dedicated gateway, hot logical partitions (a single key is capped at 10,000 RU/s
// whatever the plan), index size in storage, and the autoscale bill of load that varies within an
// hour (the estimate uses the average RU/s).
package capacity
