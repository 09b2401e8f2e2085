package query

// resolver binds identifiers to FROM aliases and checks the rules the service enforces at compile time.
type resolver struct {
	frames [][]string // innermost last
}

func (r *resolver) query(q *selectQuery, root bool) error {
	if q.star && len(q.sources) == 0 {
		return badRequest("'SELECT *' is not valid if FROM clause is omitted.")
	}
	if q.star && len(q.sources) > 1 {
		return badRequest("'SELECT *' is only valid with a single input set.")
	}
	saved := r.frames
	defer func() { r.frames = saved }()
	var names []string
	for i, s := range q.sources {
		if s.sub != nil {
			if err := r.query(s.sub, root && i == 0); err != nil {
				return err
			}
		} else {
			if root && i == 0 {
				r.frames = [][]string{{q.container}}
			} else {
				r.frames = append(saved[:len(saved):len(saved)], names)
			}
			if err := r.expr(s.x, false); err != nil {
				return err
			}
		}
		for _, n := range names {
			if n == s.alias && n != "" {
				return badRequest("The input alias '%s' is specified more than once in the FROM clause.", n)
			}
		}
		names = append(names[:len(names):len(names)], s.alias)
	}
	if root {
		r.frames = [][]string{names}
	} else {
		r.frames = append(saved[:len(saved):len(saved)], names)
	}
	if q.top != nil {
		if err := r.expr(q.top, false); err != nil {
			return err
		}
	}
	if q.where != nil {
		if hasAggregate(q.where) {
			return badRequest("Aggregate functions are not allowed in the WHERE clause.")
		}
		if err := r.expr(q.where, false); err != nil {
			return err
		}
	}
	if len(q.groupBy) > 0 && len(q.orderBy) > 0 {
		return badRequest("ORDER BY is not supported in conjunction with GROUP BY.")
	}
	for _, g := range q.groupBy {
		if hasAggregate(g) {
			return badRequest("Aggregate functions are not allowed in the GROUP BY clause.")
		}
		if hasSubquery(g) {
			return badRequest("Subqueries are not allowed in the GROUP BY clause.")
		}
		if !hasPropertyReference(g) {
			return badRequest("A GROUP BY expression must contain at least one property reference.")
		}
		if err := r.expr(g, false); err != nil {
			return err
		}
	}
	if q.value != nil {
		if err := r.expr(q.value, true); err != nil {
			return err
		}
		q.hasAgg = q.hasAgg || hasAggregate(q.value)
	}
	for _, it := range q.items {
		if err := r.expr(it.x, true); err != nil {
			return err
		}
		q.hasAgg = q.hasAgg || hasAggregate(it.x)
	}
	if len(q.groupBy) > 0 || q.hasAgg {
		if q.star && len(q.groupBy) > 0 {
			return badRequest("'SELECT *' is not allowed with GROUP BY.")
		}
		if q.star {
			return badRequest("'SELECT *' is not valid with GROUP BY or aggregate functions.")
		}
		if err := checkGroupedSelect(q); err != nil {
			return err
		}
	}
	for _, o := range q.orderBy {
		if err := r.expr(o.x, len(q.groupBy) > 0); err != nil {
			return err
		}
		if q.rank {
			break
		}
		if c, ok := o.x.(*callExpr); ok && c.name == "VECTORDISTANCE" && (o.asc || o.desc) {
			// The direction comes from the distance function (see VectorDefaults).
			return badRequest("Specifying a sorting order (ASC or DESC) with VectorDistance function is not supported.")
		}
		// An aggregate query yields one row, so its ORDER BY items are not checked (the service plans
		// SELECT VALUE AVG(c.age) FROM r JOIN c IN r.children ORDER BY c.name).
		if len(q.groupBy) == 0 && !q.hasAgg && !hasAggregate(o.x) {
			if err := checkOrderByItem(o.x); err != nil {
				return err
			}
		}
		q.hasAgg = q.hasAgg || hasAggregate(o.x)
	}
	return checkScoring(q, root)
}

func (r *resolver) lookup(id *identExpr) error {
	for d := len(r.frames) - 1; d >= 0; d-- {
		for s, n := range r.frames[d] {
			if n == id.name {
				id.depth = len(r.frames) - 1 - d
				id.slot = s
				return nil
			}
		}
	}
	return badRequest("Identifier '%s' could not be resolved.", id.name)
}

// expr resolves x; aggOK says whether aggregate calls may appear (select list and ORDER BY of a
// grouped query).
func (r *resolver) expr(x expr, aggOK bool) error {
	switch e := x.(type) {
	case nil, litExpr, paramExpr:
		return nil
	case *identExpr:
		return r.lookup(e)
	case propExpr:
		return r.expr(e.obj, aggOK)
	case indexExpr:
		if err := r.expr(e.obj, aggOK); err != nil {
			return err
		}
		return r.expr(e.index, aggOK)
	case arrayExpr:
		return r.exprs(e.elems, aggOK)
	case objectExpr:
		return r.exprs(e.vals, aggOK)
	case unaryExpr:
		return r.expr(e.x, aggOK)
	case binaryExpr:
		if err := r.expr(e.l, aggOK); err != nil {
			return err
		}
		return r.expr(e.r, aggOK)
	case inExpr:
		if err := r.expr(e.x, aggOK); err != nil {
			return err
		}
		return r.exprs(e.list, aggOK)
	case betweenExpr:
		return r.exprs([]expr{e.x, e.lo, e.hi}, aggOK)
	case likeExpr:
		return r.exprs([]expr{e.x, e.pattern, e.escape}, aggOK)
	case condExpr:
		return r.exprs([]expr{e.cond, e.a, e.b}, aggOK)
	case *callExpr:
		if e.agg != aggNone {
			if !aggOK {
				return badRequest("Aggregate function '%s' is not allowed here.", e.name)
			}
			for _, a := range e.args {
				if hasAggregate(a) {
					return badRequest("Cannot perform an aggregate function on an expression containing an aggregate or a subquery.")
				}
			}
		}
		return r.exprs(e.args, aggOK)
	case subqueryExpr:
		saved := r.frames
		err := r.query(e.q, false)
		r.frames = saved
		return err
	}
	return nil
}

