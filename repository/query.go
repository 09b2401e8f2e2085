package repository

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Op is a comparison of the query builder.
type Op string

// The builder's comparisons. Every value travels as a query parameter.
const (
	Eq         Op = "="
	Ne         Op = "!="
	Lt         Op = "<"
	Le         Op = "<="
	Gt         Op = ">"
	Ge         Op = ">="
	In         Op = "IN"         // value is a slice: ARRAY_CONTAINS(@p, c.field)
	StartsWith Op = "STARTSWITH" // STARTSWITH(c.field, @p)
	Contains   Op = "CONTAINS"   // CONTAINS(c.field, @p)
	Defined    Op = "IS_DEFINED" // IS_DEFINED(c.field); the value is ignored
)

// Direction orders results.
type Direction bool

// Sort directions.
const (
	Asc  Direction = false
	Desc Direction = true
)

// Param returns a query parameter; name starts with @.
func Param(name string, value any) azcosmos.QueryParameter {
	return azcosmos.QueryParameter{Name: name, Value: value}
}

// Query is a query a repository runs: a template with parameters (SQL) or one built from filters
// (NewQuery). It is scoped to one partition key (Partition) or explicitly to all partitions
// (CrossPartition). A Query is an immutable value: every builder method returns a new query and
// never changes its receiver, so a query built once may be shared between goroutines and scoped per
// request (base.Partition(tenantKey)) without one request's scope reaching another. Builder methods
// record the first error, which the repository method running the query returns before sending
// anything.
type Query struct {
	text    string
	params  []azcosmos.QueryParameter
	built   bool
	filters []filter
	orders  []order
	top     int
	fields  []string
	pk      PartitionKey
	hasPK   bool
	cross   bool
	err     error
	// cache holds the rendered text; queries that differ only in scope (Partition,
	// CrossPartition) share it, since the text does not depend on the scope.
	cache *renderCache
}

type renderCache struct{ p atomic.Pointer[rendered] }

type filter struct {
	field string
	op    Op
	value any
}

type order struct {
	field string
	desc  bool
}

// rendered is a query's text and parameters for one type discriminator.
type rendered struct {
	typ     string
	untyped bool // built with Options.ReadUntyped's filter
	version int
	text    string
	params  []azcosmos.QueryParameter
	count   bool
}

// derive returns a copy of q for a builder to change: slices are clipped so that appending to
// the copy never writes into q's backing arrays. keepCache shares q's rendered text (for
// builders that change only the scope).
func (q *Query) derive(keepCache bool) *Query {
	if q == nil {
		q = &Query{}
	}
	n := *q
	n.params = slices.Clip(q.params)
	n.filters = slices.Clip(q.filters)
	n.orders = slices.Clip(q.orders)
	n.fields = slices.Clip(q.fields)
	if !keepCache || n.cache == nil {
		n.cache = &renderCache{}
	}
	return &n
}

func (q *Query) setError(err error) {
	if q.err == nil {
		q.err = err
	}
}

// builder returns a copy of q to change, recording an error in it if q is a template query.
func (q *Query) builder(method string) (*Query, bool) {
	n := q.derive(false)
	if !n.built {
		n.setError(invalid(cosmoserr.ErrInvalidQuery, "query", method+" needs a query from NewQuery, not SQL"))
	}
	return n, n.built
}

// SQL returns a query from a template and its parameters: values never go into the text. The
// template may not contain string literals (a quote outside c["name"] property access) or OFFSET
// (page with continuation tokens instead), and every parameter name must start with @. The
// parameter @type is bound to the repository's type unless given, so templates can (and should)
// filter with c.type = @type; documents of another type in the results are errors on decode.
func SQL(template string, params ...azcosmos.QueryParameter) *Query {
	q := &Query{text: template, params: slices.Clone(params), cache: &renderCache{}}
	if err := checkTemplate(template); err != nil {
		q.setError(err)
	}
	for _, p := range params {
		if !paramName.MatchString(p.Name) {
			q.setError(invalid(cosmoserr.ErrInvalidQuery, "query", fmt.Sprintf("parameter name %q must be @ followed by letters, digits or _", p.Name)))
		}
	}
	return q
}

var (
	paramName   = regexp.MustCompile(`^@[A-Za-z_][A-Za-z0-9_]*$`)
	fieldName   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	bracketName = regexp.MustCompile(`\[\s*"[A-Za-z0-9_ $-]*"\s*\]`)
	offsetWord  = regexp.MustCompile(`(?i)\bOFFSET\b`)
	typeParam   = regexp.MustCompile(`@type\b`)
)

