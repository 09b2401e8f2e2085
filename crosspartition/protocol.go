package crosspartition

import "github.com/cosmoskit/cosmoskit-go/internal/wire"

// Protocol facts of the gateway's cross-partition query support, as the .NET, Java and JS SDKs
// send them (rest_protocol.md §6). Header names are internal/wire's, shared with cosmostest.
const (
	hdrIsQueryPlan     = wire.HeaderIsQueryPlan
	hdrQueryVersion    = wire.HeaderQueryVersion
	hdrSupportedFeats  = wire.HeaderSupportedQueryFeatures
	hdrPKRangeID       = wire.HeaderPKRangeID
	hdrSubStatus       = wire.HeaderSubStatus
	queryVersion       = "1.4"
	orderByFilterToken = wire.OrderByFilterPlaceholder

	// supportedFeatures is what this engine implements: the plan request names them so that the
	// gateway refuses (rather than plans) anything else.
	supportedFeatures = "Aggregate, CompositeAggregate, Distinct, GroupBy, MultipleAggregates, MultipleOrderBy, NonStreamingOrderBy, NonValueAggregate, OffsetAndLimit, OrderBy, Top, DCount, ListAndSetAggregate, HybridSearch, WeightedRankFusion"

	subCrossPartitionQuery = 1004 // 400: the gateway cannot serve the query; the plan is in additionalErrorInfo
	subPartitionKeyGone    = 1002 // 410: the range split or merged
	subCompletingSplit     = 1007
	subCompletingMigration = 1008
)
