package crosspartition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/errgroup"
)

// shape is how the rows of the ranges are merged.
type shape int

const (
	shapePlain        shape = iota // rows as they come, range after range in EPK order
	shapeOrderBy                   // streaming ORDER BY: k-way merge on orderByItems
	shapeAggregate                 // VALUE aggregates without GROUP BY
	shapeGroupBy                   // GROUP BY, and aggregates without VALUE
	shapeNonStreaming              // ORDER BY VectorDistance: bounded top-k buffer
	shapeDCount                    // COUNT(DISTINCT ...)
	shapeHybrid                    // ORDER BY RANK: hybridSearchQueryInfo (hybrid.go)
)

// row is one result of a range's query.
type row struct {
	out  []byte // what the caller gets (the payload for ORDER BY); nil when undefined
	keys []any  // ORDER BY values
	kraw json.RawMessage
	rid  []byte // ORDER BY: the document's _rid
	hash uint64 // plain: content hash of the row
}

// dropGroup is shared by the children of a split of a plain query: the rows of the parent's
// page that the parent had consumed, which the children (resuming from that page's continuation)
// must not return again. Siblings share it so that, of two equal rows, only as many are dropped
// as were consumed.
type dropGroup struct {
	seen      multiset
	fromToken bool // it came with a token: its drops count against the page's discard budget
}

// source is one partition key range being read.
type source struct {
	r       pkRange
	pageTok string // backend continuation that fetched buf (or that the first request sends)
	next    string // backend continuation after buf
	buf     []row
	pos     int
	open    bool // buf holds a fetched page
	used    int  // rows the merge consumed from this source (adaptive page sizes)
	refills int  // pages fetched after the first (adaptive page sizes)
	hdr     http.Header

	// Plain queries.
	skipN int      // resume: rows of the first page fetched already consumed
	seen  multiset // resume: the hashes of those rows (a split before the page is read drops them)
	drop  *dropGroup

	// ORDER BY (resume_orderby.go).
	from    *position // where the source resumes (its query's filter); nil: from the start
	fromN   int       // rows with from's values and _rid still to drop
	passed  bool      // the rows before from are behind
	text    string    // the query text with from's filter, and its parameters
	params  []azcosmos.QueryParameter
	last    []any // the last row consumed: ORDER BY values, their JSON, _rid and rows with both
	lastRaw json.RawMessage
	lastRid []byte
	lastN   int
	// Rows without a _rid: the content hashes of the rows tied with last consumed, and of those
	// still to drop after from.
	lastSeen multiset
	fromSeen multiset
}

func (s *source) finished() bool { return s.open && s.pos >= len(s.buf) && s.next == "" }

// errGone carries a range that split while being read.
type errGone struct{ s *source }

func (e errGone) Error() string { return "partition key range " + e.s.r.ID + " is gone" }

type execution struct {
	c        *Container
	query    string                 // what runs per range
	prefix   *azcosmos.PartitionKey // NewPrefixQueryItemsPager's prefix, sent with every request
	params   []azcosmos.QueryParameter
	opts     *azcosmos.QueryOptions
	qi       *queryInfo
	shape    shape
	desc     []bool
	bind     string
	pageSize int
	backend  int
	targets  []queryRange
	srcs     []*source
	cur      int // plain: the source being read
	skip     int
	take     int
	distinct string
	dist     multiset // returned rows (unordered DISTINCT)
	distLast *uint64  // the last row returned (ordered DISTINCT)
	hybrid   *hybridInfo
	results  [][]byte // non-streaming shapes: every result, computed on the first page
	computed bool
	ended    bool
	charge   float32
	touched  map[string]bool
	mu       sync.Mutex

	// Adaptive page sizes (ORDER BY with TOP/LIMIT over several ranges): each range is first
	// asked for share rows, then for what the merge is estimated to still need from it.
	adaptive bool
	share    int
	used     int // rows the merge consumed, every source
	pages    int // pages this execution has returned
	pageNeed int // rows the page being built still needs (set by stream before each round of reads)
	rows     int // rows fetched for the current page
	requests int // requests sent for the current page
	// Totals of the query since this execution started (a resumed query counts from its token).
	totalRows   int
	totalCharge float32

	backendCap  int             // the largest page a range is asked for by this query with these options
	discardLeft int             // rows a resumed page may still drop on its token's word (-1: not resumed)
	ridDir      int             // ORDER BY: the service's order of tied rows by _rid (resume_orderby.go)
	resumed     *orderResume    // ORDER BY: the token's position
	distToken   map[uint64]bool // unordered DISTINCT: the hashes a resumed token says were returned
	distDrops   int             // rows dropped as duplicates of distToken
	distBudget  int             // how many of those a page may drop (token_bounds.go)
	lastSrc     *source         // ORDER BY: the source of the last row consumed
	passthrough bool            // the original query goes to one range as it is (passthrough.go)
}

