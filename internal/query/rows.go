package query

import (
	"fmt"
	"slices"
)

// forEachRow generates the FROM/JOIN bindings of q. For the root query, doc is the document the
// container name is bound to; for a subquery, parent is the enclosing scope. f receives the binding
// slice (reused between calls: copy it to keep it) and returns false to stop. forEachRow returns false
// if it was stopped.
func (ev *evaluator) forEachRow(q *selectQuery, parent *env, root bool, doc any, f func(vals []any) bool) bool {
	if len(q.sources) == 0 {
		return f(nil)
	}
	if root && len(q.sources) == 1 && !q.sources[0].in && q.sources[0].sub == nil {
		if _, ok := q.sources[0].x.(*identExpr); ok {
			// FROM c: the document itself is the only binding.
			if ev.rootVals == nil {
				ev.rootVals = make([]any, 1)
			}
			ev.rootVals[0] = doc
			return f(ev.rootVals)
		}
	}
	vals := make([]any, len(q.sources))
	return ev.bindSource(q, 0, vals, parent, root, doc, f)
}

func (ev *evaluator) bindSource(q *selectQuery, i int, vals []any, parent *env, root bool, doc any, f func([]any) bool) bool {
	if i == len(q.sources) {
		if !ev.spendRow() {
			return false
		}
		return f(vals)
	}
	s := q.sources[i]
	each := func(v any) bool {
		vals[i] = v
		return ev.bindSource(q, i+1, vals, parent, root, doc, f)
	}
	if s.sub != nil {
		if root && i == 0 {
			// The root subquery has already been run over the whole container; doc is one of its
			// results.
			return each(doc)
		}
		var results []any
		{
			results = ev.runQuery(s.sub, &env{vals: vals[:i], parent: parent}, false, nil)
		}
		for _, v := range results {
			if !each(v) {
				return false
			}
		}
		return true
	}
	var scope *env
	if root && i == 0 {
		scope = &env{vals: []any{doc}}
	} else {
		scope = &env{vals: vals[:i], parent: parent}
	}
	v := ev.eval(s.x, scope)
	if s.in {
		arr, ok := v.([]any)
		if !ok {
			return true
		}
		for _, el := range arr {
			if !each(el) {
				return false
			}
		}
		return true
	}
	if isUndef(v) {
		return true
	}
	return each(v)
}

// project computes the output of one row (or one group, when e.group is set). It returns undefined
// for a SELECT VALUE whose value is undefined: such rows produce no result.
func (ev *evaluator) project(q *selectQuery, e *env) any {
	out := ev.projectRow(q, e)
	if !q.star && hasNonFinite(out) { // stored documents hold finite numbers only
		ev.fail(nonFinite())
	}
	return out
}

func (ev *evaluator) projectRow(q *selectQuery, e *env) any {
	switch {
	case q.star:
		if len(e.vals) == 0 {
			return undefined
		}
		return e.vals[0]
	case q.value != nil:
		return ev.eval(q.value, e)
	}
	r := &record{keys: make([]string, len(q.items)), vals: make([]any, len(q.items))}
	for i, it := range q.items {
		r.keys[i] = it.name
		r.vals[i] = ev.eval(it.x, e)
	}
	return r
}

// subquery evaluates EXISTS, ARRAY and scalar subqueries in scope e.
func (ev *evaluator) subquery(n subqueryExpr, e *env) any {
	results := ev.runQuery(n.q, e, false, nil)
	switch n.kind {
	case subExists:
		return len(results) > 0
	case subArray:
		return results
	}
	if len(results) == 0 {
		return undefined
	}
	return results[0]
}

// runQuery runs q to completion (no paging) and returns its results as plain values.
func (ev *evaluator) runQuery(q *selectQuery, parent *env, root bool, doc any) []any {
	var rows []*env
	ev.forEachRow(q, parent, root, doc, func(vals []any) bool {
		e := &env{vals: vals, parent: parent}
		if q.where != nil && !ev.truthy(q.where, e) {
			return true
		}
		rows = append(rows, &env{vals: append([]any(nil), vals...), parent: parent})
		return ev.err == nil
	})
	outs := ev.pipeline(q, rows, parent)
	res := make([]any, 0, len(outs))
	for _, o := range outs {
		res = append(res, plain(o.val))
	}
	return res
}

