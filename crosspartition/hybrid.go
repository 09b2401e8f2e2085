package crosspartition

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cosmoskit/cosmoskit-go/internal/jsonorder"
	"github.com/cosmoskit/cosmoskit-go/internal/rrf"
	"golang.org/x/sync/errgroup"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Hybrid search (ORDER BY RANK FullTextScore / RRF) follows the plan's hybridSearchQueryInfo as the
// .NET, JS and Rust SDKs do:
//
//  1. when requiresGlobalStatistics, the globalStatisticsQuery runs on every partition key range
//     of the container (BM25 scores with the statistics of the whole container) and the counts
//     are summed;
//  2. each component query, its statistics placeholders replaced by the sums and its filter
//     placeholder by true, runs on every target range to its end (its TOP or LIMIT bounds it);
//     the ranges' rows are merged in the component's order (score, then _rid) and cut to the
//     component's global TOP (or OFFSET + LIMIT), so that the candidates, and so the fused
//     ranks, are those of one partition whatever the number of physical partitions;
//  3. with one component its rows are ordered by their score; with several, rows are coalesced by
//     _rid and fused by reciprocal rank fusion (internal/rrf: dense ranks, k = 60, the plan's
//     componentWeights, each component's order from its orderBy);
//  4. skip and take apply to the fused order, and the payloads are the results.
//
// All results are computed on the first page and paged from memory; like the other SDKs, the
// query cannot resume from a continuation token (NotResumableError).

// hybridInfo is the plan's hybridSearchQueryInfo.
type hybridInfo = wire.HybridSearchQueryInfo

// globalStatistics is one range's (or the summed) answer to the global statistics query.
type globalStatistics struct {
	DocumentCount      int64 `json:"documentCount"`
	FullTextStatistics []struct {
		TotalWordCount int64   `json:"totalWordCount"`
		HitCounts      []int64 `json:"hitCounts"`
	} `json:"fullTextStatistics"`
}

func (g *globalStatistics) add(o globalStatistics) error {
	if g.FullTextStatistics == nil {
		*g = o
		return nil
	}
	if len(o.FullTextStatistics) != len(g.FullTextStatistics) {
		return &PlanError{Reason: "the ranges' global statistics have different shapes"}
	}
	g.DocumentCount += o.DocumentCount
	for i, f := range o.FullTextStatistics {
		if len(f.HitCounts) != len(g.FullTextStatistics[i].HitCounts) {
			return &PlanError{Reason: "the ranges' global statistics have different shapes"}
		}
		g.FullTextStatistics[i].TotalWordCount += f.TotalWordCount
		for j, h := range f.HitCounts {
			g.FullTextStatistics[i].HitCounts[j] += h
		}
	}
	return nil
}

// Placeholders of the component queries (internal/wire, shared with cosmostest).
const (
	phDocCount  = wire.HybridDocCountPlaceholder
	phWordCount = wire.HybridWordCountPrefix
	phHitCounts = wire.HybridHitCountsPrefix
)

// rewriteComponent replaces the statistics placeholders (index j: the j-th full-text statistics)
// and the filter placeholder.
func (g *globalStatistics) rewriteComponent(q string) string {
	pairs := []string{phDocCount, strconv.FormatInt(g.DocumentCount, 10), orderByFilterToken, "true"}
	for j, f := range g.FullTextStatistics {
		hits := make([]string, len(f.HitCounts))
		for i, h := range f.HitCounts {
			hits[i] = strconv.FormatInt(h, 10)
		}
		n := strconv.Itoa(j) + "}"
		pairs = append(pairs, phWordCount+n, strconv.FormatInt(f.TotalWordCount, 10), phHitCounts+n, "["+strings.Join(hits, ",")+"]")
	}
	return strings.NewReplacer(pairs...).Replace(q)
}

