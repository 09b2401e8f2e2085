package query

// FilterPaths returns the property paths of the query's root binding ("/a/b") that its WHERE
// clause compares with another operand at top level (AND-ed =, !=, <, <=, >, >=, IN and BETWEEN), once
// each, in order of appearance: the paths a range index can serve, for index advice.
func (q *Query) FilterPaths() []string {
	var out pathSet
	q.conjuncts(func(x expr) {
		switch e := x.(type) {
		case inExpr:
			out.add(rootPath(e.x))
		case betweenExpr:
			out.add(rootPath(e.x))
		case binaryExpr:
			if comparison(e.op) {
				out.add(rootPath(e.l))
				out.add(rootPath(e.r))
			}
		}
	})
	return out
}

// SpatialFilterPaths returns the property paths of the query's root binding that its WHERE clause
// filters with a spatial function at top level (AND-ed ST_WITHIN or ST_INTERSECTS of the path, or
// ST_DISTANCE of the path compared with another operand), once each, in order of appearance: the
// paths a spatial index can serve, for index advice.
func (q *Query) SpatialFilterPaths() []string {
	var out pathSet
	addCall := func(x expr, names ...string) {
		c, ok := x.(*callExpr)
		if !ok || len(c.args) != 2 {
			return
		}
		for _, n := range names {
			if c.name == n {
				out.add(rootPath(c.args[0]))
				out.add(rootPath(c.args[1]))
			}
		}
	}
	q.conjuncts(func(x expr) {
		addCall(x, "ST_WITHIN", "ST_INTERSECTS")
		if e, ok := x.(binaryExpr); ok && comparison(e.op) {
			addCall(e.l, "ST_DISTANCE")
			addCall(e.r, "ST_DISTANCE")
		}
	})
	return out
}

// conjuncts calls f with each top-level AND-ed term of the WHERE clause.
func (q *Query) conjuncts(f func(x expr)) {
	var walk func(x expr)
	walk = func(x expr) {
		if e, ok := x.(binaryExpr); ok && e.op == "AND" {
			walk(e.l)
			walk(e.r)
			return
		}
		f(x)
	}
	if q.sel.where != nil {
		walk(q.sel.where)
	}
}

func comparison(op string) bool {
	switch op {
	case "=", "!=", "<>", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// pathSet is a list of paths without repeats, in order of addition; "" is not added.
type pathSet []string

func (s *pathSet) add(p string) {
	if p == "" {
		return
	}
	for _, o := range *s {
		if o == p {
			return
		}
	}
	*s = append(*s, p)
}