type output struct {
	val  any
	sort []any
	json []byte
}

// pipeline applies grouping/aggregation, projection, ORDER BY, DISTINCT and TOP/OFFSET/LIMIT to rows
// that passed the WHERE clause, in the order the service applies them.
func (ev *evaluator) pipeline(q *selectQuery, rows []*env, parent *env) []output {
	var units []*env
	if len(q.groupBy) > 0 || q.hasAgg {
		units = ev.group(q, rows, parent)
	} else {
		units = rows
	}
	outs := make([]output, 0, len(units))
	for _, u := range units {
		o := output{val: ev.project(q, u)}
		if len(q.orderBy) > 0 && !q.rank {
			o.sort = make([]any, len(q.orderBy))
			for i, ob := range q.orderBy {
				o.sort[i] = ev.eval(ob.x, u)
			}
		}
		outs = append(outs, o)
	}
	if q.rank {
		for i, score := range ev.rankScores(q, units) {
			outs[i].sort = []any{score}
		}
	}
	if len(q.orderBy) > 0 {
		dirs := ev.orderDirs(q)
		slices.SortStableFunc(outs, func(a, b output) int { return compareSort(dirs, a.sort, b.sort) })
	}
	kept := outs[:0]
	var seen map[string]bool
	if q.distinct {
		seen = map[string]bool{}
	}
	for _, o := range outs {
		if isUndef(o.val) {
			continue
		}
		if q.distinct {
			k := string(canonicalJSON(nil, o.val))
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		kept = append(kept, o)
	}
	outs = kept
	skip, take := ev.window(q)
	if skip > 0 {
		if skip >= len(outs) {
			return nil
		}
		outs = outs[skip:]
	}
	if take >= 0 && take < len(outs) {
		outs = outs[:take]
	}
	return outs
}

// window returns the number of results to skip and to take (-1: all) from TOP and OFFSET/LIMIT.
func (ev *evaluator) window(q *selectQuery) (skip, take int) {
	take = -1
	if q.top != nil {
		take = ev.count(q.top, "TOP")
	}
	if q.offset != nil {
		skip = ev.count(q.offset, "OFFSET")
		l := ev.count(q.limit, "LIMIT")
		if take < 0 || l < take {
			take = l
		}
	}
	return skip, take
}

func (ev *evaluator) count(x expr, clause string) int {
	v := ev.eval(x, nil)
	f, ok := v.(float64)
	// Up to twice the largest count a plan accepts: the service's rewrite of OFFSET n LIMIT m for the
	// partitions is OFFSET 0 LIMIT n+m (OFFSET 2147483647 LIMIT 10 runs as LIMIT 2147483657).
	if !ok || f < 0 || f != float64(int64(f)) || f > 2*maxCount {
		ev.fail(badRequest("The %s clause requires a non-negative integer value.", clause))
		return 0
	}
	return int(f)
}

// compareSort compares two rows' ORDER BY values; desc[i] reverses the i-th.
func compareSort(desc []bool, a, b []any) int {
	for i, d := range desc {
		c := compareOrder(a[i], b[i])
		if d {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// group partitions rows by the GROUP BY values (one group of all rows for an aggregate without
// GROUP BY, even when there are no rows) and returns one scope per group, in order of first appearance.
func (ev *evaluator) group(q *selectQuery, rows []*env, parent *env) []*env {
	if len(q.groupBy) == 0 {
		g := &env{parent: parent, group: rows, grouped: true}
		if len(rows) > 0 {
			g.vals = rows[0].vals
		} else {
			g.vals = make([]any, len(q.sources))
			for i := range g.vals {
				g.vals[i] = undefined
			}
		}
		return []*env{g}
	}
	index := map[string]*env{}
	var groups []*env
	var key []byte
	for _, r := range rows {
		key = key[:0]
		for _, gx := range q.groupBy {
			v := ev.eval(gx, r)
			if isUndef(v) {
				key = append(key, 'u')
			} else {
				key = append(key, 'd')
				key = canonicalJSON(key, v)
			}
			key = append(key, 0)
		}
		g, ok := index[string(key)]
		if !ok {
			g = &env{vals: r.vals, parent: parent, grouped: true}
			index[string(key)] = g
			groups = append(groups, g)
		}
		g.group = append(g.group, r)
	}
	return groups
}

// aggregate evaluates COUNT/SUM/AVG/MIN/MAX over the rows of the group in scope e.
func (ev *evaluator) aggregate(n *callExpr, e *env) any {
	var rows []*env
	if e != nil && e.grouped {
		rows = e.group
	} else if e != nil {
		rows = []*env{e}
	}
	arg := n.args[0]
	switch n.agg {
	case aggCount:
		c := 0
		for _, r := range rows {
			if !isUndef(ev.eval(arg, r)) {
				c++
			}
		}
		return float64(c)
	case aggCountIf:
		// The rows where the argument is true (the global statistics of hybrid search use it).
		c := 0
		for _, r := range rows {
			if ev.truthy(arg, r) {
				c++
			}
		}
		return float64(c)
	case aggSum, aggAvg:
		sum, c := 0.0, 0
		for _, r := range rows {
			switch v := ev.eval(arg, r).(type) {
			case undefinedT:
			case float64:
				sum += v
				c++
			default:
				return undefined
			}
		}
		if n.agg == aggAvg {
			if c == 0 {
				return undefined
			}
			return sum / float64(c)
		}
		return sum
	case aggMakeList, aggMakeSet:
		// The defined values of the group, as an array (MAKESET without duplicates).
		out := []any{}
		seen := map[string]bool{}
		for _, r := range rows {
			v := ev.eval(arg, r)
			if isUndef(v) {
				continue
			}
			if n.agg == aggMakeSet {
				k := string(canonicalJSON(nil, v))
				if seen[k] {
					continue
				}
				seen[k] = true
			}
			out = append(out, v)
		}
		return out
	}
	best := undefined
	for _, r := range rows {
		v := ev.eval(arg, r)
		switch v.(type) {
		case undefinedT:
			continue
		case []any, map[string]any, *record:
			return undefined
		}
		if isUndef(best) {
			best = v
			continue
		}
		c := compareOrder(v, best)
		if n.agg == aggMin && c < 0 || n.agg == aggMax && c > 0 {
			best = v
		}
	}
	return best
}

// orderDirs returns, per ORDER BY item, whether it sorts descending. ORDER BY VectorDistance sorts by
// similarity whatever the written direction, as the service does: descending for cosine and dot
// product, ascending for Euclidean distance.
func (ev *evaluator) orderDirs(q *selectQuery) []bool {
	d := make([]bool, len(q.orderBy))
	for i, ob := range q.orderBy {
		d[i] = ob.desc
		if c, ok := ob.x.(*callExpr); ok && (c.name == "VECTORDISTANCE" || c.name == "_VECTORSCORE" && !ob.asc && !ob.desc) {
			d[i] = vectorFunction(c, ev.vector) != "euclidean"
		}
	}
	return d
}

// subqueryItems runs a root FROM subquery over the whole container and returns its results as the
// outer query's input, in result order.
func (ev *evaluator) subqueryItems(q *selectQuery, docs []Document) []item {
	var inputs []item
	if q.sources[0].sub != nil {
		inputs = ev.subqueryItems(q.sources[0].sub, docs)
	} else {
		inputs = make([]item, len(docs))
		for i := range docs {
			d := &docs[i]
			inputs[i] = item{key: d.Key, val: d.root()}
		}
	}
	var rows []*env
	for _, in := range inputs {
		ev.forEachRow(q, nil, true, in.val, func(vals []any) bool {
			e := &env{vals: vals}
			if q.where != nil && !ev.truthy(q.where, e) {
				return ev.err == nil
			}
			rows = append(rows, &env{vals: append([]any(nil), vals...)})
			return ev.err == nil
		})
	}
	outs := ev.pipeline(q, rows, nil)
	items := make([]item, len(outs))
	for i, o := range outs {
		items[i] = item{key: fmt.Sprintf("%012d", i), val: plain(o.val)}
	}
	return items
}