// configureHybrid reads a hybridSearchQueryInfo.
func (ex *execution) configureHybrid(raw json.RawMessage) error {
	var hi hybridInfo
	if err := json.Unmarshal(raw, &hi); err != nil {
		return &PlanError{Reason: "the hybridSearchQueryInfo cannot be read: " + err.Error()}
	}
	if len(hi.ComponentQueryInfos) == 0 {
		return &PlanError{Reason: "the hybridSearchQueryInfo has no component queries"}
	}
	for _, c := range hi.ComponentQueryInfos {
		if len(c.OrderBy) != 1 || c.RewrittenQuery == "" {
			return &PlanError{Reason: "a hybrid search component query has no single ORDER BY or no rewrittenQuery"}
		}
	}
	if len(hi.ComponentWeights) != 0 && len(hi.ComponentWeights) != len(hi.ComponentQueryInfos) {
		return &PlanError{Reason: "the hybridSearchQueryInfo has a weight count other than its component count"}
	}
	if hi.Take == nil {
		return &UnsupportedError{Construct: "ORDER BY RANK without TOP or LIMIT", Reason: "hybrid search buffers every candidate and needs a bound"}
	}
	ex.skip, ex.take = 0, *hi.Take
	if hi.Skip != nil {
		ex.skip = *hi.Skip
	}
	if ex.take < 0 || ex.skip < 0 {
		return &UnsupportedError{Construct: "a negative TOP, OFFSET or LIMIT"}
	}
	if ex.take+ex.skip > ex.c.opts.MaxNonStreamingItems {
		return &UnsupportedError{Construct: "ORDER BY RANK with TOP or OFFSET + LIMIT above Options.MaxNonStreamingItems"}
	}
	ex.hybrid = &hi
	ex.shape = shapeHybrid
	ex.qi = &queryInfo{}
	return nil
}

// hybridRow is one row of a component query.
type hybridRow struct {
	rid    string
	item   float64 // this component's score (orderByItems[0].item)
	scores []float64
	out    json.RawMessage // payload.payload; nil when undefined
}

