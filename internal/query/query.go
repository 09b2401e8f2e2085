package query

import (
	"encoding/json"
	"strings"
	"time"
)

// Query is a parsed query. It is immutable and safe for concurrent use.
type Query struct {
	text string
	sel  *selectQuery
	// udf is the query's first user-defined function call ("udf.f"): the query plans but does
	// not run (cosmostest does not support user-defined functions). "" if none.
	udf string
}

// Parse parses a query. Errors are *Error with Code "BadRequest" and the service's message, such as
// "Syntax error, incorrect syntax near 'X'." or "'FOO' is not a recognized built-in function name.".
func Parse(text string) (*Query, error) {
	toks, err := lex(text)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, text: text}
	sel, err := p.parseSelect()
	if err != nil {
		return nil, err
	}
	if p.peek().kind != tEOF {
		return nil, p.fail()
	}
	r := &resolver{}
	if err := r.query(sel, true); err != nil {
		return nil, err
	}
	if err := checkRankSubqueries(sel); err != nil {
		return nil, err
	}
	return &Query{text: text, sel: sel, udf: p.udf}, nil
}

// Text returns the query text as given to Parse.
func (q *Query) Text() string { return q.text }

// Document is one stored item as the engine sees it.
type Document struct {
	// Key is a unique, stable position; callers pass documents sorted by Key ascending.
	Key string
	// Value is the decoded JSON: nil, bool, float64, string, []any, map[string]any. Its objects
	// have no order: OBJECTTOARRAY and projections list their properties by name.
	Value map[string]any
	// Ordered, if not nil, is the same document as Decode reads it, its objects' properties in
	// stored order as the service keeps them; the engine then reads it instead of Value. Default:
	// nil.
	Ordered any
}

// root is the document the engine reads: Ordered if set, else Value.
func (d *Document) root() any {
	if d.Ordered != nil {
		return d.Ordered
	}
	return d.Value
}

// Options configures one Execute call.
type Options struct {
	// Params maps "@name" to a decoded JSON value. A parameter the query uses but Params lacks is
	// undefined.
	Params map[string]any
	// MaxItemCount is the page size: 0 (or any negative value but -1) means 100, the service's
	// default; -1 means dynamic, limited by MaxBytes only.
	MaxItemCount int
	// MaxBytes is the page byte budget; 0 means 4 MiB. A page always holds at least one result.
	MaxBytes int
	// Continuation is "" for the first page, else the token of a previous Page of the same query and
	// parameters.
	Continuation string
	// Vector holds the container's vector embedding policy, the defaults of VectorDistance.
	Vector VectorDefaults
	// Geospatial is the container's geospatial configuration (Geography, the default, or
	// Geometry), the coordinate system of the spatial functions.
	Geospatial Geospatial
	// Now is the time GetCurrentDateTime and friends return; zero means time.Now().
	Now time.Time
	// Index, if not nil, is a composite index built by NewIndex over the same docs. ORDER BY queries
	// whose items are exactly its paths and directions use it; others ignore it. nil means no index.
	Index *Index
}

// Geospatial is a container's geospatial configuration type (geospatialConfig.type).
type Geospatial int

const (
	// Geography (the default) reads GeoJSON coordinates as WGS-84 longitude and latitude: distances
	// in meters, edges along great circles.
	Geography Geospatial = iota
	// Geometry reads them as planar x and y: distances in coordinate units, straight edges.
	Geometry
)

// VectorDefaults is a container's vector embedding policy, by path ("/embedding").
type VectorDefaults struct{ ByPath map[string]VectorSpec }

// VectorSpec is one vector embedding: DistanceFunction "cosine" (the default), "dotproduct" or
// "euclidean"; DataType "float32" (the default), "uint8" or "int8".
type VectorSpec struct {
	DistanceFunction, DataType string
	Dimensions                 int
}

// Page is one page of results.
type Page struct {
	Results []json.RawMessage
	// Continuation is "" when there are no more results.
	Continuation string
	// Scanned counts the documents examined (drives the RU charge).
	Scanned int
}

// recoverPanics turns an engine bug into a BadRequest instead of crashing the server; the fuzz tests
// switch it off so that panics surface.
var recoverPanics = true

