package query

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Info reports what the gateway looks at to decide whether a cross-partition query can be served
// directly (none of the Has* flags set) or must be refused with Plan in additionalErrorInfo.
type Info struct {
	HasOrderBy, HasTop, HasOffsetLimit, HasDistinct, HasGroupBy, HasAggregates bool
	// HasNonStreamingOrderBy is set when ORDER BY sorts by VectorDistance.
	HasNonStreamingOrderBy bool
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

type planQueryInfo struct {
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
	HasNonStreamingOrderBy      bool               `json:"hasNonStreamingOrderBy"`
	DCountInfo                  any                `json:"dCountInfo"`
}

type planRange struct {
	Min            string `json:"min"`
	Max            string `json:"max"`
	IsMinInclusive bool   `json:"isMinInclusive"`
	IsMaxInclusive bool   `json:"isMaxInclusive"`
}

type plan struct {
	Version     int           `json:"partitionedQueryExecutionInfoVersion"`
	QueryInfo   planQueryInfo `json:"queryInfo"`
	QueryRanges []planRange   `json:"queryRanges"`
}

func literalInt(x expr) *int {
	if l, ok := x.(litExpr); ok {
		if f, ok := l.v.(float64); ok {
			n := int(f)
			return &n
		}
	}
	return nil
}

func (q *Query) plan(info Info, vec VectorDefaults) json.RawMessage {
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
		HasNonStreamingOrderBy:      info.HasNonStreamingOrderBy,
	}
	if s.distinct {
		qi.DistinctType = "Unordered"
		if len(s.orderBy) > 0 {
			qi.DistinctType = "Ordered"
		}
	}
	if s.top != nil {
		qi.Top = literalInt(s.top)
	}
	if s.offset != nil {
		qi.Offset = literalInt(s.offset)
		qi.Limit = literalInt(s.limit)
	}
	for _, o := range s.orderBy {
		desc := o.desc
		if c, ok := o.x.(*callExpr); ok && c.name == "VECTORDISTANCE" {
			desc = vectorFunction(c, vec) != "euclidean"
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
			if c, ok := s.value.(*callExpr); ok && c.agg != aggNone {
				qi.Aggregates = append(qi.Aggregates, c.agg.planName())
			}
		} else {
			for _, it := range s.items {
				qi.GroupByAliases = append(qi.GroupByAliases, it.name)
				// Aliases that are not a plain aggregate map to null, as in the service's plans.
				var agg *string
				if c, ok := it.x.(*callExpr); ok && c.agg != aggNone {
					name := c.agg.planName()
					agg = &name
				}
				qi.GroupByAliasToAggregateType[it.name] = agg
			}
		}
	}
	if len(s.orderBy) > 0 && !s.hasAgg && len(s.groupBy) == 0 && len(s.sources) > 0 {
		qi.RewrittenQuery = q.rewriteOrderBy()
	}
	p := plan{
		Version:     2,
		QueryInfo:   qi,
		QueryRanges: []planRange{{Min: "", Max: "FF", IsMinInclusive: true, IsMaxInclusive: false}},
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil
	}
	return b
}

