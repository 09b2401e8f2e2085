package wire

// The partitioned query execution plan (version 2) the gateway answers to a query-plan request and
// puts in the additionalErrorInfo of a 400/1004: cosmostest writes it (internal/query) and
// crosspartition reads it. Members are in the service's order.

// QueryPlanVersion is the plan's partitionedQueryExecutionInfoVersion.
const QueryPlanVersion = 2

// Placeholders the client substitutes in a plan's rewritten queries before it runs them.
const (
	// OrderByFilterPlaceholder stands for the ORDER BY resume filter ("true" on a first page).
	OrderByFilterPlaceholder = "{documentdb-formattableorderbyquery-filter}"
	// HybridDocCountPlaceholder stands for the container's document count (hybrid search).
	HybridDocCountPlaceholder = "{documentdb-formattablehybridsearchquery-totaldocumentcount}"
	// HybridWordCountPrefix, followed by the full-text statistics index and "}", stands for that
	// path's total word count.
	HybridWordCountPrefix = "{documentdb-formattablehybridsearchquery-totalwordcount-"
	// HybridHitCountsPrefix, followed by the full-text statistics index and "}", stands for the
	// array of each term's hit count.
	HybridHitCountsPrefix = "{documentdb-formattablehybridsearchquery-hitcountsarray-"
)

// QueryInfo is a plan's queryInfo: what the client merges and the query each range runs.
type QueryInfo struct {
	DistinctType                string             `json:"distinctType"`
	Top                         *int               `json:"top"`
	Offset                      *int               `json:"offset"`
	Limit                       *int               `json:"limit"`
	OrderBy                     []string           `json:"orderBy"`
	OrderByExpressions          []string           `json:"orderByExpressions"`
	GroupByExpressions          []string           `json:"groupByExpressions"`
	GroupByAliases              []string           `json:"groupByAliases"`
	Aggregates                  []string           `json:"aggregates"`
	GroupByAliasToAggregateType map[string]*string `json:"groupByAliasToAggregateType"`
	RewrittenQuery              string             `json:"rewrittenQuery"`
	HasSelectValue              bool               `json:"hasSelectValue"`
	DCountInfo                  *DCountInfo        `json:"dCountInfo"`
	HasNonStreamingOrderBy      bool               `json:"hasNonStreamingOrderBy"`
}

// DCountInfo marks a COUNT over a DISTINCT subquery (SELECT VALUE COUNT(1) FROM (SELECT DISTINCT
// ...)): the client counts the distinct rows. DCountAlias is the alias of a non-VALUE count.
type DCountInfo struct {
	DCountAlias string `json:"dCountAlias"`
}

// QueryRange is one range of a plan's queryRanges: effective partition key bounds (hex), "" to
// "FF" for the whole key space.
type QueryRange struct {
	Min            string `json:"min"`
	Max            string `json:"max"`
	IsMinInclusive bool   `json:"isMinInclusive"`
	IsMaxInclusive bool   `json:"isMaxInclusive"`
}

// HybridSearchQueryInfo is a plan's hybridSearchQueryInfo: the global statistics query, the
// component queries and how their rankings are fused.
type HybridSearchQueryInfo struct {
	GlobalStatisticsQuery             string      `json:"globalStatisticsQuery"`
	ComponentQueryInfos               []QueryInfo `json:"componentQueryInfos"`
	ComponentWithoutPayloadQueryInfos []QueryInfo `json:"componentWithoutPayloadQueryInfos"`
	ProjectionQueryInfo               *QueryInfo  `json:"projectionQueryInfo"`
	ComponentWeights                  []float64   `json:"componentWeights"`
	Skip                              *int        `json:"skip"`
	Take                              *int        `json:"take"`
	RequiresGlobalStatistics          bool        `json:"requiresGlobalStatistics"`
}
