package crosspartition

import (
	"regexp"
	"strings"
)

// paramLimit spots a parameterised TOP/OFFSET/LIMIT (only to refuse a plan that lacks its value).
var paramLimit = regexp.MustCompile(`(?i)\b(TOP|OFFSET|LIMIT)\s+@`)

// configure reads the plan's queryInfo: the shape, the per-range query text and the limits.
func (ex *execution) configure(query string, p *plan) error {
	qi := p.QueryInfo
	ex.qi = qi
	if len(p.HybridSearch) > 0 && string(p.HybridSearch) != "null" {
		return ex.configureHybrid(p.HybridSearch)
	}
	ex.query = query
	if qi.RewrittenQuery != "" {
		ex.query = strings.ReplaceAll(qi.RewrittenQuery, orderByFilterToken, "true")
	}
	if err := ex.configureLimits(query, qi); err != nil {
		return err
	}
	if err := ex.configureOrder(qi); err != nil {
		return err
	}
	if err := ex.configureShape(p); err != nil {
		return err
	}
	return ex.checkMerge(qi)
}

// configureLimits reads TOP, OFFSET and LIMIT.
func (ex *execution) configureLimits(query string, qi *queryInfo) error {
	ex.take = -1
	if qi.Top == nil && qi.Limit == nil && paramLimit.MatchString(query) {
		// A plan must carry the value of a parameterised TOP/LIMIT; without it the results would
		// not be cut.
		return &UnsupportedError{Construct: "TOP, OFFSET or LIMIT with a parameter", Reason: "the gateway's plan does not give its value"}
	}
	if qi.Top != nil {
		ex.take = *qi.Top
	}
	if qi.Limit != nil {
		ex.take = *qi.Limit
		if qi.Top != nil {
			ex.take = min(*qi.Top, *qi.Limit)
		}
	}
	if qi.Offset != nil {
		ex.skip = *qi.Offset
	}
	if ex.take < -1 || ex.skip < 0 {
		return &UnsupportedError{Construct: "a negative TOP, OFFSET or LIMIT"}
	}
	return nil
}

// configureOrder reads DISTINCT and the ORDER BY directions.
func (ex *execution) configureOrder(qi *queryInfo) error {
	switch qi.DistinctType {
	case "", "None":
	case "Ordered", "Unordered":
		ex.distinct = qi.DistinctType
		ex.dist = multiset{}
	default:
		return &UnsupportedError{Construct: "DISTINCT of type " + qi.DistinctType}
	}
	for _, d := range qi.OrderBy {
		switch d {
		case "Ascending":
			ex.desc = append(ex.desc, false)
		case "Descending":
			ex.desc = append(ex.desc, true)
		default:
			return &UnsupportedError{Construct: "ORDER BY direction " + d}
		}
	}
	return nil
}

// configureShape chooses how the ranges' rows are merged, refusing what a shape cannot answer.
func (ex *execution) configureShape(p *plan) error {
	qi := p.QueryInfo
	hasGroups := len(qi.GroupByExpressions) > 0 || len(qi.GroupByAliasToAggregateType) > 0
	switch {
	case qi.HasNonStreamingOrderBy:
		ex.shape = shapeNonStreaming
		if ex.take < 0 {
			return &UnsupportedError{Construct: "ORDER BY VectorDistance without TOP or LIMIT", Reason: "a non-streaming ORDER BY buffers its candidates and needs a bound"}
		}
		if ex.take+ex.skip > ex.c.opts.MaxNonStreamingItems {
			return &UnsupportedError{Construct: "ORDER BY VectorDistance with TOP or OFFSET + LIMIT above Options.MaxNonStreamingItems"}
		}
	case qi.DCountInfo != nil:
		ex.shape = shapeDCount
	case hasGroups:
		ex.shape = shapeGroupBy
	case len(qi.Aggregates) > 0 && len(qi.GroupByExpressions) == 0:
		ex.shape = shapeAggregate
		if len(qi.Aggregates) != 1 {
			return &UnsupportedError{Construct: "several aggregates in SELECT VALUE"}
		}
	case len(qi.OrderBy) > 0:
		ex.shape = shapeOrderBy
		if qi.RewrittenQuery == "" {
			return &PlanError{Reason: "the plan of an ORDER BY query has no rewrittenQuery"}
		}
	default:
		ex.shape = shapePlain
		declared := qi.Top != nil || qi.Offset != nil || qi.Limit != nil || ex.distinct != ""
		if !declared && (p.refused || qi.RewrittenQuery != "") {
			// The gateway refused the query across partitions, yet its plan names nothing this
			// engine would merge: answering with the raw fan-out could be wrong.
			return &UnsupportedError{Construct: "this query", Reason: "the gateway refuses it across partitions and its plan names no operation to merge (an aggregate inside an expression, or TOP/ORDER BY/DISTINCT in a subquery)"}
		}
	}
	return nil
}

// checkMerge refuses the combinations the merge of the chosen shape would answer wrongly.
func (ex *execution) checkMerge(qi *queryInfo) error {
	if (ex.shape == shapeAggregate || ex.shape == shapeGroupBy || ex.shape == shapeDCount) && qi.RewrittenQuery == "" {
		return &UnsupportedError{Construct: "this aggregate or GROUP BY", Reason: "the gateway's plan has no rewrittenQuery for it"}
	}
	if up := strings.ToUpper(qi.RewrittenQuery); ex.distinct != "" && ex.take >= 0 && strings.Contains(up, "TOP") && !strings.Contains(up, "DISTINCT") {
		// Each range would cut its rows by TOP/LIMIT before duplicates are removed.
		return &UnsupportedError{Construct: "DISTINCT with TOP or LIMIT", Reason: "the gateway's rewritten query limits rows before removing duplicates"}
	}
	if len(qi.OrderBy) > 0 && (ex.shape == shapeGroupBy || ex.shape == shapeAggregate) {
		return &UnsupportedError{Construct: "ORDER BY with GROUP BY or aggregates"}
	}
	return nil
}