// start prepares a query: token checks first (before any request), then plan and ranges.
func (c *Container) start(ctx context.Context, query string, prefix *azcosmos.PartitionKey, o *azcosmos.QueryOptions) (*execution, error) {
	size, err := pageSize(o)
	if err != nil {
		return nil, err
	}
	ex := &execution{c: c, prefix: prefix, params: o.QueryParameters, opts: o, pageSize: size, touched: map[string]bool{}, discardLeft: -1, distBudget: math.MaxInt}
	scoped := query
	if prefix != nil {
		// The plan (cached by binding) and the tokens are bound to the prefix too.
		scoped = query + "\x00prefix " + fmt.Sprint(*prefix)
	}
	ex.bind = binding(c.identity, scoped, o.QueryParameters)
	var tok *token
	if o.ContinuationToken != nil && *o.ContinuationToken != "" {
		if tok, err = decodeToken(*o.ContinuationToken, ex.bind, c.opts.TokenSigningKey, c.identity); err != nil {
			return nil, err
		}
		if tok.Kind == kindNone {
			return nil, &NotResumableError{Construct: "aggregates, GROUP BY, ORDER BY VectorDistance or ORDER BY RANK"}
		}
	}
	p := c.pc.get(ex.bind)
	if p == nil {
		var charge float32
		p, charge, err = c.fetchPlan(ctx, prefix, query, o.QueryParameters, o)
		ex.charge += charge
		if err != nil {
			return nil, err
		}
		c.pc.put(ex.bind, p)
	}
	if err := ex.configure(query, p); err != nil {
		return nil, err
	}
	ex.passThrough(query, p)
	ex.targets = p.QueryRanges
	all, err := c.routingMap(ctx)
	if err != nil {
		return nil, err
	}
	// Page sizes come from the options and the plan, never from a token.
	ex.backendCap = ex.rangePageSize()
	if tok != nil {
		if err := ex.resume(tok, all); err != nil {
			return nil, err
		}
	} else {
		for _, r := range targets(all, p.QueryRanges) {
			ex.srcs = append(ex.srcs, &source{r: r})
		}
	}
	ex.backend = ex.rangePageSize()
	if ex.distToken != nil {
		ex.distBudget = distinctBudget(len(ex.srcs), ex.backendCap)
	}
	ex.adapt()
	return ex, nil
}

// rangePageSize is the page size a range is asked for: the pager's page size, or for a streaming
// query what its TOP/LIMIT (and OFFSET) still needs if that is less; every row for the others.
func (ex *execution) rangePageSize() int {
	switch {
	case ex.shape != shapePlain && ex.shape != shapeOrderBy:
		return maxBackendPageSize
	case ex.take >= 0:
		return max(1, min(ex.pageSize, ex.take+ex.skip))
	}
	return ex.pageSize
}

