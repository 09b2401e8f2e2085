package query

// FilterPaths returns the property paths of the query's root binding ("/a/b") that its WHERE
// clause compares with another operand at top level (AND-ed =, !=, <, <=, >, >=, IN and BETWEEN), once
// each, in order of appearance: the paths a range index can serve, for index advice.
func (q *Query) FilterPaths() []string {
	s := q.sel
	if s.where == nil {
		return nil
	}
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		for _, o := range out {
			if o == p {
				return
			}
		}
		out = append(out, p)
	}
	var collect func(x expr)
	collect = func(x expr) {
		switch e := x.(type) {
		case inExpr:
			add(rootPath(e.x))
		case betweenExpr:
			add(rootPath(e.x))
		case binaryExpr:
			switch e.op {
			case "AND":
				collect(e.l)
				collect(e.r)
			case "=", "!=", "<>", "<", "<=", ">", ">=":
				add(rootPath(e.l))
				add(rootPath(e.r))
			}
		}
	}
	collect(s.where)
	return out
}