// checkTemplate is a best-effort guard against values concatenated into SQL text.
func checkTemplate(t string) error {
	if strings.TrimSpace(t) == "" {
		return invalid(cosmoserr.ErrInvalidQuery, "query", "is empty")
	}
	stripped := bracketName.ReplaceAllString(t, "[]")
	if strings.ContainsAny(stripped, `'"`) {
		return invalid(cosmoserr.ErrInvalidQuery, "query", "contains a string literal; pass values as parameters")
	}
	if offsetWord.MatchString(stripped) {
		return invalid(cosmoserr.ErrInvalidQuery, "query", "uses OFFSET; page with continuation tokens (Page) instead")
	}
	return nil
}

// NewQuery returns a query builder: SELECT * over the repository's type, narrowed by Where, sorted
// by OrderBy, limited by Top, projected by Select.
func NewQuery() *Query { return &Query{built: true, cache: &renderCache{}} }

// Where returns q with a filter added (ANDed with the others). field is a property path such as
// "status" or "address.city" (letters, digits and _ only); value is sent as a parameter.
func (q *Query) Where(field string, op Op, value any) *Query {
	q, ok := q.builder("Where")
	if !ok {
		return q
	}
	if !fieldName.MatchString(field) {
		q.setError(invalid(cosmoserr.ErrInvalidQuery, "field", fmt.Sprintf("%q is not a property path (letters, digits, _ and .)", field)))
	}
	switch op {
	case Eq, Ne, Lt, Le, Gt, Ge, In, StartsWith, Contains, Defined:
	default:
		q.setError(invalid(cosmoserr.ErrInvalidQuery, "op", fmt.Sprintf("unknown operator %q", string(op))))
	}
	q.filters = append(q.filters, filter{field, op, value})
	return q
}

// OrderBy returns q sorted by field as well (see Where); the container's indexing policy needs a
// composite index for more than one.
func (q *Query) OrderBy(field string, dir Direction) *Query {
	q, ok := q.builder("OrderBy")
	if !ok {
		return q
	}
	if !fieldName.MatchString(field) {
		q.setError(invalid(cosmoserr.ErrInvalidQuery, "field", fmt.Sprintf("%q is not a property path", field)))
	}
	q.orders = append(q.orders, order{field, bool(dir)})
	return q
}

// Top returns q limited to n results (sent as the parameter @top). n must be positive.
func (q *Query) Top(n int) *Query {
	q, ok := q.builder("Top")
	if !ok {
		return q
	}
	if n <= 0 {
		q.setError(invalid(cosmoserr.ErrInvalidQuery, "top", "must be positive"))
	}
	q.top = n
	return q
}

// Select returns q projected onto the given top-level properties. Use it with PageOf and AllOf,
// whose projection defaults to the JSON names of the result type's fields; Page and All, which
// decode whole items, refuse a query with Select (cosmoserr.ErrInvalidQuery).
func (q *Query) Select(fields ...string) *Query {
	q, ok := q.builder("Select")
	if !ok {
		return q
	}
	for _, f := range fields {
		if !fieldName.MatchString(f) || strings.Contains(f, ".") {
			q.setError(invalid(cosmoserr.ErrInvalidQuery, "field", fmt.Sprintf("%q is not a top-level property name", f)))
		}
	}
	q.fields = slices.Clone(fields)
	return q
}

// Partition returns q scoped to partition key pk (all components, or a prefix of a hierarchical
// key). This is the default and the cheap case. It replaces any earlier scope.
func (q *Query) Partition(pk PartitionKey) *Query {
	q = q.derive(true)
	q.pk, q.hasPK, q.cross = pk, true, false
	return q
}

// CrossPartition returns q allowed to fan out to every partition. Each run is logged at Debug
// level (once, when its first page is read), with the query text but never parameter values. It
// replaces any earlier scope.
func (q *Query) CrossPartition() *Query {
	q = q.derive(true)
	q.pk, q.hasPK, q.cross = nil, false, true
	return q
}

// render returns the text and parameters of q for type typ at schema version version, cached;
// untyped widens a built query's type filter to documents without a type (Options.ReadUntyped).
func (q *Query) render(typ string, untyped bool, version int, fields []string) (*rendered, error) {
	if q == nil || (!q.built && q.text == "") {
		return nil, invalid(cosmoserr.ErrInvalidQuery, "query", "is empty: use SQL or NewQuery")
	}
	if q.err != nil {
		return nil, q.err
	}
	cache := q.cache
	if cache == nil { // a Query not made by SQL or NewQuery: render every time
		cache = &renderCache{}
	}
	if !q.built {
		if c := cache.p.Load(); c != nil && c.typ == typ {
			return c, nil
		}
		params := q.params
		if typeParam.MatchString(q.text) && !hasParam(params, "@type") {
			params = append(append(make([]azcosmos.QueryParameter, 0, len(params)+1), params...), Param("@type", typ))
		}
		r := &rendered{typ: typ, text: q.text, params: params}
		cache.p.Store(r)
		return r, nil
	}
	if fields == nil {
		if c := cache.p.Load(); c != nil && c.typ == typ && c.untyped == untyped && c.version == version && !c.count {
			return c, nil
		}
	}
	r := q.build(typ, untyped, version, fields, false)
	if fields == nil {
		cache.p.Store(r)
	}
	return r, nil
}