// adapt turns on adaptive page sizes for a streaming ORDER BY with TOP/LIMIT over several
// ranges: rather than asking every range for the rows it could have to supply (the page size, or k
// = TOP+OFFSET when smaller: that many rows per range, times the ranges in all), each range is
// first asked for its share of them with a margin, ceil(m + 2√m) + 1 for m = min(page size, k) /
// ranges, so that uniformly spread data is served by one request per range. A range whose rows
// the merge has used up is asked for more (sizeFor). The plan and the per-range query text are
// those of a fixed page size; an ORDER BY token holds no backend continuation (resume_orderby.go),
// so a resumed page starts every range afresh with its share.
func (ex *execution) adapt() {
	if ex.shape != shapeOrderBy || ex.take < 0 {
		return
	}
	n := 0
	for _, s := range ex.srcs {
		if !s.finished() {
			n++
		}
	}
	if n < 2 {
		return
	}
	m := float64(ex.backend) / float64(n)
	share := int(math.Ceil(m+2*math.Sqrt(m))) + 1
	if share >= ex.backend {
		return
	}
	ex.adaptive, ex.share = true, share
}

// sizeFor is the page size of the next request to s. Without adaptive sizes it is ex.backend.
// With them: the share for a range's first page; for its second, an estimate from the rows
// returned so far, the fraction f of the merged rows that came from s times the rows r still
// needed, with the same margin (on data skewed so that s holds every remaining row, f = 1 and that
// is all of r: one extra round trip); for any later page, all of r. While the execution builds its
// first page, r is what that page still needs (ex.backend at most): a caller that reads one page
// and resumes from its token in another request pays for one page, not for the whole TOP. Once a
// page has been returned the caller is reading on in this process, and r is what the whole query
// still needs, up to lookaheadPages pages (a request asks for at most maxBackendPageSize rows):
// fewer, larger requests than one round per page, with what is fetched ahead (held in memory, and
// charged if the caller stops early) bounded by those pages whatever the TOP. So a
// range costs at most two extra round trips per page, one when the data is skewed towards it.
// fetch calls it for different sources concurrently: it reads ex's fields that the merge changes
// only between rounds of reads, and changes only s.
func (ex *execution) sizeFor(s *source) int {
	if s.skipN > 0 {
		// A resumed range of a plain query re-reads the page it was in from that page's start
		// (skipN < ex.backendCap: token_bounds.go).
		return min(ex.backendCap, max(ex.backend, s.skipN+1))
	}
	if !ex.adaptive {
		return ex.backend
	}
	rem, limit := min(ex.take+ex.skip, lookaheadPages*ex.backend), maxBackendPageSize
	if ex.pages == 0 {
		rem, limit = ex.pageNeed, ex.backend
	}
	size := ex.share
	if s.open {
		size = rem
		if s.refills == 0 && ex.used > 0 {
			e := float64(rem) * float64(s.used) / float64(ex.used)
			size = min(rem, int(math.Ceil(e+2*math.Sqrt(e)))+1)
		}
		s.refills++
	}
	return max(1, min(size, limit))
}

// lookaheadPages bounds what adaptive page sizes fetch ahead of the caller (sizeFor).
const lookaheadPages = 10

// paramLimit spots a parameterised TOP/OFFSET/LIMIT (only to refuse a plan that lacks its value).
var paramLimit = regexp.MustCompile(`(?i)\b(TOP|OFFSET|LIMIT)\s+@`)