func parseHybridRow(b []byte, components int) (hybridRow, error) {
	var r struct {
		Rid          string `json:"_rid"`
		OrderByItems []struct {
			Item *float64 `json:"item"`
		} `json:"orderByItems"`
		Payload struct {
			Payload         json.RawMessage `json:"payload"`
			ComponentScores []float64       `json:"componentScores"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return hybridRow{}, &PlanError{Reason: "a hybrid search component row cannot be read: " + err.Error()}
	}
	if r.Rid == "" || len(r.Payload.ComponentScores) != components {
		return hybridRow{}, &PlanError{Reason: "a hybrid search component row lacks its _rid or its componentScores"}
	}
	h := hybridRow{rid: r.Rid, scores: r.Payload.ComponentScores, out: r.Payload.Payload}
	if len(r.OrderByItems) > 0 && r.OrderByItems[0].Item != nil {
		h.item = *r.OrderByItems[0].Item
	}
	return h, nil
}

// hybridResults runs the hybrid search and returns every result in order, after skip and take.
func (ex *execution) hybridResults(ctx context.Context) ([][]byte, error) {
	hi := ex.hybrid
	stats, err := ex.globalStatistics(ctx)
	if err != nil {
		return nil, err
	}
	perComponent, err := ex.componentRows(ctx, stats)
	if err != nil {
		return nil, err
	}
	n := len(hi.ComponentQueryInfos)
	desc := make([]bool, n)
	for i, ci := range hi.ComponentQueryInfos {
		desc[i] = ci.OrderBy[0] == "Descending"
		perComponent[i] = globalTop(perComponent[i], desc[i], ci)
	}
	var ordered []hybridRow
	if n == 1 {
		ordered = perComponent[0]
	} else {
		ordered = fuse(perComponent, desc, hi.ComponentWeights)
	}
	var out [][]byte
	for _, r := range ordered {
		if r.out == nil { // the projection is undefined for this document: no row
			continue
		}
		if ex.skip > 0 {
			ex.skip--
			continue
		}
		if ex.take == 0 {
			break
		}
		ex.take--
		out = append(out, r.out)
	}
	return out, nil
}

// globalStatistics runs the plan's global statistics query on every range and sums the answers
// (none when the plan needs none).
func (ex *execution) globalStatistics(ctx context.Context) (*globalStatistics, error) {
	stats := &globalStatistics{}
	if !ex.hybrid.RequiresGlobalStatistics {
		return stats, nil
	}
	all, err := ex.c.routingMap(ctx)
	if err != nil {
		return nil, err
	}
	parts, err := ex.runEverywhere(ctx, all, ex.hybrid.GlobalStatisticsQuery)
	if err != nil {
		return nil, err
	}
	for _, rows := range parts {
		for _, b := range rows {
			var g globalStatistics
			if err := json.Unmarshal(b, &g); err != nil {
				return nil, &PlanError{Reason: "a range's global statistics cannot be read: " + err.Error()}
			}
			if err := stats.add(g); err != nil {
				return nil, err
			}
		}
	}
	return stats, nil
}

// componentRows runs each component query, with the global statistics, on the query's ranges (the
// components in parallel) and returns each component's rows.
func (ex *execution) componentRows(ctx context.Context, stats *globalStatistics) ([][]hybridRow, error) {
	hi := ex.hybrid
	targets := make([]pkRange, len(ex.srcs))
	for i, s := range ex.srcs {
		targets[i] = s.r
	}
	n := len(hi.ComponentQueryInfos)
	perComponent := make([][]hybridRow, n)
	g, gctx := errgroup.WithContext(ctx)
	for i, ci := range hi.ComponentQueryInfos {
		text := stats.rewriteComponent(ci.RewrittenQuery)
		g.Go(func() error {
			parts, err := ex.runEverywhere(gctx, targets, text)
			if err != nil {
				return err
			}
			for _, rows := range parts {
				for _, b := range rows {
					r, err := parseHybridRow(b, n)
					if err != nil {
						return err
					}
					perComponent[i] = append(perComponent[i], r)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return perComponent, nil
}

// globalTop orders one component's rows from every range by score (ties by _rid, so the order
// does not depend on the ranges) and applies the component's own bound across ranges: its TOP, or
// its OFFSET and LIMIT, as one partition holding every document would.
func globalTop(rows []hybridRow, desc bool, ci queryInfo) []hybridRow {
	slices.SortStableFunc(rows, func(a, b hybridRow) int { return strings.Compare(a.rid, b.rid) })
	slices.SortStableFunc(rows, func(a, b hybridRow) int { return cmpScore(a.item, b.item, desc) })
	switch {
	case ci.Top != nil:
		rows = rows[:min(len(rows), max(0, *ci.Top))]
	case ci.Limit != nil:
		off := 0
		if ci.Offset != nil {
			off = max(0, *ci.Offset)
		}
		rows = rows[min(len(rows), off):]
		rows = rows[:min(len(rows), max(0, *ci.Limit))]
	}
	return rows
}

func cmpScore(a, b float64, desc bool) int {
	if desc {
		a, b = b, a
	}
	return jsonorder.CompareNumbers(a, b)
}

// fuse coalesces the components' rows by _rid and orders them by their RRF score, highest first
// (ties by _rid, so the order does not depend on which range answered first).
func fuse(perComponent [][]hybridRow, desc []bool, weights []float64) []hybridRow {
	var all []hybridRow
	for _, rows := range perComponent {
		all = append(all, rows...)
	}
	slices.SortStableFunc(all, func(a, b hybridRow) int { return strings.Compare(a.rid, b.rid) })
	all = slices.CompactFunc(all, func(a, b hybridRow) bool { return a.rid == b.rid })
	cols := make([][]float64, len(desc))
	for c := range cols {
		cols[c] = make([]float64, len(all))
		for i, r := range all {
			cols[c][i] = r.scores[c]
		}
	}
	w := weights
	if len(w) == 0 {
		w = make([]float64, len(desc))
		for i := range w {
			w[i] = 1
		}
	}
	fused := rrf.Fuse(cols, desc, w)
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmpScore(fused[a], fused[b], true) })
	out := make([]hybridRow, len(all))
	for i, j := range idx {
		out[i] = all[j]
	}
	return out
}

// runEverywhere runs text on each range to its end, in parallel, and returns the rows per range.
// A range that split runs again on its children.
func (ex *execution) runEverywhere(ctx context.Context, ranges []pkRange, text string) ([][]json.RawMessage, error) {
	var (
		mu  sync.Mutex
		out [][]json.RawMessage
	)
	work := ranges
	for len(work) > 0 {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(ex.c.opts.MaxConcurrency)
		var next []pkRange
		for _, r := range work {
			g.Go(func() error {
				var rows []json.RawMessage
				cont := ""
				for {
					resp, err := ex.c.page(inRange(gctx, r.ID), ex.prefix, text, ex.params, cont, maxBackendPageSize, ex.opts)
					ex.mu.Lock()
					ex.charge += resp.RequestCharge
					ex.touched[r.ID] = true
					ex.mu.Unlock()
					if isGone(err) {
						all, err := ex.c.refreshRanges(gctx, r)
						if err != nil {
							return err
						}
						kids := targets(all, []queryRange{{Min: r.Min, Max: r.Max, IsMinInclusive: true}})
						if len(kids) == 0 {
							return errors.New("crosspartition: partition key range " + r.ID + " is gone and no range replaces it")
						}
						mu.Lock()
						next = append(next, kids...)
						mu.Unlock()
						return nil
					}
					if err != nil {
						return err
					}
					for _, it := range resp.Items {
						rows = append(rows, it)
					}
					if resp.ContinuationToken == nil || *resp.ContinuationToken == "" {
						break
					}
					cont = *resp.ContinuationToken
				}
				mu.Lock()
				out = append(out, rows)
				mu.Unlock()
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		work = next
	}
	return out, nil
}
