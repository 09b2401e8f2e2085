package query

import (
	"encoding/json"
)

// Info reports what the gateway looks at to decide whether a cross-partition query can be served
// directly (none of the Has* flags set) or must be refused with Plan in additionalErrorInfo.
type Info struct {
	HasOrderBy, HasTop, HasOffsetLimit, HasDistinct, HasGroupBy, HasAggregates bool
	// HasNonStreamingOrderBy is set when ORDER BY sorts by VectorDistance.
	HasNonStreamingOrderBy bool
	// HasSelectValue is set for SELECT VALUE.
	HasSelectValue bool
	// Plan is the partitioned query execution info JSON the gateway puts in additionalErrorInfo.
	Plan json.RawMessage
}

// Info returns the query's features and its partitioned query execution plan, for a container
// without a vector embedding policy (see InfoFor).
func (q *Query) Info() Info { return q.InfoFor(VectorDefaults{}) }

// InfoFor is Info for a container with the given vector embedding policy, which decides the direction
// the plan reports for ORDER BY VectorDistance (descending for cosine and dot product, ascending for
// Euclidean).
func (q *Query) InfoFor(vec VectorDefaults) Info {
	s := q.sel
	info := Info{
		HasOrderBy:     len(s.orderBy) > 0,
		HasTop:         s.top != nil,
		HasOffsetLimit: s.offset != nil,
		HasDistinct:    s.distinct,
		HasGroupBy:     len(s.groupBy) > 0,
		HasAggregates:  s.hasAgg,
		HasSelectValue: s.value != nil,
	}
	for _, o := range s.orderBy {
		if c, ok := o.x.(*callExpr); ok && c.name == "VECTORDISTANCE" {
			info.HasNonStreamingOrderBy = true
		}
	}
	// A FROM subquery that needs state across partitions makes the whole query need it.
	for sub := s; len(sub.sources) > 0 && sub.sources[0].sub != nil; {
		sub = sub.sources[0].sub
		info.HasOrderBy = info.HasOrderBy || len(sub.orderBy) > 0
		info.HasTop = info.HasTop || sub.top != nil
		info.HasOffsetLimit = info.HasOffsetLimit || sub.offset != nil
		info.HasDistinct = info.HasDistinct || sub.distinct
		info.HasGroupBy = info.HasGroupBy || len(sub.groupBy) > 0
		info.HasAggregates = info.HasAggregates || sub.hasAgg
	}
	info.Plan = q.plan(info, vec)
	return info
}