const (
	defaultPageSize = 100
	defaultMaxBytes = 4 << 20
)

// Execute runs one page of q over docs, which must be sorted by Key. A continuation resumes exactly
// after the last result returned, also when documents were added or removed between pages; a token that
// is not valid for this query and parameters is an *Error with Code "BadRequest". Runtime errors the
// service reports as 400 (for example a TOP parameter that is not a non-negative integer) are *Error too.
func (q *Query) Execute(docs []Document, opts Options) (page *Page, err error) {
	defer func() {
		if !recoverPanics {
			return
		}
		if r := recover(); r != nil {
			page, err = nil, badRequest("The query could not be executed.")
		}
	}()
	if q.udf != "" {
		return nil, unsupportedUDF(q.udf)
	}
	ev := newEvaluator(opts)
	ev.maxRows = max(defaultMaxRows, 20*len(docs))
	ev.corpus = docs
	pageSize := opts.MaxItemCount
	switch {
	case pageSize == -1:
		pageSize = int(^uint(0) >> 1)
	case pageSize <= 0:
		pageSize = defaultPageSize
	}
	maxBytes := opts.MaxBytes
	if maxBytes <= 0 {
		maxBytes = defaultMaxBytes
	}
	x := &execution{q: q, ev: ev, docs: docs, index: opts.Index, pageSize: pageSize, maxBytes: maxBytes, hash: q.hash(ev.params)}
	x.skip, x.take = ev.window(q.sel)
	if ev.err != nil {
		return nil, ev.err
	}
	if len(q.sel.sources) == 0 {
		// A query without FROM yields one row, whatever the documents.
		x.items = []item{{key: "0"}}
	} else if q.sel.sources[0].sub != nil {
		x.items = ev.subqueryItems(q.sel.sources[0].sub, docs)
		if ev.err != nil {
			return nil, ev.err
		}
	}
	mode := q.mode()
	var tok *contToken
	if opts.Continuation != "" {
		if tok, err = decodeToken(opts.Continuation, x.hash, mode, len(q.sel.orderBy)); err != nil {
			return nil, err
		}
		x.skip, x.take = tok.Skip, tok.Take
	}
	switch mode {
	case modeStream:
		page = x.stream(tok)
	case modeOrdered:
		page = x.ordered(tok)
	default:
		page = x.full(tok)
	}
	if ev.err != nil {
		return nil, ev.err
	}
	return page, nil
}

func newEvaluator(opts Options) *evaluator {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	params := make(map[string]any, len(opts.Params))
	for k, v := range opts.Params {
		if !strings.HasPrefix(k, "@") {
			k = "@" + k
		}
		params[k] = normalize(v)
	}
	return &evaluator{params: params, now: now.UTC(), vector: opts.Vector, geometry: opts.Geospatial == Geometry, maxRows: defaultMaxRows}
}

type execMode int

const (
	modeStream execMode = iota + 1
	modeOrdered
	modeFull
)

func (q *Query) mode() execMode {
	s := q.sel
	switch {
	case s.distinct || s.hasAgg || len(s.groupBy) > 0 || s.rank:
		return modeFull
	case len(s.orderBy) > 0:
		return modeOrdered
	}
	return modeStream
}

// Match evaluates a patch condition such as "from c where c.n = 5" against one document: true if the
// document yields a row that passes the WHERE clause. Errors are *Error as for Parse.
func Match(condition string, doc map[string]any) (bool, error) {
	text := strings.TrimSpace(condition)
	if len(text) < 4 || !strings.EqualFold(text[:4], "from") {
		return false, badRequest("Syntax error, incorrect syntax near '%s'.", firstWord(text))
	}
	q, err := Parse("SELECT VALUE 1 " + text)
	if err != nil {
		return false, err
	}
	if q.udf != "" {
		return false, unsupportedUDF(q.udf)
	}
	ev := newEvaluator(Options{})
	matched := false
	ev.forEachRow(q.sel, nil, true, doc, func(vals []any) bool {
		if q.sel.where == nil || ev.truthy(q.sel.where, &env{vals: vals}) {
			matched = true
			return false
		}
		return true
	})
	if ev.err != nil {
		return false, ev.err
	}
	return matched, nil
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}
