package query

import (
	"math"
	"slices"
	"strings"
)

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
func rootPath(x expr) string { return propertyPath(x, true) }

// propertyPath returns the path of a property expression (c.a["b"] -> "/a/b"), or "" when x is
// not one; with root set, only on the query's root binding.
func propertyPath(x expr, root bool) string {
	var parts []string
	for {
		switch e := x.(type) {
		case propExpr:
			parts = append(parts, e.name)
			x = e.obj
		case *identExpr:
			if (root && (e.depth != 0 || e.slot != 0)) || len(parts) == 0 {
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
// A value that is an array or an object stands for the undefined key component (a document whose
// key path holds one is stored under the undefined key), and is returned as undefined
// (jsonorder.Undefined), as the service's plans list it ([{}] in the SDKs' notation).
//
// A query that reads no document (no FROM, WHERE false, contradictory pins such as c.pk = 1 AND
// c.pk = 2) has ok true and the one empty point: the service's plan then has the single EPK point
// ["",""], which a client sends to the range holding the start of the key space, once.
//
// A WHERE that reads no document property (ST_WITHIN of two literals, a parameter compared with a
// literal) is evaluated once, in the container's geospatial configuration geo, as the service
// folds it: anything but true reads nothing.
func (q *Query) PartitionKeyPoints(paths []string, params map[string]any, geo Geospatial) (points [][]any, ok bool) {
	s := q.sel
	readsNothing := [][]any{{}}
	if len(s.sources) == 0 {
		return readsNothing, true
	}
	if constantFilter(s.where) {
		ev := newEvaluator(Options{Params: params, Geospatial: geo})
		if v, isBool := ev.eval(s.where, nil).(bool); ev.err == nil && (!isBool || !v) {
			return readsNothing, true
		}
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
		return readsNothing, true // contradictory pins (c.pk = 1 AND c.pk = 2): no document can match
	}
	if len(points[0]) == 0 {
		return nil, false
	}
	return points, true
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
		var distinct []any
		for _, v := range vals {
			if !slices.ContainsFunc(distinct, func(o any) bool { return sameKeyValue(o, v) }) {
				distinct = append(distinct, v)
			}
		}
		pins[p] = distinct
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
		case (e.name == "ARRAY_CONTAINS" || e.name == "_TRY_ARRAY_CONTAINS") && len(e.args) == 2:
			arr, ok := e.args[0].(arrayExpr)
			if !ok {
				return pins
			}
			vals, ok := pinValues(arr.elems, params)
			if ok {
				return one(rootPath(e.args[1]), vals...)
			}
		}
	case likeExpr:
		// A pattern without wildcards is an equality: c.a LIKE 'a!%' ESCAPE '!' pins "a%".
		if !e.not {
			if v, ok := likeLiteral(e, params); ok {
				return one(rootPath(e.x), v)
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
					if slices.ContainsFunc(old, func(o any) bool { return sameKeyValue(o, v) }) {
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
						if !slices.ContainsFunc(vals, func(o any) bool { return sameKeyValue(o, v) }) {
							vals = append(vals, v)
						}
					}
					pins[p] = vals
				}
			}
			return pins
		case "=", "!=", "<", "<=", ">", ">=":
			// A comparison with a scalar subquery over the same document is true only where the
			// subquery's WHERE holds (else it is undefined): its pins apply.
			for _, side := range []expr{e.l, e.r} {
				if w := sameDocumentFilter(side); w != nil {
					return keyPins(w, params)
				}
			}
			if e.op != "=" {
				break
			}
			l, r := e.l, e.r
			if rootPath(l) == "" {
				l, r = r, l
			}
			if v, ok := keyValue(r, params); ok && rootPath(l) != "" {
				return one(rootPath(l), v)
			}
			// ABS(c.key) = n pins -n and n, as the service inverts it.
			if _, isCall := l.(*callExpr); !isCall {
				l, r = r, l
			}
			if c, isCall := l.(*callExpr); isCall && c.name == "ABS" && len(c.args) == 1 {
				if v, ok := pinValue(r, params); ok {
					if n, isNum := v.(float64); isNum && !math.IsNaN(n) {
						switch {
						case n < 0:
							return one(rootPath(c.args[0]))
						case n == 0:
							return one(rootPath(c.args[0]), 0.0)
						}
						return one(rootPath(c.args[0]), -n, n)
					}
				}
			}
		}
	}
	return pins
}

// keyValue is pinValue for a plan's key points: an array or object (literal or parameter) is the
// undefined key component.
func keyValue(x expr, params map[string]any) (any, bool) {
	switch e := x.(type) {
	case arrayExpr, objectExpr:
		return undefined, true
	case paramExpr:
		v, ok := params[e.name]
		if !ok {
			v, ok = params[strings.TrimPrefix(e.name, "@")]
		}
		if ok {
			switch normalize(v).(type) {
			case []any, map[string]any:
				return undefined, true
			}
		}
	}
	return pinValue(x, params)
}

// sameKeyValue reports whether two key values are the same key component (undefined included).
func sameKeyValue(a, b any) bool {
	if isUndef(a) || isUndef(b) {
		return isUndef(a) && isUndef(b)
	}
	eq, ok := equalValues(a, b)
	return eq && ok
}

// pinValues returns the partition key values of literal or parameter expressions; ok is false if
// any is not a key value (arrays, objects, expressions).
func pinValues(xs []expr, params map[string]any) ([]any, bool) {
	vals := make([]any, 0, len(xs))
	for _, x := range xs {
		v, ok := keyValue(x, params)
		if !ok {
			return nil, false
		}
		vals = append(vals, v)
	}
	return vals, true
}

// likeLiteral is the string a LIKE pattern (literal or parameter, with its escape character)
// matches when it holds no wildcard; ok is false when it holds one.
func likeLiteral(e likeExpr, params map[string]any) (string, bool) {
	pv, ok := pinValue(e.pattern, params)
	pat, isStr := pv.(string)
	if !ok || !isStr {
		return "", false
	}
	escR := rune(-1)
	if e.escape != nil {
		ev, ok := pinValue(e.escape, params)
		esc, isStr := ev.(string)
		if !ok || !isStr || esc == "" {
			return "", false
		}
		escR = []rune(esc)[0]
	}
	var b strings.Builder
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == escR && i+1 < len(rs):
			i++
			b.WriteRune(rs[i])
		case r == '%' || r == '_' || r == '[' || r == escR:
			return "", false
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), true
}

