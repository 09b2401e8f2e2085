package crosspartition

import (
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// resumeParam is the parameter that carries a resume filter's value (never spliced into the text).
const resumeParam = "@__crosspartitionResume"

// Type predicates in Cosmos DB's cross-type order, undefined first.
var typeChecks = []string{"NOT IS_DEFINED(%s)", "IS_NULL(%s)", "IS_BOOL(%s)", "IS_NUMBER(%s)", "IS_STRING(%s)", "IS_ARRAY(%s)", "IS_OBJECT(%s)"}

// resumeFilter returns the text that replaces the plan's {documentdb-formattableorderbyquery-filter}
// for the children of a split range whose parent had returned rows up to the ORDER BY values last:
// the rows whose first ORDER BY value is at or after last[0] in the query's direction (the rows
// before it were returned; the merge drops those still returned twice by their content). It is a
// superset by construction: the type order is written out with IS_* checks, numbers are compared
// with a parameter, and other types by type only (so that no string collation question can drop a
// row). expr is the plan's orderByExpressions[0], text of the service's own.
func resumeFilter(expr string, desc bool, last []any, params []azcosmos.QueryParameter) (string, []azcosmos.QueryParameter) {
	if len(last) == 0 || expr == "" || slices.ContainsFunc(params, func(p azcosmos.QueryParameter) bool { return p.Name == resumeParam }) {
		return "true", params
	}
	v := last[0]
	rank := typeRank(v)
	if rank > 6 {
		return "true", params
	}
	check := func(r int) string { return strings.ReplaceAll(typeChecks[r], "%s", expr) }
	var terms []string
	out := params
	if n, ok := v.(float64); ok {
		op := ">="
		if desc {
			op = "<="
		}
		terms = append(terms, "("+check(3)+" AND ("+expr+") "+op+" "+resumeParam+")")
		out = append(slices.Clone(params), azcosmos.QueryParameter{Name: resumeParam, Value: n})
	} else {
		terms = append(terms, check(rank))
	}
	for r := range typeChecks {
		if desc && r < rank || !desc && r > rank {
			terms = append(terms, check(r))
		}
	}
	return "(" + strings.Join(terms, " OR ") + ")", out
}

// queryFor returns the text and parameters a source runs: the plan's rewritten query with its
// filter placeholder set to true, or to the resume filter of a split's child.
func (ex *execution) queryFor(s *source) (string, []azcosmos.QueryParameter) {
	if len(s.filter) == 0 || ex.shape != shapeOrderBy || len(ex.qi.OrderByExpressions) == 0 {
		return ex.query, ex.params
	}
	last, err := parseItems(s.filter)
	if err != nil {
		return ex.query, ex.params
	}
	f, params := resumeFilter(ex.qi.OrderByExpressions[0], ex.desc[0], last, ex.params)
	return strings.ReplaceAll(ex.qi.RewrittenQuery, orderByFilterToken, f), params
}
