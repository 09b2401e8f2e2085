package crosspartition

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"github.com/cosmoskit/cosmoskit-go/internal/epk"
	"golang.org/x/sync/errgroup"
)

// nonStreaming serves aggregates, GROUP BY, COUNT(DISTINCT) and non-streaming ORDER BY: every
// range is read to the end (in parallel), the results are computed once and then paged from memory.
func (ex *execution) nonStreaming(ctx context.Context) ([][]byte, error) {
	if !ex.computed {
		res, err := ex.compute(ctx)
		if err != nil {
			return nil, err
		}
		ex.results, ex.computed = res, true
	}
	n := min(ex.pageSize, len(ex.results))
	items := ex.results[:n:n]
	ex.results = ex.results[n:]
	if len(ex.results) == 0 {
		ex.ended = true
	}
	return items, nil
}

// drain reads every source to its end and returns the rows per source in EPK order. A range that
// splits is read again from its children, its own rows discarded, so nothing counts twice.
func (ex *execution) drain(ctx context.Context) ([][]row, error) {
	type part struct {
		min  string
		rows []row
	}
	var (
		mu    sync.Mutex
		parts []part
	)
	work := ex.srcs
	bound := ex.take + ex.skip // non-streaming ORDER BY keeps at most this many rows per range
	for len(work) > 0 {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(ex.c.opts.MaxConcurrency)
		var next []*source
		for _, s := range work {
			g.Go(func() error {
				rows, kids, err := ex.drainOne(gctx, s, bound)
				mu.Lock()
				defer mu.Unlock()
				if kids != nil {
					next = append(next, kids...)
				} else if err == nil {
					parts = append(parts, part{s.r.Min, rows})
				}
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		work = next
	}
	slices.SortFunc(parts, func(a, b part) int { return epk.Compare(a.min, b.min) })
	out := make([][]row, len(parts))
	for i, p := range parts {
		out[i] = p.rows
	}
	return out, nil
}

// drainOne reads s to its end and returns its rows, or, if its range split, the sources of its
// children (its own rows discarded). A non-streaming ORDER BY keeps about bound rows.
func (ex *execution) drainOne(ctx context.Context, s *source, bound int) ([]row, []*source, error) {
	var rows []row
	for {
		err := ex.fetch(ctx, s)
		var eg errGone
		if errors.As(err, &eg) {
			kids, err := ex.children(ctx, s)
			if err != nil {
				return nil, nil, err
			}
			return nil, kids, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if s.pos >= len(s.buf) {
			return rows, nil, nil
		}
		if rows == nil {
			rows = s.buf[s.pos:] // the page's own rows: s.buf is replaced, never reused
		} else {
			rows = append(rows, s.buf[s.pos:]...)
		}
		s.pos = len(s.buf)
		if ex.shape == shapeNonStreaming && len(rows) > 2*bound+64 {
			rows = ex.topK(rows, bound)
		}
	}
}

// topK keeps the first k rows in ORDER BY order (stable: earlier rows win ties).
func (ex *execution) topK(rows []row, k int) []row {
	slices.SortStableFunc(rows, func(a, b row) int { return compareKeys(a.keys, b.keys, ex.desc) })
	return slices.Clip(rows[:min(k, len(rows))])
}

func (ex *execution) compute(ctx context.Context) ([][]byte, error) {
	if ex.shape == shapeHybrid {
		return ex.hybridResults(ctx)
	}
	parts, err := ex.drain(ctx)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	switch ex.shape {
	case shapeNonStreaming:
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		all := make([]row, 0, n)
		for _, p := range parts {
			all = append(all, p...)
		}
		for _, r := range ex.topK(all, len(all)) {
			if ex.emit(r) {
				out = append(out, r.out)
			}
		}
		return out, nil
	case shapeAggregate:
		return ex.valueAggregate(parts)
	case shapeDCount:
		return ex.dcount(parts)
	}
	return ex.groupBy(parts)
}

// aggregator merges one aggregate's per-range partial results.
type aggregator struct {
	kind       string // Count, Sum, Min, Max, Average, MakeList, MakeSet
	sum, count float64
	best       any
	undef      bool            // the result is undefined (mixed or non-comparable types)
	list       []any           // MakeList, MakeSet: the ranges' arrays, in range order
	seen       map[string]bool // MakeSet: the JSON of the values in list
}

func newAggregator(kind string) (*aggregator, error) {
	switch kind {
	case "Count", "Sum", "Min", "Max", "Average":
		return &aggregator{kind: kind, best: undefined}, nil
	case "MakeList", "MakeSet":
		return &aggregator{kind: kind, best: undefined, list: []any{}, seen: map[string]bool{}}, nil
	}
	return nil, &UnsupportedError{Construct: "the aggregate " + kind}
}

// add merges one partial: the {"item": ..., "item2": ...} entry of a range's row.
func (a *aggregator) add(entry map[string]json.RawMessage) error {
	item, err := decode(entry["item"])
	if err != nil {
		return err
	}
	switch a.kind {
	case "MakeList", "MakeSet":
		return a.addList(item)
	case "Count", "Sum":
		return a.addSum(item)
	case "Average":
		return a.addAverage(entry["item"])
	case "Min", "Max":
		return a.addMinMax(item, entry)
	}
	return nil
}

// addList merges a range's MAKELIST or MAKESET: each range answers the array of its values (MAKESET:
// without duplicates); the merge concatenates them, MAKESET dropping values another range had.
func (a *aggregator) addList(item any) error {
	switch v := item.(type) {
	case undefinedT:
	case []any:
		for _, e := range v {
			if a.kind == "MakeSet" {
				k := string(marshal(e))
				if a.seen[k] {
					continue
				}
				a.seen[k] = true
			}
			a.list = append(a.list, e)
		}
	default:
		return &PlanError{Reason: "a partial " + a.kind + " is not an array"}
	}
	return nil
}

// addSum merges a range's COUNT or SUM.
func (a *aggregator) addSum(item any) error {
	switch v := item.(type) {
	case float64:
		a.sum += v
	case undefinedT:
		if a.kind == "Sum" {
			a.undef = true // the range summed a non-number
		}
	default:
		return &PlanError{Reason: "a partial " + a.kind + " is not a number"}
	}
	return nil
}

// addAverage merges a range's AVG, {sum, count}.
func (a *aggregator) addAverage(raw json.RawMessage) error {
	var p struct {
		Sum   *float64 `json:"sum"`
		Count float64  `json:"count"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			return &PlanError{Reason: "a partial AVG is not {sum, count}"}
		}
	}
	if p.Count > 0 && p.Sum == nil {
		a.undef = true
	}
	if p.Sum != nil {
		a.sum += *p.Sum
	}
	a.count += p.Count
	return nil
}

// addMinMax merges a range's MIN or MAX: item, or the {min|max, count} of entry's item2.
func (a *aggregator) addMinMax(item any, entry map[string]json.RawMessage) error {
	cand := item
	if raw, ok := entry["item2"]; ok {
		var p map[string]json.RawMessage
		if err := json.Unmarshal(raw, &p); err != nil {
			return &PlanError{Reason: "a partial " + a.kind + " is malformed"}
		}
		var n float64
		_ = json.Unmarshal(p["count"], &n)
		if n == 0 {
			return nil
		}
		key := "min"
		if a.kind == "Max" {
			key = "max"
		}
		var err error
		if cand, err = decode(p[key]); err != nil {
			return err
		}
		if isUndef(cand) {
			a.undef = true // the range had values MIN/MAX cannot order
			return nil
		}
	}
	switch cand.(type) {
	case undefinedT:
		return nil
	case []any, map[string]any:
		a.undef = true
		return nil
	}
	if c := compareValues(cand, a.best); isUndef(a.best) || a.kind == "Min" && c < 0 || a.kind == "Max" && c > 0 {
		a.best = cand
	}
	return nil
}

func (a *aggregator) result() any {
	if a.undef {
		return undefined
	}
	switch a.kind {
	case "Count", "Sum":
		return a.sum
	case "Average":
		if a.count == 0 {
			return undefined
		}
		return a.sum / a.count
	case "MakeList", "MakeSet":
		return a.list
	}
	return a.best
}

func marshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// valueAggregate merges SELECT VALUE <aggregate>: each range returns [{"item": partial}].
func (ex *execution) valueAggregate(parts [][]row) ([][]byte, error) {
	a, err := newAggregator(ex.qi.Aggregates[0])
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		for _, r := range p {
			var entries []map[string]json.RawMessage
			if err := json.Unmarshal(r.out, &entries); err != nil || len(entries) != 1 {
				return nil, &PlanError{Reason: "a row of the rewritten aggregate query is not [{\"item\": ...}]"}
			}
			if err := a.add(entries[0]); err != nil {
				return nil, err
			}
		}
	}
	v := a.result()
	if isUndef(v) {
		return nil, nil
	}
	out := [][]byte{marshal(v)}
	return ex.limitRows(out), nil
}

// limitRows applies DISTINCT, OFFSET and LIMIT/TOP to computed rows.
func (ex *execution) limitRows(rows [][]byte) [][]byte {
	out := rows[:0]
	for _, b := range rows {
		if ex.emit(row{out: b, hash: rowHash(b)}) {
			out = append(out, b)
		}
	}
	return out
}

// dcount merges COUNT(DISTINCT ...): the ranges return the distinct values, counted once here.
func (ex *execution) dcount(parts [][]row) ([][]byte, error) {
	seen := map[uint64]bool{}
	for _, p := range parts {
		for _, r := range p {
			seen[r.hash] = true
		}
	}
	n := float64(len(seen))
	if ex.qi.HasSelectValue {
		return ex.limitRows([][]byte{marshal(n)}), nil
	}
	return ex.limitRows([][]byte{marshal(map[string]any{ex.qi.DCountInfo.DCountAlias: n})}), nil
}

// group is one GROUP BY group being merged.
type group struct {
	aggs  map[string]*aggregator
	plain map[string]json.RawMessage // aliases without an aggregate: their value, taken once
	first json.RawMessage            // the first payload, for shapes without aliases
}

// groupBy merges GROUP BY (rows {"groupByItems": [...], "payload": {...}}) and aggregates without
// VALUE (rows {"payload": {alias: {"item": partial}}}).
func (ex *execution) groupBy(parts [][]row) ([][]byte, error) {
	qi := ex.qi
	valueAgg := qi.HasSelectValue && len(qi.Aggregates) > 0
	if valueAgg && len(qi.Aggregates) != 1 {
		return nil, &UnsupportedError{Construct: "several aggregates in SELECT VALUE with GROUP BY"}
	}
	gs := groups{index: map[uint64]*group{}}
	for _, p := range parts {
		for _, r := range p {
			if err := gs.add(qi, r, valueAgg); err != nil {
				return nil, err
			}
		}
	}
	out, err := groupResults(qi, gs.order, valueAgg)
	if err != nil {
		return nil, err
	}
	return ex.limitRows(out), nil
}

// groups are the groups merged so far, by the hash of their keys and in order of first appearance.
type groups struct {
	index map[uint64]*group
	order []*group
}

// add merges one row of a range's rewritten GROUP BY query into its group.
func (gs *groups) add(qi *queryInfo, r row, valueAgg bool) error {
	var d struct {
		Keys    json.RawMessage `json:"groupByItems"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(r.out, &d); err != nil {
		return &PlanError{Reason: "a row of the rewritten GROUP BY query is malformed"}
	}
	var fields map[string]json.RawMessage
	if len(qi.GroupByAliasToAggregateType) > 0 {
		if err := json.Unmarshal(d.Payload, &fields); err != nil {
			return &PlanError{Reason: "a row of the rewritten GROUP BY query has no payload object"}
		}
	}
	var key uint64
	if len(d.Keys) > 0 {
		keys, err := parseItems(d.Keys)
		if err != nil {
			return &PlanError{Reason: "a row of the rewritten GROUP BY query has malformed groupByItems"}
		}
		key = hashValue(keys)
	}
	g := gs.index[key]
	if g == nil {
		g = &group{aggs: map[string]*aggregator{}, plain: map[string]json.RawMessage{}}
		g.first = d.Payload
		gs.index[key] = g
		gs.order = append(gs.order, g)
	}
	if valueAgg {
		return g.addValue(qi.Aggregates[0], d.Payload)
	}
	return g.addFields(qi, fields)
}

// aggregator returns the group's aggregator for alias, making one of kind if it has none.
func (g *group) aggregator(alias, kind string) (*aggregator, error) {
	if a := g.aggs[alias]; a != nil {
		return a, nil
	}
	a, err := newAggregator(kind)
	if err != nil {
		return nil, err
	}
	g.aggs[alias] = a
	return a, nil
}

// addValue merges a SELECT VALUE aggregate's partial result ([{"item": ...}]).
func (g *group) addValue(kind string, payload json.RawMessage) error {
	a, err := g.aggregator("", kind)
	if err != nil {
		return err
	}
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(payload, &entries); err != nil || len(entries) != 1 {
		return &PlanError{Reason: "a row of the rewritten GROUP BY query is not [{\"item\": ...}]"}
	}
	return a.add(entries[0])
}

// addFields merges the aliases of a payload: partial aggregates, and the first value of the others.
func (g *group) addFields(qi *queryInfo, fields map[string]json.RawMessage) error {
	for alias, kind := range qi.GroupByAliasToAggregateType {
		if kind == nil {
			if _, ok := g.plain[alias]; !ok {
				g.plain[alias] = fields[alias]
			}
			continue
		}
		a, err := g.aggregator(alias, *kind)
		if err != nil {
			return err
		}
		var entry map[string]json.RawMessage
		if raw := fields[alias]; len(raw) > 0 {
			if err := json.Unmarshal(raw, &entry); err != nil {
				return &PlanError{Reason: "a partial aggregate of the rewritten GROUP BY query is malformed"}
			}
		}
		if err := a.add(entry); err != nil {
			return err
		}
	}
	return nil
}

// value is the group's value of alias: its aggregate's result, or the value taken from a row.
func (g *group) value(alias string) any {
	if a := g.aggs[alias]; a != nil {
		return a.result()
	}
	v, err := decode(g.plain[alias])
	if err != nil {
		return undefined
	}
	return v
}

// groupResults returns the result row of each group, in order.
func groupResults(qi *queryInfo, order []*group, valueAgg bool) ([][]byte, error) {
	var out [][]byte
	for _, g := range order {
		switch {
		case valueAgg:
			if v := g.aggs[""].result(); !isUndef(v) {
				out = append(out, marshal(v))
			}
		case len(qi.GroupByAliases) == 0:
			if len(g.first) == 0 {
				continue
			}
			out = append(out, g.first)
		case qi.HasSelectValue:
			if len(qi.GroupByAliases) != 1 {
				return nil, &UnsupportedError{Construct: "SELECT VALUE with several GROUP BY aliases"}
			}
			v := g.value(qi.GroupByAliases[0])
			if isUndef(v) {
				continue
			}
			out = append(out, marshal(v))
		default:
			obj := make(orderedObject, 0, len(qi.GroupByAliases))
			for _, alias := range qi.GroupByAliases {
				if v := g.value(alias); !isUndef(v) {
					obj = append(obj, field{alias, v})
				}
			}
			out = append(out, obj.marshal())
		}
	}
	return out, nil
}

// orderedObject marshals properties in the query's SELECT order.
type orderedObject []field

type field struct {
	name  string
	value any
}

func (o orderedObject) marshal() []byte {
	b := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, marshal(f.name)...)
		b = append(b, ':')
		b = append(b, marshal(f.value)...)
	}
	return append(b, '}')
}