// sameDocumentFilter is the WHERE of a scalar subquery that reads the outer query's document itself
// ((SELECT ... FROM c WHERE ...) with no JOIN, aggregate, GROUP BY or paging): such a subquery
// is undefined where its WHERE does not hold. nil for any other expression.
func sameDocumentFilter(x expr) expr {
	sq, ok := x.(subqueryExpr)
	if !ok || sq.kind != subScalar || sq.q == nil {
		return nil
	}
	s := sq.q
	if s.where == nil || len(s.sources) != 1 || s.sources[0].in || s.sources[0].sub != nil || s.hasAgg ||
		len(s.groupBy) > 0 || s.top != nil || s.offset != nil || s.limit != nil {
		return nil
	}
	id, isIdent := s.sources[0].x.(*identExpr)
	if !isIdent || id.depth != 1 || id.slot != 0 {
		return nil
	}
	return s.where
}

// constantFilter reports whether a WHERE condition reads nothing of the document and has the same
// value for every document and every run: no binding, subquery, aggregate or clock.
func constantFilter(x expr) bool {
	if x == nil {
		return false
	}
	constant := true
	walk(x, func(e expr) bool {
		switch n := e.(type) {
		case *identExpr, subqueryExpr:
			constant = false
		case *callExpr:
			if n.fn == nil || n.agg != aggNone || strings.HasPrefix(n.name, "GETCURRENT") || n.name == "RAND" {
				constant = false
			}
		}
		return constant
	})
	return constant
}