// configure reads the plan's queryInfo: the shape, the per-range query text and the limits.
func (ex *execution) configure(query string, p *plan) error {
	qi := p.QueryInfo
	ex.qi = qi
	if len(p.HybridSearch) > 0 && string(p.HybridSearch) != "null" {
		return ex.configureHybrid(p.HybridSearch)
	}
	ex.query = query
	if qi.RewrittenQuery != "" {
		ex.query = strings.ReplaceAll(qi.RewrittenQuery, orderByFilterToken, "true")
	}
	ex.take = -1
	if qi.Top == nil && qi.Limit == nil && paramLimit.MatchString(query) {
		// A plan must carry the value of a parameterised TOP/LIMIT; without it the results would
		// not be cut.
		return &UnsupportedError{Construct: "TOP, OFFSET or LIMIT with a parameter", Reason: "the gateway's plan does not give its value"}
	}
	if qi.Top != nil {
		ex.take = *qi.Top
	}
	if qi.Limit != nil {
		ex.take = *qi.Limit
		if qi.Top != nil {
			ex.take = min(*qi.Top, *qi.Limit)
		}
	}
	if qi.Offset != nil {
		ex.skip = *qi.Offset
	}
	if ex.take < -1 || ex.skip < 0 {
		return &UnsupportedError{Construct: "a negative TOP, OFFSET or LIMIT"}
	}
	switch qi.DistinctType {
	case "", "None":
	case "Ordered", "Unordered":
		ex.distinct = qi.DistinctType
		ex.dist = multiset{}
	default:
		return &UnsupportedError{Construct: "DISTINCT of type " + qi.DistinctType}
	}
	for _, d := range qi.OrderBy {
		switch d {
		case "Ascending":
			ex.desc = append(ex.desc, false)
		case "Descending":
			ex.desc = append(ex.desc, true)
		default:
			return &UnsupportedError{Construct: "ORDER BY direction " + d}
		}
	}
	hasGroups := len(qi.GroupByExpressions) > 0 || len(qi.GroupByAliasToAggregateType) > 0
	switch {
	case qi.HasNonStreamingOrderBy:
		ex.shape = shapeNonStreaming
		if ex.take < 0 {
			return &UnsupportedError{Construct: "ORDER BY VectorDistance without TOP or LIMIT", Reason: "a non-streaming ORDER BY buffers its candidates and needs a bound"}
		}
		if ex.take+ex.skip > ex.c.opts.MaxNonStreamingItems {
			return &UnsupportedError{Construct: "ORDER BY VectorDistance with TOP or OFFSET + LIMIT above Options.MaxNonStreamingItems"}
		}
	case qi.DCountInfo != nil:
		ex.shape = shapeDCount
	case hasGroups:
		ex.shape = shapeGroupBy
	case len(qi.Aggregates) > 0 && len(qi.GroupByExpressions) == 0:
		ex.shape = shapeAggregate
		if len(qi.Aggregates) != 1 {
			return &UnsupportedError{Construct: "several aggregates in SELECT VALUE"}
		}
	case len(qi.OrderBy) > 0:
		ex.shape = shapeOrderBy
		if qi.RewrittenQuery == "" {
			return &PlanError{Reason: "the plan of an ORDER BY query has no rewrittenQuery"}
		}
	default:
		ex.shape = shapePlain
		declared := qi.Top != nil || qi.Offset != nil || qi.Limit != nil || ex.distinct != ""
		if !declared && (p.refused || qi.RewrittenQuery != "") {
			// The gateway refused the query across partitions, yet its plan names nothing this
			// engine would merge: answering with the raw fan-out could be wrong.
			return &UnsupportedError{Construct: "this query", Reason: "the gateway refuses it across partitions and its plan names no operation to merge (an aggregate inside an expression, or TOP/ORDER BY/DISTINCT in a subquery)"}
		}
	}
	if (ex.shape == shapeAggregate || ex.shape == shapeGroupBy || ex.shape == shapeDCount) && qi.RewrittenQuery == "" {
		return &UnsupportedError{Construct: "this aggregate or GROUP BY", Reason: "the gateway's plan has no rewrittenQuery for it"}
	}
	if up := strings.ToUpper(qi.RewrittenQuery); ex.distinct != "" && ex.take >= 0 && strings.Contains(up, "TOP") && !strings.Contains(up, "DISTINCT") {
		// Each range would cut its rows by TOP/LIMIT before duplicates are removed.
		return &UnsupportedError{Construct: "DISTINCT with TOP or LIMIT", Reason: "the gateway's rewritten query limits rows before removing duplicates"}
	}
	if len(qi.OrderBy) > 0 && (ex.shape == shapeGroupBy || ex.shape == shapeAggregate) {
		return &UnsupportedError{Construct: "ORDER BY with GROUP BY or aggregates"}
	}
	return nil
}

