package query

import (
	"encoding/json"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// boundInt is the number a TOP/OFFSET/LIMIT literal or parameter stands for, nil if it is not a
// non-negative integer (execution reports that as a 400).
func boundInt(x expr, params map[string]any) *int {
	var v any
	switch e := x.(type) {
	case litExpr:
		v = e.v
	case paramExpr:
		p, ok := params[e.name]
		if !ok {
			p, ok = params[strings.TrimPrefix(e.name, "@")]
		}
		if !ok {
			return nil
		}
		v = normalize(p)
	}
	if f, ok := v.(float64); ok && f >= 0 && f == float64(int(f)) {
		n := int(f)
		return &n
	}
	return nil
}

// planQueryInfo is a plan's queryInfo (internal/wire, shared with the client).
type planQueryInfo = wire.QueryInfo

// PlanRange is one range of a plan's queryRanges: effective partition key bounds (hex), "" to
// "FF" for the whole key space.
type PlanRange = wire.QueryRange

// PlanOptions are the inputs of a plan besides the query text.
type PlanOptions struct {
	// Vector is the container's vector embedding policy (the direction of ORDER BY VectorDistance).
	Vector VectorDefaults
	// Params binds TOP, OFFSET and LIMIT parameters to the numbers the plan reports.
	Params map[string]any
	// Ranges are the queryRanges; nil means the whole key space.
	Ranges []PlanRange
	// SinglePartition is set when Ranges is one logical partition (a full partition key): that
	// partition runs OFFSET/LIMIT itself, so the plan leaves them out, as the service's does.
	SinglePartition bool
}

type plan struct {
	Version               int           `json:"partitionedQueryExecutionInfoVersion"`
	QueryInfo             planQueryInfo `json:"queryInfo"`
	QueryRanges           []PlanRange   `json:"queryRanges"`
	HybridSearchQueryInfo any           `json:"hybridSearchQueryInfo"`
}

// dCountInfo marks a COUNT over a DISTINCT subquery (SELECT VALUE COUNT(1) FROM (SELECT DISTINCT
// ...)): the client counts the distinct rows. dCountAlias is the alias of a non-VALUE count.
type dCountInfo = wire.DCountInfo

// plan is Info's plan: also for the shapes the service's plan generator refuses (Plan reports those).
func (q *Query) plan(_ Info, vec VectorDefaults) json.RawMessage {
	ranges := []PlanRange{{Min: "", Max: "FF", IsMinInclusive: true}}
	if q.sel.rank {
		if hi, err := q.hybridInfo(PlanOptions{Vector: vec}); err == nil {
			b, _ := json.Marshal(hybridPlan{Version: 2, QueryRanges: ranges, HybridSearchQueryInfo: hi})
			return b
		}
	}
	b, _ := json.Marshal(plan{Version: 2, QueryInfo: q.queryInfo(PlanOptions{Vector: vec}), QueryRanges: ranges})
	return b
}

// Plan returns the partitioned query execution info (version 2) the gateway answers a query plan
// request with, and puts in the additionalErrorInfo of a 400/1004.
func (q *Query) Plan(opts PlanOptions) (json.RawMessage, error) {
	if err := q.checkPlannable(); err != nil {
		return nil, err
	}
	// The plan binds TOP/OFFSET/LIMIT parameters, so a parameter that is not a count is refused here.
	ev := newEvaluator(Options{Params: opts.Params})
	for _, c := range []struct {
		x      expr
		clause string
	}{{q.sel.top, "TOP"}, {q.sel.offset, "OFFSET"}, {q.sel.limit, "LIMIT"}} {
		if _, isParam := c.x.(paramExpr); isParam && ev.err == nil {
			ev.count(c.x, c.clause)
		}
	}
	if ev.err != nil {
		return nil, ev.err
	}
	ranges := opts.Ranges
	if ranges == nil {
		ranges = []PlanRange{{Min: "", Max: "FF", IsMinInclusive: true, IsMaxInclusive: false}}
	}
	if q.sel.rank {
		hi, err := q.hybridInfo(opts)
		if err != nil {
			return nil, err
		}
		return json.Marshal(hybridPlan{Version: 2, QueryRanges: ranges, HybridSearchQueryInfo: hi})
	}
	p := plan{Version: 2, QueryInfo: q.queryInfo(opts), QueryRanges: ranges}
	return json.Marshal(p)
}

func (q *Query) queryInfo(opts PlanOptions) planQueryInfo {
	s := q.sel
	qi := planQueryInfo{
		DistinctType:                "None",
		OrderBy:                     []string{},
		OrderByExpressions:          []string{},
		GroupByExpressions:          []string{},
		GroupByAliases:              []string{},
		Aggregates:                  []string{},
		GroupByAliasToAggregateType: map[string]*string{},
		HasSelectValue:              s.value != nil,
	}
	if s.distinct {
		qi.DistinctType = "Unordered"
		if len(s.orderBy) > 0 {
			qi.DistinctType = "Ordered"
		}
	}
	if len(s.sources) == 0 {
		return qi // one row, whatever the partitions: nothing to merge
	}
	if sub, alias, ok := dCountShape(s); ok {
		// COUNT over a DISTINCT subquery: the partitions run the subquery, the client dedups
		// and counts.
		qi.DistinctType = "Unordered"
		qi.DCountInfo = &dCountInfo{DCountAlias: alias}
		qi.RewrittenQuery = formatSelect(sub, "")
		return qi
	}
	if s.top != nil {
		qi.Top = boundInt(s.top, opts.Params)
	}
	var offLimit *int
	plain := !s.distinct && !s.hasAgg && len(s.groupBy) == 0 && len(s.orderBy) == 0
	if s.offset != nil && (!opts.SinglePartition || !plain) {
		qi.Offset = boundInt(s.offset, opts.Params)
		qi.Limit = boundInt(s.limit, opts.Params)
		if qi.Offset != nil && qi.Limit != nil {
			n := *qi.Offset + *qi.Limit
			offLimit = &n
		}
	}
	orderBy := s.orderBy
	if s.hasAgg || len(s.groupBy) > 0 {
		orderBy = nil // one row per group: the plan orders nothing (as the service's)
	}
	for _, o := range orderBy {
		desc := o.desc
		if c, ok := o.x.(*callExpr); ok && c.name == "VECTORDISTANCE" {
			desc = vectorFunction(c, opts.Vector) != "euclidean"
			qi.HasNonStreamingOrderBy = true
		}
		dir := "Ascending"
		if desc {
			dir = "Descending"
		}
		qi.OrderBy = append(qi.OrderBy, dir)
		qi.OrderByExpressions = append(qi.OrderByExpressions, formatExpr(o.x))
	}
	for _, g := range s.groupBy {
		qi.GroupByExpressions = append(qi.GroupByExpressions, formatExpr(g))
	}
	if s.hasAgg {
		if s.value != nil {
			if c := aggregateOf(s.value); c != nil {
				qi.Aggregates = append(qi.Aggregates, c.agg.planName())
			}
		} else {
			for _, it := range s.items {
				qi.GroupByAliases = append(qi.GroupByAliases, it.name)
				// Aliases that are not a plain aggregate map to null, as in the service's plans.
				var agg *string
				if c := aggregateOf(it.x); c != nil {
					name := c.agg.planName()
					agg = &name
				}
				qi.GroupByAliasToAggregateType[it.name] = agg
			}
		}
	} else if len(s.groupBy) > 0 && s.value == nil {
		for _, it := range s.items {
			qi.GroupByAliases = append(qi.GroupByAliases, it.name)
			qi.GroupByAliasToAggregateType[it.name] = nil
		}
	}
	if s.offset != nil && opts.SinglePartition && plain {
		return qi // the one partition runs the query as written
	}
	qi.RewrittenQuery = rewrite(s, offLimit)
	return qi
}

// Features returns the query features (the names of x-ms-cosmos-supported-query-features) a
// client must implement to run the query across partitions, in the service's order; empty when
// the partitions' results need no merging.
func (q *Query) Features(opts PlanOptions) []string {
	if q.sel.rank {
		// The client runs the hybridSearchQueryInfo; RRF with weights needs the newer flag.
		if c := q.sel.orderBy[0].x.(*callExpr); c.name == "RRF" {
			if _, w := rrfParts(c); w != nil {
				return []string{"HybridSearch", "WeightedRankFusion"}
			}
		}
		return []string{"HybridSearch"}
	}
	qi := q.queryInfo(opts)
	need := map[string]bool{}
	if len(qi.Aggregates) > 0 || len(qi.GroupByAliasToAggregateType) > 0 && q.sel.hasAgg {
		n := len(qi.Aggregates)
		for _, a := range qi.GroupByAliasToAggregateType {
			if a != nil {
				n++
			}
		}
		switch {
		case n == 1 && qi.HasSelectValue:
			need["Aggregate"] = true
		case n == 1:
			need["NonValueAggregate"] = true
		default:
			need["NonValueAggregate"] = true
			need["MultipleAggregates"] = true
		}
	}
	need["Distinct"] = qi.DistinctType != "None"
	need["GroupBy"] = len(qi.GroupByExpressions) > 0
	need["OffsetAndLimit"] = qi.Offset != nil || qi.Limit != nil
	need["OrderBy"] = len(qi.OrderBy) == 1
	need["MultipleOrderBy"] = len(qi.OrderBy) > 1
	need["Top"] = qi.Top != nil
	need["NonStreamingOrderBy"] = qi.HasNonStreamingOrderBy
	need["DCount"] = qi.DCountInfo != nil
	for _, a := range qi.Aggregates {
		need["ListAndSetAggregate"] = need["ListAndSetAggregate"] || a == "MakeList" || a == "MakeSet"
	}
	for _, a := range qi.GroupByAliasToAggregateType {
		need["ListAndSetAggregate"] = need["ListAndSetAggregate"] || a != nil && (*a == "MakeList" || *a == "MakeSet")
	}
	var out []string
	for _, f := range featureOrder {
		if need[f] {
			out = append(out, f)
		}
	}
	return out
}

// featureOrder is the order of the service's QueryFeatures flags.
var featureOrder = []string{"Aggregate", "CompositeAggregate", "Distinct", "GroupBy", "MultipleAggregates",
	"MultipleOrderBy", "OffsetAndLimit", "OrderBy", "Top", "NonValueAggregate", "DCount", "NonStreamingOrderBy",
	"ListAndSetAggregate", "CountIf", "HybridSearch", "WeightedRankFusion"}

// dCountShape reports whether s is SELECT VALUE COUNT(...) (or SELECT COUNT(...) AS alias) over a
// FROM subquery that is a plain DISTINCT, and returns the subquery and the alias ("" for VALUE).
func dCountShape(s *selectQuery) (sub *selectQuery, alias string, ok bool) {
	if len(s.sources) != 1 || s.sources[0].sub == nil || s.where != nil || len(s.groupBy) > 0 ||
		len(s.orderBy) > 0 || s.top != nil || s.offset != nil || s.distinct {
		return nil, "", false
	}
	sub = s.sources[0].sub
	if !sub.distinct || sub.top != nil || sub.offset != nil || len(sub.orderBy) > 0 || len(sub.groupBy) > 0 || sub.hasAgg ||
		len(sub.sources) > 0 && sub.sources[0].sub != nil {
		return nil, "", false
	}
	x := s.value
	if x == nil {
		if len(s.items) != 1 {
			return nil, "", false
		}
		x, alias = s.items[0].x, s.items[0].name
	}
	c := aggregateOf(x)
	if c == nil || c.agg != aggCount {
		return nil, "", false
	}
	switch a := c.args[0].(type) {
	case litExpr:
	case *identExpr:
		if a.name != s.sources[0].alias {
			return nil, "", false
		}
	default:
		return nil, "", false
	}
	return sub, alias, true
}

// needsState reports whether a query level needs state across partitions.
func needsState(s *selectQuery) bool {
	return s.top != nil || s.offset != nil || len(s.orderBy) > 0 || s.distinct || len(s.groupBy) > 0 || s.hasAgg
}

// maxCount is the largest TOP, OFFSET or LIMIT count the service's plan generator accepts.
const maxCount = 1<<32 - 1

// checkPlannable reports the query shapes the service's plan generator refuses although the engine
// runs them within one partition: an aggregate inside another expression of the select list
// (partial aggregates cannot be combined through it), and counts beyond 32 bits.
func (q *Query) checkPlannable() error {
	s := q.sel
	if _, _, dcount := dCountShape(s); !dcount {
		for sub := s; len(sub.sources) > 0 && sub.sources[0].sub != nil; {
			sub = sub.sources[0].sub
			if needsState(sub) {
				// The rewrite would run the subquery per partition (each its own TOP, DISTINCT, ...).
				return badRequest("cosmostest does not support a cross-partition query whose FROM subquery has TOP, OFFSET/LIMIT, ORDER BY, DISTINCT, GROUP BY or an aggregate (except COUNT over SELECT DISTINCT).")
			}
		}
	}
	if s.hasAgg {
		xs := []expr{s.value}
		if s.value == nil {
			xs = xs[:0]
			for _, it := range s.items {
				xs = append(xs, it.x)
			}
		}
		for _, x := range xs {
			if aggregateOf(x) == nil && hasAggregate(x) {
				return badRequest("Compositions of aggregates and other expressions are not allowed.")
			}
		}
	}
	tooBig := func(x expr) bool {
		l, ok := x.(litExpr)
		f, isNum := l.v.(float64)
		return ok && isNum && f > maxCount
	}
	switch {
	case s.top != nil && tooBig(s.top):
		return badRequest("The count value provided for a TOP clause must be an integer.")
	case s.offset != nil && tooBig(s.offset):
		return badRequest("The OFFSET count value exceeds the maximum allowed value.")
	case s.limit != nil && tooBig(s.limit):
		return badRequest("The LIMIT count value exceeds the maximum allowed value.")
	}
	return nil
}
