package crosspartition

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
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
	p, err := ex.plan(ctx, query)
	if err != nil {
		return nil, err
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

// plan returns the query's plan: the cached one, else the gateway's (its charge counted).
func (ex *execution) plan(ctx context.Context, query string) (*plan, error) {
	c := ex.c
	if p := c.pc.get(ex.bind); p != nil {
		return p, nil
	}
	p, charge, err := c.fetchPlan(ctx, ex.prefix, query, ex.params, ex.opts)
	ex.charge += charge
	if err != nil {
		return nil, err
	}
	c.pc.put(ex.bind, p)
	return p, nil
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
	ex.annotate(ctx)
	if err != nil {
		return resp, err
	}
	if !ex.ended {
		t := ex.token()
		resp.ContinuationToken = &t
	}
	return resp, nil
}

// annotate gives the span in ctx the page's ranges, requests, rows and charge, and the query's.
func (ex *execution) annotate(ctx context.Context) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
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