func (r *resolver) exprs(xs []expr, aggOK bool) error {
	for _, x := range xs {
		if err := r.expr(x, aggOK); err != nil {
			return err
		}
	}
	return nil
}

// hasAggregate reports whether x calls an aggregate at this query level (not inside subqueries).
func hasAggregate(x expr) bool {
	found := false
	walk(x, func(e expr) bool {
		if c, ok := e.(*callExpr); ok && c.agg != aggNone {
			found = true
		}
		return !found
	})
	return found
}

// walk calls f on x and its children (not descending into subqueries) while f returns true.
func walk(x expr, f func(expr) bool) {
	if x == nil || !f(x) {
		return
	}
	switch e := x.(type) {
	case propExpr:
		walk(e.obj, f)
	case indexExpr:
		walk(e.obj, f)
		walk(e.index, f)
	case arrayExpr:
		for _, c := range e.elems {
			walk(c, f)
		}
	case objectExpr:
		for _, c := range e.vals {
			walk(c, f)
		}
	case unaryExpr:
		walk(e.x, f)
	case binaryExpr:
		walk(e.l, f)
		walk(e.r, f)
	case inExpr:
		walk(e.x, f)
		for _, c := range e.list {
			walk(c, f)
		}
	case betweenExpr:
		walk(e.x, f)
		walk(e.lo, f)
		walk(e.hi, f)
	case likeExpr:
		walk(e.x, f)
		walk(e.pattern, f)
		walk(e.escape, f)
	case condExpr:
		walk(e.cond, f)
		walk(e.a, f)
		walk(e.b, f)
	case *callExpr:
		for _, c := range e.args {
			walk(c, f)
		}
	}
}

// checkOrderByItem enforces the service's rule that an ORDER BY item is a document path of the FROM
// source (or a VectorDistance call).
func checkOrderByItem(x expr) error {
	if c, ok := x.(*callExpr); ok && (c.name == "VECTORDISTANCE" || c.name == "_VECTORSCORE" || c.name == "_FULLTEXTSCORE") {
		return nil // the scoring functions (the latter two in hybrid search's component queries)
	}
	depthOK := false
	for cur := x; ; {
		switch e := cur.(type) {
		case propExpr:
			depthOK = true
			cur = e.obj
			continue
		case indexExpr:
			if _, ok := e.index.(litExpr); !ok {
				break
			}
			depthOK = true
			cur = e.obj
			continue
		case *identExpr:
			if e.depth == 0 && e.slot > 0 {
				return badRequest("Order-by over correlated collections is not supported.")
			}
			if depthOK && e.depth == 0 {
				return nil
			}
		}
		break
	}
	return badRequest("Unsupported ORDER BY clause. ORDER BY item expression could not be mapped to a document path.")
}

// checkGroupedSelect enforces that, in a query with GROUP BY or aggregates, every property the select
// list reads is inside an aggregate or is (part of) a GROUP BY expression.
func checkGroupedSelect(q *selectQuery) error {
	groups := make(map[string]bool, len(q.groupBy))
	for _, g := range q.groupBy {
		groups[exprKey(g)] = true
	}
	var bad expr
	check := func(x expr) {
		walk(x, func(e expr) bool {
			if bad != nil {
				return false
			}
			if groups[exprKey(e)] {
				return false
			}
			switch n := e.(type) {
			case *callExpr:
				return n.agg == aggNone
			case propExpr, indexExpr:
				if groupedPrefix(e, groups) {
					return false // a property of a GROUP BY key (GROUP BY g ... SELECT g.name)
				}
				if pathRoot(e) != "" {
					bad = e
					return false
				}
			case *identExpr:
				bad = e
				return false
			}
			return true
		})
	}
	if q.value != nil {
		check(q.value)
	}
	for _, it := range q.items {
		check(it.x)
	}
	if bad != nil {
		return badRequest("Property reference '%s' is invalid in the select list because it is not contained in either an aggregate function or the GROUP BY clause.", formatExpr(bad))
	}
	return nil
}

// groupedPrefix reports whether a property path starts with a GROUP BY key.
func groupedPrefix(x expr, groups map[string]bool) bool {
	for {
		switch e := x.(type) {
		case propExpr:
			x = e.obj
		case indexExpr:
			x = e.obj
		default:
			return false
		}
		if groups[exprKey(x)] {
			return true
		}
	}
}

func hasSubquery(x expr) bool {
	found := false
	walk(x, func(e expr) bool {
		if _, ok := e.(subqueryExpr); ok {
			found = true
		}
		return !found
	})
	return found
}

func hasPropertyReference(x expr) bool {
	found := false
	walk(x, func(e expr) bool {
		if _, ok := e.(*identExpr); ok {
			found = true
		}
		return !found
	})
	return found
}
