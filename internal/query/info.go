package query

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
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
	DCountInfo                  *dCountInfo        `json:"dCountInfo"`
	HasNonStreamingOrderBy      bool               `json:"hasNonStreamingOrderBy"`
}

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

// PlanRange is one range of a plan's queryRanges: effective partition key bounds (hex), "" to
// "FF" for the whole key space.
type PlanRange struct {
	Min            string `json:"min"`
	Max            string `json:"max"`
	IsMinInclusive bool   `json:"isMinInclusive"`
	IsMaxInclusive bool   `json:"isMaxInclusive"`
}

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
type dCountInfo struct {
	DCountAlias string `json:"dCountAlias"`
}

// plan is Info's plan: also for the shapes the service's plan generator refuses (Plan reports those).
func (q *Query) plan(_ Info, vec VectorDefaults) json.RawMessage {
	b, _ := json.Marshal(plan{Version: 2, QueryInfo: q.queryInfo(PlanOptions{Vector: vec}),
		QueryRanges: []PlanRange{{Min: "", Max: "FF", IsMinInclusive: true}}})
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

// formatExpr renders an expression as query text, in the service's form (obj["name"] as written).
func formatExpr(x expr) string { return exprFormat{keepQuoted: true}.expr(x) }

// formatList renders expressions separated by ", ".
func formatList(xs []expr) string { return exprFormat{keepQuoted: true}.list(xs) }

// exprKey renders an expression with obj["name"] as obj.name, to compare expressions.
func exprKey(x expr) string { return exprFormat{}.expr(x) }

// exprFormat renders expressions; keepQuoted keeps obj["name"] as written.
type exprFormat struct{ keepQuoted bool }

func (f exprFormat) expr(x expr) string {
	switch e := x.(type) {
	case litExpr:
		if isUndef(e.v) {
			return "undefined"
		}
		if n, ok := e.v.(float64); ok && n != math.Trunc(n) {
			// The service prints numbers that are not integers with 17 significant digits
			// (-0.0056763873435556889 for -0.005676387343555689), as C's %.17g does.
			return strconv.FormatFloat(n, 'g', 17, 64)
		}
		return string(marshalValue(nil, e.v))
	case paramExpr:
		return e.name
	case *identExpr:
		return e.name
	case propExpr:
		if isPlainName(e.name) && !e.quoted {
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
		name := e.written
		if name == "" {
			name = e.name
		}
		return name + "(" + formatList(e.args) + ")"
	case subqueryExpr:
		pre := ""
		switch e.kind {
		case subExists:
			pre = "EXISTS"
		case subArray:
			pre = "ARRAY"
		}
		return pre + "(" + formatSelect(e.q, "") + ")"
	case placeholderExpr:
		return "(" + orderByFilter + ")"
	}
	return ""
}

func (f exprFormat) list(xs []expr) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = f.expr(x)
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

// maxPlanPoints caps the logical partitions a plan lists before it falls back to the whole key
// space (a WHERE with large IN lists on every key path).
const maxPlanPoints = 1000

// PartitionKeyPoints returns the logical partitions (or, for hierarchical keys, the key prefixes)
// the WHERE clause limits the query to, for a plan's queryRanges: top-level AND-ed equalities and
// IN lists on the key paths, each tuple holding values for paths[:n] with the same n for all.
// ok is false when the first path is not pinned (the query spans the whole key space).
//
// A query that reads no document (no FROM, or WHERE false) has ok true and no points.
func (q *Query) PartitionKeyPoints(paths []string, params map[string]any) (points [][]any, ok bool) {
	s := q.sel
	if len(s.sources) == 0 {
		return nil, true
	}
	if l, isLit := s.where.(litExpr); isLit && l.v == false {
		return nil, true
	}
	if len(paths) == 0 || s.where == nil || s.sources[0].in || s.sources[0].sub != nil {
		return nil, false
	}
	if _, isIdent := s.sources[0].x.(*identExpr); !isIdent {
		return nil, false
	}
	pins := keyPins(s.where, params)
	points = [][]any{{}}
	for _, p := range paths {
		vals, found := pins[p]
		if !found || len(points)*len(vals) > maxPlanPoints {
			break
		}
		var next [][]any
		for _, pt := range points {
			for _, v := range vals {
				next = append(next, append(pt[:len(pt):len(pt)], v))
			}
		}
		points = next
	}
	if len(points) == 0 {
		return nil, true // contradictory pins (c.pk = 1 AND c.pk = 2): no document can match
	}
	if len(points[0]) == 0 {
		return nil, false
	}
	return points, true
}

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

// keyPins returns, per root property path, the values a WHERE condition x limits it to: equalities
// and IN lists with literal or parameter values, c.flag (true), NOT c.flag (false), IS_BOOL,
// IS_NULL and ARRAY_CONTAINS over a literal array. AND intersects; OR keeps the paths both sides
// limit, with the values of either. A path absent from the map is not limited.
func keyPins(x expr, params map[string]any) map[string][]any {
	pins := map[string][]any{}
	one := func(p string, vals ...any) map[string][]any {
		if p == "" {
			return pins
		}
		pins[p] = vals
		return pins
	}
	switch e := x.(type) {
	case propExpr:
		return one(rootPath(e), true)
	case unaryExpr:
		if e.op == "NOT" {
			if _, isPath := e.x.(propExpr); isPath {
				return one(rootPath(e.x), false)
			}
		}
	case *callExpr:
		switch {
		case e.name == "IS_BOOL" && len(e.args) == 1:
			return one(rootPath(e.args[0]), false, true)
		case e.name == "IS_NULL" && len(e.args) == 1:
			return one(rootPath(e.args[0]), nil)
		case e.name == "ARRAY_CONTAINS" && len(e.args) == 2:
			arr, ok := e.args[0].(arrayExpr)
			if !ok {
				return pins
			}
			vals, ok := pinValues(arr.elems, params)
			if ok {
				return one(rootPath(e.args[1]), vals...)
			}
		}
	case inExpr:
		if !e.not {
			if vals, ok := pinValues(e.list, params); ok {
				return one(rootPath(e.x), vals...)
			}
		}
	case binaryExpr:
		switch e.op {
		case "AND":
			l, r := keyPins(e.l, params), keyPins(e.r, params)
			for p, vals := range r {
				old, seen := l[p]
				if !seen {
					l[p] = vals
					continue
				}
				both := []any{}
				for _, v := range vals {
					if slices.ContainsFunc(old, func(o any) bool { eq, ok := equalValues(o, v); return eq && ok }) {
						both = append(both, v)
					}
				}
				l[p] = both
			}
			return l
		case "OR":
			l, r := keyPins(e.l, params), keyPins(e.r, params)
			for p, vals := range l {
				if rv, both := r[p]; both {
					for _, v := range rv {
						if !slices.ContainsFunc(vals, func(o any) bool { eq, ok := equalValues(o, v); return eq && ok }) {
							vals = append(vals, v)
						}
					}
					pins[p] = vals
				}
			}
			return pins
		case "=":
			l, r := e.l, e.r
			if rootPath(l) == "" {
				l, r = r, l
			}
			if v, ok := pinValue(r, params); ok {
				return one(rootPath(l), v)
			}
		}
	}
	return pins
}

// pinValues returns the partition key values of literal or parameter expressions; ok is false if
// any is not a key value (arrays, objects, expressions).
func pinValues(xs []expr, params map[string]any) ([]any, bool) {
	vals := make([]any, 0, len(xs))
	for _, x := range xs {
		v, ok := pinValue(x, params)
		if !ok {
			return nil, false
		}
		vals = append(vals, v)
	}
	return vals, true
}