// fetch reads pages of s until it holds an unread row or has ended. It runs concurrently for
// different sources, so it leaves drop groups (shared by siblings) to the merge (dropHead).
func (ex *execution) fetch(ctx context.Context, s *source) error {
	for s.pos >= len(s.buf) && !s.finished() {
		tok := s.pageTok
		if s.open {
			tok = s.next
		}
		text, params := ex.queryFor(s)
		if s.hdr == nil {
			s.hdr = rangeHeader(s.r.ID)
		}
		resp, err := ex.c.page(policy.WithHTTPHeader(ctx, s.hdr), ex.prefix, text, params, tok, ex.sizeFor(s), ex.opts)
		ex.mu.Lock()
		ex.charge += resp.RequestCharge
		ex.touched[s.r.ID] = true
		ex.rows += len(resp.Items)
		ex.requests++
		ex.mu.Unlock()
		if isGone(err) {
			return errGone{s}
		}
		if err != nil {
			return err
		}
		rows, err := ex.parseRows(resp.Items)
		if err != nil {
			return err
		}
		s.pageTok, s.buf, s.pos, s.open = tok, rows, 0, true
		s.next = ""
		if resp.ContinuationToken != nil {
			s.next = *resp.ContinuationToken
		}
		if s.skipN > 0 {
			if err := ex.discard(s.dropConsumed()); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropHead skips the rows at the head of s that were consumed before: for ORDER BY those before
// the position s resumes from (resume_orderby.go); for a plain query the rows of a split parent's
// page that it had consumed, which come first on its children (they resume from that page's
// continuation, and the service returns a range's rows in _rid order).
func (ex *execution) dropHead(s *source) error {
	if ex.shape == shapeOrderBy {
		if s.from != nil {
			ex.dropResumed(s)
		}
		return nil
	}
	for s.drop != nil && s.pos < len(s.buf) {
		if !s.drop.seen.take(s.buf[s.pos].hash) {
			s.drop = nil // past the parent's consumed rows
			return nil
		}
		s.pos++
		if s.drop.fromToken {
			if err := ex.discard(1); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseRows decodes a page of the per-range query.
func (ex *execution) parseRows(items [][]byte) ([]row, error) {
	rows := make([]row, 0, len(items))
	var slab []any // the ORDER BY keys of the page's rows, one allocation
	for _, it := range items {
		switch ex.shape {
		case shapeOrderBy, shapeNonStreaming:
			if len(slab) < len(ex.desc) {
				slab = make([]any, len(ex.desc)*(len(items)-len(rows)))
			}
			keys := slab[:len(ex.desc):len(ex.desc)]
			kraw, out, rid, ok := []byte(nil), []byte(nil), []byte(nil), false
			if json.Valid(it) {
				kraw, out, rid, ok = parseOrderByRow(it, keys)
			}
			if ok {
				slab = slab[len(ex.desc):]
			} else {
				var err error
				if keys, kraw, out, rid, err = parseOrderByRowSlow(it, len(ex.desc)); err != nil {
					return nil, err
				}
			}
			r := row{out: out, keys: keys, kraw: kraw, rid: rid}
			if rid == nil {
				r.hash = rawHash(it) // told apart by content when tied (resume_orderby.go)
			}
			rows = append(rows, r)
		case shapePlain:
			if !json.Valid(it) {
				return nil, &PlanError{Reason: "a row is not JSON"}
			}
			rows = append(rows, row{out: it, hash: rawHash(it)})
		default:
			if !json.Valid(it) {
				if _, err := decode(it); err != nil {
					return nil, err
				}
			}
			rows = append(rows, row{out: it, hash: rowHash(it)})
		}
	}
	return rows, nil
}

// consume takes the head row of s (for ORDER BY, recording it as the position a token or a
// split resumes from).
func (ex *execution) consume(s *source) row {
	r := s.buf[s.pos]
	s.pos++
	s.used++
	ex.used++
	if ex.shape == shapeOrderBy {
		ex.consumeOrdered(s, &r)
	}
	return r
}

// children returns fresh sources for the ranges that now cover the gone source s.
func (ex *execution) children(ctx context.Context, s *source) ([]*source, error) {
	all, err := ex.c.refreshRanges(ctx, s.r)
	if err != nil {
		return nil, err
	}
	var kids []*source
	for _, r := range all {
		if !r.overlaps(queryRange{Min: s.r.Min, Max: s.r.Max}) || !slices.ContainsFunc(ex.targets, r.overlaps) {
			continue
		}
		kids = append(kids, &source{r: r})
	}
	if len(kids) == 0 {
		return nil, &PlanError{Reason: "partition key range " + s.r.ID + " is gone and no range covers it"}
	}
	return kids, nil
}

// split replaces the gone source s with its children. For ORDER BY they start from the position s
// had reached (resume_orderby.go). For a plain query they resume from the continuation s was
// sending, as the .NET and Java SDKs do (the service resumes a parent's continuation on its
// children): after a whole page, nothing to drop; on a page s re-read from a token, the rows of
// it that s had consumed, shared by the siblings so that of two equal rows only as many are
// dropped as were consumed.
func (ex *execution) split(ctx context.Context, s *source) ([]*source, error) {
	kids, err := ex.children(ctx, s)
	if err != nil {
		return nil, err
	}
	if ex.shape == shapeOrderBy {
		splitOrdered(s, kids)
		return kids, nil
	}
	tok, seen := s.next, multiset{}
	if !s.open {
		tok = s.pageTok
		for h, n := range s.seen {
			seen[h] += n
		}
	}
	fromToken := false
	if s.drop != nil {
		for h, n := range s.drop.seen {
			seen[h] += n
		}
		fromToken = s.drop.fromToken
	}
	var g *dropGroup
	if len(seen) > 0 {
		g = &dropGroup{seen: seen, fromToken: fromToken || !s.open && s.seen != nil}
	}
	for _, k := range kids {
		k.pageTok, k.drop = tok, g
	}
	return kids, nil
}

// replace puts kids in place of s in ex.srcs.
func (ex *execution) replace(s *source, kids []*source) {
	i := slices.Index(ex.srcs, s)
	ex.srcs = slices.Replace(ex.srcs, i, i+1, kids...)
}

// fetchAll makes every unfinished source hold a row, reading ranges in parallel (one range, the
// common case once the first pages are in, is read on the caller's goroutine).
func (ex *execution) fetchAll(ctx context.Context, need []*source) error {
	for len(need) > 0 {
		var gone []*source
		if len(need) == 1 {
			err := ex.fetch(ctx, need[0])
			var eg errGone
			if errors.As(err, &eg) {
				gone = need[:1:1]
			} else if err != nil {
				return err
			}
		} else {
			g, gctx := errgroup.WithContext(ctx)
			g.SetLimit(ex.c.opts.MaxConcurrency)
			var mu sync.Mutex
			for _, s := range need {
				g.Go(func() error {
					err := ex.fetch(gctx, s)
					var eg errGone
					if errors.As(err, &eg) {
						mu.Lock()
						gone = append(gone, s)
						mu.Unlock()
						return nil
					}
					return err
				})
			}
			if err := g.Wait(); err != nil {
				return err
			}
		}
		need = need[:0:0]
		for _, s := range gone {
			kids, err := ex.split(ctx, s)
			if err != nil {
				return err
			}
			ex.replace(s, kids)
			need = append(need, kids...)
		}
	}
	return nil
}

// nextPage returns the next page of results.
func (ex *execution) nextPage(ctx context.Context) (azcosmos.QueryItemsResponse, error) {
	var items [][]byte
	var err error
	switch ex.shape {
	case shapePlain, shapeOrderBy:
		if ex.passthrough {
			items, err = ex.passPage(ctx)
			break
		}
		items, err = ex.stream(ctx)
	default:
		items, err = ex.nonStreaming(ctx)
	}
	if len(items) == 0 {
		items = nil // as before stream pre-sized its slice
	}
	ex.pages++
	resp := azcosmos.QueryItemsResponse{Items: items}
	resp.RequestCharge = ex.charge // with the plan request's charge on the first page
	ex.totalRows += ex.rows
	ex.totalCharge += ex.charge
	defer func() { ex.charge, ex.touched, ex.rows, ex.requests = 0, map[string]bool{}, 0, 0 }()
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		ids := make([]string, 0, len(ex.touched))
		for id := range ex.touched {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		span.SetAttributes(
			attribute.StringSlice("cosmoskit.crosspartition.ranges", ids),
			attribute.Float64("cosmoskit.crosspartition.request_charge", float64(ex.charge)),
			attribute.Int("cosmoskit.crosspartition.requests", ex.requests),
			attribute.Int("cosmoskit.crosspartition.rows_fetched", ex.rows),
			attribute.Int("cosmoskit.crosspartition.query.rows_fetched", ex.totalRows),
			attribute.Float64("cosmoskit.crosspartition.query.request_charge", float64(ex.totalCharge)),
		)
	}
	if err != nil {
		return resp, err
	}
	if !ex.ended {
		t := ex.token()
		resp.ContinuationToken = &t
	}
	return resp, nil
}

// emit applies DISTINCT, OFFSET and TOP/LIMIT to r; it reports whether r is returned.
func (ex *execution) emit(r row) bool {
	if r.out == nil { // the projection is undefined for this document: no row, as on one partition
		return false
	}
	if ex.distinct != "" {
		h := rowHash(r.out)
		switch ex.distinct {
		case "Ordered":
			if ex.distLast != nil && *ex.distLast == h {
				return false
			}
			ex.distLast = &h
		default:
			if ex.dist[h] > 0 {
				if ex.distToken[h] {
					ex.distDrops++ // dropped on the token's word (token_bounds.go)
				}
				return false
			}
			ex.dist.add(h)
		}
	}
	if ex.skip > 0 {
		ex.skip--
		return false
	}
	if ex.take == 0 {
		return false
	}
	if ex.take > 0 {
		ex.take--
	}
	return true
}

// stream returns a page of a plain or ORDER BY query.
func (ex *execution) stream(ctx context.Context) ([][]byte, error) {
	n := ex.pageSize
	if ex.take >= 0 {
		n = min(n, ex.take)
	}
	items := make([][]byte, 0, n) // one allocation for the page's rows
	for len(items) < ex.pageSize && ex.take != 0 {
		ex.pageNeed = ex.skip + ex.pageSize - len(items)
		if ex.take >= 0 {
			ex.pageNeed = ex.skip + min(ex.pageSize-len(items), ex.take)
		}
		s, err := ex.head(ctx)
		if err != nil {
			return nil, err
		}
		if s == nil {
			ex.ended = true
			return items, nil
		}
		if r := ex.consume(s); ex.emit(r) {
			items = append(items, r.out)
			if ex.c.observe != nil {
				ex.c.observe(r.keys, r.out)
			}
		}
		if ex.distDrops > ex.distBudget {
			if len(items) == 0 {
				return nil, bad("makes a page read more than a legitimate resume of this query can")
			}
			return items, nil // a short page: the token resumes after the duplicates dropped so far
		}
	}
	if ex.take == 0 {
		ex.ended = true
		return items, nil
	}
	// Make sure a token is not returned for a query that has nothing left, and that it does not
	// stop before rows this page's DISTINCT drops (a resumed page then starts with a new row).
	ex.pageNeed = 1
	for ex.distDrops <= ex.distBudget {
		s, err := ex.head(ctx)
		if err != nil {
			return nil, err
		}
		if s == nil {
			ex.ended = true
			break
		}
		if !ex.duplicate(s.buf[s.pos]) {
			break
		}
		ex.emit(ex.consume(s))
	}
	return items, nil
}

// duplicate reports whether emit would drop r as undefined or as a DISTINCT duplicate.
func (ex *execution) duplicate(r row) bool {
	if r.out == nil {
		return true
	}
	switch ex.distinct {
	case "Ordered":
		return ex.distLast != nil && *ex.distLast == rowHash(r.out)
	case "Unordered":
		return ex.dist[rowHash(r.out)] > 0
	}
	return false
}

// ready makes the sources the merge looks at (every source for ORDER BY, the current one for a
// plain query) hold an unread row that no drop group removes, or end. Splits replace sources in
// ex.srcs, so the list is looked at again after each round of reads.
func (ex *execution) ready(ctx context.Context) error {
	for {
		srcs := ex.srcs
		if ex.shape == shapePlain {
			srcs = ex.srcs[ex.cur : ex.cur+1]
		}
		var need []*source
		for _, s := range srcs {
			if err := ex.dropHead(s); err != nil {
				return err
			}
			if s.pos >= len(s.buf) && !s.finished() {
				need = append(need, s)
			}
		}
		if len(need) == 0 {
			return nil
		}
		if err := ex.fetchAll(ctx, need); err != nil {
			return err
		}
	}
}

// head returns the source whose head row comes next, nil at the end.
func (ex *execution) head(ctx context.Context) (*source, error) {
	if ex.shape == shapePlain {
		for ex.cur < len(ex.srcs) {
			if err := ex.ready(ctx); err != nil {
				return nil, err
			}
			s := ex.srcs[ex.cur] // a split replaced it with its first child
			if s.pos < len(s.buf) {
				return s, nil
			}
			if s.finished() {
				ex.cur++
			}
		}
		return nil, nil
	}
	if err := ex.ready(ctx); err != nil {
		return nil, err
	}
	var best *source
	for _, s := range ex.srcs {
		if s.pos >= len(s.buf) {
			continue
		}
		// Strictly smaller wins: ties go to the range earlier in EPK order, as the SDKs do.
		if best == nil || compareKeys(s.buf[s.pos].keys, best.buf[best.pos].keys, ex.desc) < 0 {
			best = s
		}
	}
	return best, nil
}

// token returns the continuation token of the position reached.
func (ex *execution) token() string {
	t := token{Bind: ex.bind, Skip: ex.skip, Take: ex.take}
	switch ex.shape {
	case shapePlain:
		t.Kind = kindPlain
	case shapeOrderBy:
		t.Kind = kindOrderBy
	default:
		t.Kind = kindNone
		return t.encode(ex.c.opts.TokenSigningKey, ex.c.identity)
	}
	switch {
	case ex.distinct == "Ordered" && ex.distLast != nil:
		t.Dist = packHashes([]uint64{*ex.distLast})
	case ex.distinct == "Unordered":
		t.Dist = packHashes(ex.dist.list())
	}
	if ex.shape == shapeOrderBy {
		t.Order = ex.orderToken()
		return t.encode(ex.c.opts.TokenSigningKey, ex.c.identity)
	}
	groups := map[*dropGroup]int{}
	for _, s := range ex.srcs {
		tr := tokenRange{ID: s.r.ID, Min: s.r.Min, Max: s.r.Max, Tok: s.pageTok}
		switch {
		case s.finished():
			tr.Done, tr.Tok = true, ""
		case s.open && s.pos >= len(s.buf):
			tr.Tok = s.next // the page is behind: the next one starts afresh
		case s.open:
			tr.Open, tr.N = true, s.pos
			if s.pos > 0 {
				hs := make([]uint64, s.pos)
				for i, r := range s.buf[:s.pos] {
					hs[i] = r.hash
				}
				tr.Seen = packHashes(hs)
			}
		case s.skipN > 0:
			tr.Open, tr.N, tr.Seen = true, s.skipN, packHashes(s.seen.list())
		}
		if !tr.Done && s.drop != nil && len(s.drop.seen) > 0 {
			if groups[s.drop] == 0 {
				t.Groups = append(t.Groups, tokenGroup{Hashes: packHashes(s.drop.seen.list())})
				groups[s.drop] = len(t.Groups)
			}
			tr.Drop = groups[s.drop]
		}
		t.Ranges = append(t.Ranges, tr)
	}
	return t.encode(ex.c.opts.TokenSigningKey, ex.c.identity)
}