func hasParam(ps []azcosmos.QueryParameter, name string) bool {
	for _, p := range ps {
		if p.Name == name {
			return true
		}
	}
	return false
}

// fullDocKey is the property of a projected row that holds the whole document when it is not at
// the repository's schema version (null otherwise).
const fullDocKey = "_cosmoskitDoc"

// build renders a built query. fields overrides q.fields; count renders SELECT VALUE COUNT(1).
// version is the repository's schema version, for projections; untyped matches documents
// without a "type" too (Options.ReadUntyped).
func (q *Query) build(typ string, untyped bool, version int, fields []string, count bool) *rendered {
	var b strings.Builder
	params := make([]azcosmos.QueryParameter, 0, len(q.filters)+2)
	params = append(params, Param("@type", typ))
	b.WriteString("SELECT ")
	if fields == nil {
		fields = q.fields
	}
	switch {
	case count:
		b.WriteString("VALUE COUNT(1)")
	default:
		if q.top > 0 {
			b.WriteString("TOP @top ")
			params = append(params, Param("@top", q.top))
		}
		if len(fields) == 0 {
			b.WriteString("*")
		} else {
			// The row carries the whole document only when it is not at the current schema
			// version, so PageOf can upgrade it (or report a newer one) before projecting it.
			b.WriteString("VALUE {")
			for _, f := range fields {
				b.WriteString(strconv.Quote(f))
				b.WriteString(": ")
				writeField(&b, f)
				b.WriteString(", ")
			}
			b.WriteString(`"` + fullDocKey + `": IIF(c["schemaVersion"] = @schemaVersion, null, c)}`)
			params = append(params, Param("@schemaVersion", version))
		}
	}
	if untyped {
		b.WriteString(" FROM c WHERE (c.type = @type OR NOT IS_DEFINED(c.type))")
	} else {
		b.WriteString(" FROM c WHERE c.type = @type")
	}
	for i, f := range q.filters {
		p := "@p" + strconv.Itoa(i)
		b.WriteString(" AND ")
		switch f.op {
		case In:
			b.WriteString("ARRAY_CONTAINS(" + p + ", ")
			writeField(&b, f.field)
			b.WriteString(")")
		case StartsWith, Contains:
			b.WriteString(string(f.op) + "(")
			writeField(&b, f.field)
			b.WriteString(", " + p + ")")
		case Defined:
			b.WriteString("IS_DEFINED(")
			writeField(&b, f.field)
			b.WriteString(")")
			continue
		default:
			writeField(&b, f.field)
			b.WriteString(" " + string(f.op) + " " + p)
		}
		params = append(params, Param(p, f.value))
	}
	if !count && len(q.orders) > 0 {
		b.WriteString(" ORDER BY ")
		for i, o := range q.orders {
			if i > 0 {
				b.WriteString(", ")
			}
			writeField(&b, o.field)
			if o.desc {
				b.WriteString(" DESC")
			} else {
				b.WriteString(" ASC")
			}
		}
	}
	return &rendered{typ: typ, untyped: untyped, version: version, text: b.String(), params: params, count: count}
}

// writeField writes a validated property path with bracket access, so that property names that
// are SQL keywords ("value", "order") work too.
func writeField(b *strings.Builder, path string) {
	b.WriteString("c")
	for seg := range strings.SplitSeq(path, ".") {
		b.WriteString(`["`)
		b.WriteString(seg)
		b.WriteString(`"]`)
	}
}

// scope returns the partition key and cross-partition flag a query runs with.
func (c *core) scope(q *Query) (azcosmos.PartitionKey, bool, error) {
	switch {
	case q.hasPK:
		sdk, n, err := c.checkKey(q.pk, true)
		if err != nil {
			return sdk, false, err
		}
		// A prefix of a hierarchical key fans out over the partitions under it. An
		// azcosmos.PartitionKey's length cannot be read (n < 0): allow the fan-out whenever the
		// container has levels; for a full key the gateway still serves one partition.
		return sdk, c.pkLevels > 1 && n < c.pkLevels, nil
	case q.cross:
		return azcosmos.NewPartitionKey(), true, nil
	default:
		return azcosmos.PartitionKey{}, false, invalid(cosmoserr.ErrInvalidQuery, "query", "has no partition key: call Partition(pk), or CrossPartition() to fan out deliberately")
	}
}
