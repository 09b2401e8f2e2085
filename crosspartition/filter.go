package crosspartition

import (
	"slices"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// resumeParam prefixes the parameters that carry a resume filter's values (never spliced into
// the text): resumeParam + "0", "1", ... for the ORDER BY keys.
const resumeParam = "@__crosspartitionResume"

// Type predicates in Cosmos DB's cross-type order, undefined first.
var typeChecks = []string{"NOT IS_DEFINED(%s)", "IS_NULL(%s)", "IS_BOOL(%s)", "IS_NUMBER(%s)", "IS_STRING(%s)", "IS_ARRAY(%s)", "IS_OBJECT(%s)"}

// Ranks of typeChecks.
const (
	rankUndefined = iota
	rankNull
	rankBool
	rankNumber
	rankString
	rankArray
	rankObject
)

// resumeFilter returns the text that replaces the plan's {documentdb-formattableorderbyquery-filter}
// for a range resumed after the row whose ORDER BY values are keys, as the .NET and Java SDKs
// build it: for ORDER BY a, b the rows after (x, y) are (a after x) OR (a = x AND b after y), each
// "after" in its key's direction; strict excludes the rows equal to keys (a range before the one
// that returned the last row: its rows tied with it were all returned), otherwise they are
// included (the merge skips those already returned by _rid). "After" is written out in the
// cross-type order with IS_* checks (undefined < null < booleans < numbers < strings < arrays <
// objects), numbers and strings compared with a parameter, booleans and null by value; arrays and
// objects are kept by type (the service does not order them with < and >) and the merge drops the
// rows before keys. exprs are the plan's orderByExpressions, text of the service's own.
// ok is false when the filter cannot be written (a caller's parameter uses the reserved name, or
// the plan names fewer expressions than keys): the range then runs unfiltered and the merge drops
// what was returned, which is correct but reads the range again.
func resumeFilter(exprs []string, desc []bool, keys []any, strict bool, params []azcosmos.QueryParameter) (string, []azcosmos.QueryParameter, bool) {
	if len(keys) == 0 || len(exprs) < len(keys) || len(desc) < len(keys) || slices.ContainsFunc(params, func(p azcosmos.QueryParameter) bool { return strings.HasPrefix(p.Name, resumeParam) }) {
		return "true", params, false
	}
	out := slices.Clip(params)
	param := func(i int, v any) string {
		name := resumeParam + strconv.Itoa(i)
		if !slices.ContainsFunc(out, func(p azcosmos.QueryParameter) bool { return p.Name == name }) {
			out = append(out, azcosmos.QueryParameter{Name: name, Value: v})
		}
		return name
	}
	var terms []string
	for i := range keys {
		var parts []string
		for j := range i {
			parts = append(parts, equalTerm(exprs[j], keys[j], func() string { return param(j, keys[j]) }))
		}
		after := afterTerm(exprs[i], desc[i], keys[i], strict || i < len(keys)-1, func() string { return param(i, keys[i]) })
		switch {
		case after == "false":
			continue
		case after != "true":
			parts = append(parts, after)
		}
		if len(parts) == 0 {
			return "true", out, true // every row is at or after keys
		}
		if len(parts) == 1 {
			terms = append(terms, parts[0])
		} else {
			terms = append(terms, "("+strings.Join(parts, " AND ")+")")
		}
	}
	if len(terms) == 0 {
		return "false", out, true
	}
	return "(" + strings.Join(terms, " OR ") + ")", out, true
}

func check(rank int, expr string) string { return strings.ReplaceAll(typeChecks[rank], "%s", expr) }

// equalTerm is "expr equals v", exactly and within v's type.
func equalTerm(expr string, v any, param func() string) string {
	switch rank := typeRank(v); rank {
	case rankUndefined, rankNull:
		return check(rank, expr)
	case rankBool:
		return "(" + expr + ") = " + strconv.FormatBool(v.(bool))
	default:
		return "(" + expr + ") = " + param()
	}
}

// afterTerm is "expr after v" (or at or after v unless strict) in the direction of desc, in the
// cross-type order; "true" and "false" when every row or none is.
func afterTerm(expr string, desc bool, v any, strict bool, param func() string) string {
	rank := typeRank(v)
	var terms []string
	switch rank {
	case rankUndefined, rankNull:
		if !strict {
			terms = append(terms, check(rank, expr))
		}
	case rankBool:
		b := v.(bool)
		switch {
		case !strict:
			if b == desc { // ASC from false, DESC from true: every boolean
				terms = append(terms, check(rank, expr))
			} else {
				terms = append(terms, "("+expr+") = "+strconv.FormatBool(b))
			}
		case b != desc: // ASC after true, DESC after false: no boolean
		default:
			terms = append(terms, "("+expr+") = "+strconv.FormatBool(!b))
		}
	case rankNumber, rankString:
		op := ">"
		if desc {
			op = "<"
		}
		if !strict {
			op += "="
		}
		terms = append(terms, "("+expr+") "+op+" "+param())
	default: // arrays and objects: the type, then the merge drops what is before v
		terms = append(terms, check(rank, expr))
	}
	n := len(terms)
	for r := range typeChecks {
		if desc && r < rank || !desc && r > rank {
			terms = append(terms, check(r, expr))
		}
	}
	switch {
	case len(terms) == 0:
		return "false"
	case len(terms)-n == len(typeChecks)-1 && n == 1 && terms[0] == check(rank, expr):
		return "true" // the whole of v's type and every type after it
	case len(terms) == 1:
		return terms[0]
	}
	return "(" + strings.Join(terms, " OR ") + ")"
}

// queryFor returns the text and parameters a source runs: the plan's rewritten query with its
// filter placeholder set to true, or to the resume filter of the position the source starts from.
func (ex *execution) queryFor(s *source) (string, []azcosmos.QueryParameter) {
	if s.from == nil || ex.shape != shapeOrderBy {
		return ex.query, ex.params
	}
	if s.text == "" {
		f, params, _ := resumeFilter(ex.qi.OrderByExpressions, ex.desc, s.from.keys, s.from.strict, ex.params)
		s.text, s.params = strings.ReplaceAll(ex.qi.RewrittenQuery, orderByFilterToken, f), params
	}
	return s.text, s.params
}