// rewriteOrderBy renders the per-partition query SDKs send for a cross-partition ORDER BY.
func (q *Query) rewriteOrderBy() string {
	s := q.sel
	var b strings.Builder
	b.WriteString("SELECT ")
	if s.top != nil {
		b.WriteString("TOP " + formatExpr(s.top) + " ")
	}
	alias := s.sources[0].alias
	b.WriteString(alias + "._rid, [")
	for i, o := range s.orderBy {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{"item": ` + formatExpr(o.x) + "}")
	}
	b.WriteString("] AS orderByItems, ")
	switch {
	case s.star:
		b.WriteString(alias)
	case s.value != nil:
		b.WriteString(formatExpr(s.value))
	default:
		b.WriteString("{")
		for i, it := range s.items {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(it.name) + ": " + formatExpr(it.x))
		}
		b.WriteString("}")
	}
	b.WriteString(" AS payload\nFROM " + formatSource(s.sources[0], s.container))
	for _, src := range s.sources[1:] {
		b.WriteString(" JOIN " + formatSource(src, ""))
	}
	b.WriteString("\nWHERE ({documentdb-formattableorderbyquery-filter})")
	if s.where != nil {
		b.WriteString(" AND (" + formatExpr(s.where) + ")")
	}
	b.WriteString("\nORDER BY ")
	for i, o := range s.orderBy {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(formatExpr(o.x))
		if o.desc {
			b.WriteString(" DESC")
		} else {
			b.WriteString(" ASC")
		}
	}
	return b.String()
}

func formatSource(s source, _ string) string {
	switch {
	case s.sub != nil:
		return "(subquery) AS " + s.alias
	case s.in:
		return s.alias + " IN " + formatExpr(s.x)
	}
	x := formatExpr(s.x)
	if x == s.alias {
		return x
	}
	return x + " AS " + s.alias
}

// formatExpr renders an expression as query text.
func formatExpr(x expr) string {
	switch e := x.(type) {
	case litExpr:
		if isUndef(e.v) {
			return "undefined"
		}
		return string(marshalValue(nil, e.v))
	case paramExpr:
		return e.name
	case *identExpr:
		return e.name
	case propExpr:
		if isPlainName(e.name) {
			return formatExpr(e.obj) + "." + e.name
		}
		return formatExpr(e.obj) + "[" + string(appendString(nil, e.name)) + "]"
	case indexExpr:
		return formatExpr(e.obj) + "[" + formatExpr(e.index) + "]"
	case arrayExpr:
		return "[" + formatList(e.elems) + "]"
	case objectExpr:
		parts := make([]string, len(e.keys))
		for i, k := range e.keys {
			parts[i] = string(appendString(nil, k)) + ": " + formatExpr(e.vals[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case unaryExpr:
		if e.op == "NOT" {
			return "(NOT " + formatExpr(e.x) + ")"
		}
		return "(" + e.op + formatExpr(e.x) + ")"
	case binaryExpr:
		return "(" + formatExpr(e.l) + " " + e.op + " " + formatExpr(e.r) + ")"
	case inExpr:
		not := ""
		if e.not {
			not = "NOT "
		}
		return "(" + formatExpr(e.x) + " " + not + "IN (" + formatList(e.list) + "))"
	case betweenExpr:
		not := ""
		if e.not {
			not = "NOT "
		}
		return "(" + formatExpr(e.x) + " " + not + "BETWEEN " + formatExpr(e.lo) + " AND " + formatExpr(e.hi) + ")"
	case likeExpr:
		not := ""
		if e.not {
			not = "NOT "
		}
		s := "(" + formatExpr(e.x) + " " + not + "LIKE " + formatExpr(e.pattern)
		if e.escape != nil {
			s += " ESCAPE " + formatExpr(e.escape)
		}
		return s + ")"
	case condExpr:
		return "(" + formatExpr(e.cond) + " ? " + formatExpr(e.a) + " : " + formatExpr(e.b) + ")"
	case *callExpr:
		return e.name + "(" + formatList(e.args) + ")"
	case subqueryExpr:
		return "(subquery)"
	}
	return ""
}

func formatList(xs []expr) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = formatExpr(x)
	}
	return strings.Join(parts, ", ")
}

func isPlainName(s string) bool {
	if s == "" || !isIdentStart(s[0]) || keywords[strings.ToUpper(s)] {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentPart(s[i]) {
			return false
		}
	}
	return true
}

// PartitionKeyFilter returns the values the WHERE clause pins each of paths ("/pk", "/a/b") to by
// top-level AND-ed equality (c.pk = 'x' or c.pk = @p), so that a query without a partition key header
// can be routed to one logical partition as the gateway does; ok is false if any path is not pinned.
func (q *Query) PartitionKeyFilter(paths []string, params map[string]any) (values []any, ok bool) {
	s := q.sel
	if len(paths) == 0 || s.where == nil || len(s.sources) == 0 || s.sources[0].in || s.sources[0].sub != nil {
		return nil, false
	}
	if _, isIdent := s.sources[0].x.(*identExpr); !isIdent {
		return nil, false
	}
	pins := map[string]any{}
	var collect func(x expr)
	collect = func(x expr) {
		if in, ok := x.(inExpr); ok && !in.not && len(in.list) == 1 {
			// c.pk IN ('x') pins like c.pk = 'x'.
			x = binaryExpr{"=", in.x, in.list[0]}
		}
		b, isBin := x.(binaryExpr)
		if !isBin {
			return
		}
		switch b.op {
		case "AND":
			collect(b.l)
			collect(b.r)
		case "=":
			if p := rootPath(b.l); p != "" {
				if v, ok := pinValue(b.r, params); ok {
					if _, seen := pins[p]; !seen {
						pins[p] = v
					}
				}
			} else if p := rootPath(b.r); p != "" {
				if v, ok := pinValue(b.l, params); ok {
					if _, seen := pins[p]; !seen {
						pins[p] = v
					}
				}
			}
		}
	}
	collect(s.where)
	values = make([]any, len(paths))
	for i, p := range paths {
		v, found := pins[p]
		if !found {
			return nil, false
		}
		values[i] = v
	}
	return values, true
}

// rootPath returns the partition key path of a property path on the root binding (c.a["b"] -> "/a/b").
func rootPath(x expr) string {
	var parts []string
	for {
		switch e := x.(type) {
		case propExpr:
			parts = append(parts, e.name)
			x = e.obj
		case *identExpr:
			if e.depth != 0 || e.slot != 0 || len(parts) == 0 {
				return ""
			}
			var b strings.Builder
			for i := len(parts) - 1; i >= 0; i-- {
				b.WriteByte('/')
				b.WriteString(parts[i])
			}
			return b.String()
		default:
			return ""
		}
	}
}

func pinValue(x expr, params map[string]any) (any, bool) {
	switch e := x.(type) {
	case litExpr:
		switch e.v.(type) {
		case nil, bool, float64, string:
			return e.v, true
		}
	case paramExpr:
		v, ok := params[e.name]
		if !ok {
			v, ok = params[strings.TrimPrefix(e.name, "@")]
		}
		if !ok {
			return nil, false
		}
		switch n := normalize(v).(type) {
		case nil, bool, float64, string:
			return n, true
		}
	}
	return nil, false
}
