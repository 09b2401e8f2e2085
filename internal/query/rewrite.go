package query

import (
	"strconv"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// This file renders the rewrittenQuery of a partitioned query execution plan: the query the
// client sends to every partition key range, in the service's own text form (clauses on their own
// lines, binary operators parenthesized, strings double-quoted, FROM "Container AS alias"), so that
// the text matches the plans the gateway returns (the .NET SDK's QueryPlanBaselineTests files).

// orderByFilter is the placeholder the client replaces by "true" or by its resume filter.
const orderByFilter = wire.OrderByFilterPlaceholder

// placeholderExpr stands for the ORDER BY resume filter in a rewritten WHERE clause.
type placeholderExpr struct{}

func (placeholderExpr) isExpr() {}

// rewrite returns the rewrittenQuery for s (the root query), or "" when the partitions run the
// query as written. limit is OFFSET+LIMIT when the query has OFFSET/LIMIT (bound to numbers).
func rewrite(s *selectQuery, offLimit *int) string {
	switch {
	case len(s.groupBy) > 0:
		return rewriteGroupBy(s)
	case s.hasAgg:
		return rewriteAggregate(s)
	case len(s.orderBy) > 0 && len(s.sources) > 0:
		return rewriteOrderBy(s, offLimit)
	case s.distinct && (s.offset != nil || s.top != nil):
		// DISTINCT dedups across partitions on the client, so every partition returns all of its
		// distinct rows and the client applies TOP or OFFSET/LIMIT.
		c := *s
		c.offset, c.limit, c.top = nil, nil, nil
		return formatSelect(&c, "")
	case s.offset != nil && offLimit != nil:
		// Every partition returns its first OFFSET+LIMIT rows; the client skips OFFSET of the merge.
		c := *s
		c.offset, c.limit = litExpr{0.0}, litExpr{float64(*offLimit)}
		return formatSelect(&c, "")
	}
	return ""
}

func rewriteOrderBy(s *selectQuery, offLimit *int) string {
	alias := s.sources[0].alias
	var b strings.Builder
	b.WriteString("SELECT ")
	// DISTINCT dedups on the client, so a partition cannot cut its rows at TOP or OFFSET+LIMIT
	// before duplicates are gone.
	if s.top != nil && !s.distinct {
		b.WriteString("TOP " + formatExpr(s.top) + " ")
	}
	b.WriteString(alias + "._rid, [")
	for i, o := range s.orderBy {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{"item": ` + formatExpr(o.x) + "}")
	}
	b.WriteString("] AS orderByItems, ")
	b.WriteString(payloadOf(s) + " AS payload")
	writeFrom(&b, s, "")
	var where expr = placeholderExpr{}
	if s.where != nil {
		where = binaryExpr{"AND", s.where, where}
	}
	if s.value != nil {
		where = binaryExpr{"AND", where, &callExpr{name: "IS_DEFINED", written: "IS_DEFINED", args: []expr{s.value}}}
	}
	b.WriteString("\nWHERE " + formatExpr(where))
	writeOrderBy(&b, s, "")
	if s.offset != nil && offLimit != nil && !s.distinct {
		b.WriteString("\nOFFSET 0 LIMIT " + strconv.Itoa(*offLimit))
	}
	return b.String()
}

// payloadOf is the payload of an ORDER BY rewrite: the whole row for SELECT *, the VALUE
// expression, or an object of the select list.
func payloadOf(s *selectQuery) string {
	switch {
	case s.star:
		return s.sources[0].alias
	case s.value != nil:
		return formatExpr(s.value)
	}
	parts := make([]string, len(s.items))
	for i, it := range s.items {
		parts[i] = string(appendString(nil, it.name)) + ": " + formatExpr(it.x)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// aggForm is the partial aggregate a partition returns for one aggregate call, which the client
// combines: {"item": COUNT(x)}, {"item": SUM(x)}, {"item": MIN(x), "item2": {"min": MIN(x),
// "count": COUNT(x)}} (MAX alike; item2 tells an undefined MIN apart from an empty partition),
// {"item": {"sum": SUM(x), "count": COUNT(x)}} for AVG.
func aggForm(c *callExpr) string {
	arg := formatExpr(c.args[0])
	switch c.agg {
	case aggAvg:
		return `{"item": {"sum": SUM(` + arg + `), "count": COUNT(` + arg + `)}}`
	case aggMin, aggMax:
		n := strings.ToLower(c.name)
		return `{"item": ` + formatExpr(c) + `, "item2": {"` + n + `": ` + c.name + "(" + arg + `), "count": COUNT(` + arg + `)}}`
	}
	return `{"item": ` + formatExpr(c) + "}"
}

// aggregateOf returns the aggregate call x is, or nil.
func aggregateOf(x expr) *callExpr {
	if c, ok := x.(*callExpr); ok && c.agg != aggNone {
		return c
	}
	return nil
}

// aggPayload renders a select list whose aggregates become their partial forms.
func aggPayload(s *selectQuery) string {
	if s.value != nil {
		if c := aggregateOf(s.value); c != nil {
			return "[" + aggForm(c) + "]"
		}
		return formatExpr(s.value)
	}
	parts := make([]string, len(s.items))
	for i, it := range s.items {
		v := formatExpr(it.x)
		if c := aggregateOf(it.x); c != nil {
			v = aggForm(c)
		}
		parts[i] = string(appendString(nil, it.name)) + ": " + v
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func rewriteAggregate(s *selectQuery) string {
	var b strings.Builder
	if s.value != nil {
		b.WriteString("SELECT VALUE " + aggPayload(s))
	} else {
		b.WriteString("SELECT " + aggPayload(s) + " AS payload")
	}
	writeFrom(&b, s, "")
	if s.where != nil {
		b.WriteString("\nWHERE " + formatExpr(s.where))
	}
	writeOrderBy(&b, s, "")
	return b.String()
}

func rewriteGroupBy(s *selectQuery) string {
	var b strings.Builder
	b.WriteString("SELECT [")
	for i, g := range s.groupBy {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{"item": ` + formatExpr(g) + "}")
	}
	b.WriteString("] AS groupByItems, " + aggPayload(s) + " AS payload")
	writeFrom(&b, s, "")
	if s.where != nil {
		b.WriteString("\nWHERE " + formatExpr(s.where))
	}
	b.WriteString("\nGROUP BY " + formatList(s.groupBy))
	return b.String()
}

// formatSelect renders a whole query in the service's form; indent prefixes every line but the
// first (subqueries).
func formatSelect(s *selectQuery, indent string) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if s.distinct {
		b.WriteString("DISTINCT ")
	}
	if s.top != nil {
		b.WriteString("TOP " + formatExpr(s.top) + " ")
	}
	switch {
	case s.star:
		b.WriteString("*")
	case s.value != nil:
		b.WriteString("VALUE " + formatExpr(s.value))
	default:
		for i, it := range s.items {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(formatExpr(it.x))
			if it.aliased {
				b.WriteString(" AS " + it.name)
			}
		}
	}
	writeFrom(&b, s, indent)
	if s.where != nil {
		b.WriteString("\n" + indent + "WHERE " + formatExpr(s.where))
	}
	if len(s.groupBy) > 0 {
		b.WriteString("\n" + indent + "GROUP BY " + formatList(s.groupBy))
	}
	writeOrderBy(&b, s, indent)
	if s.offset != nil {
		b.WriteString("\n" + indent + "OFFSET " + formatExpr(s.offset) + " LIMIT " + formatExpr(s.limit))
	}
	return b.String()
}

func writeFrom(b *strings.Builder, s *selectQuery, indent string) {
	for i, src := range s.sources {
		if i == 0 {
			b.WriteString("\n" + indent + "FROM ")
		} else {
			b.WriteString("\n" + indent + "JOIN ")
		}
		b.WriteString(formatSourceIndented(src, indent))
	}
}

func writeOrderBy(b *strings.Builder, s *selectQuery, indent string) {
	if len(s.orderBy) == 0 {
		return
	}
	b.WriteString("\n" + indent + "ORDER BY ")
	for i, o := range s.orderBy {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(formatExpr(o.x))
		switch {
		case o.desc:
			b.WriteString(" DESC")
		case o.asc:
			b.WriteString(" ASC")
		}
	}
}

func formatSourceIndented(s source, indent string) string {
	switch {
	case s.sub != nil:
		inner := indent + "    "
		sub := "(\n" + inner + formatSelect(s.sub, inner) + "\n" + indent + ")"
		if s.alias != "" {
			sub += " AS " + s.alias
		}
		return sub
	case s.in:
		return s.alias + " IN " + formatExpr(s.x)
	}
	x := formatExpr(s.x)
	if x == s.alias {
		return x
	}
	return x + " AS " + s.alias
}
