package repository

import (
	"context"
	"encoding/json"
	"iter"
	"reflect"
	"slices"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/jsonfields"
)

// DefaultPageSize is the page size of Page when size is 0 or less, and of All.
const DefaultPageSize = 100

// Page is one page of query results.
type Page[T any] struct {
	// Items are the page's results, at most the requested size; never empty unless the query has
	// no (more) results.
	Items []T
	// Next is the opaque, URL-safe token of the next page, "" when this is the last one.
	Next string
}

// Page runs one page of q: up to size items (DefaultPageSize if size ≤ 0, at most 1000) from the
// position token ("" for the first page). It keeps reading while the service returns empty pages
// with a continuation, so Items is empty only at the end. Pass Next back to continue; it is bound
// to q's text, parameter values and scope (a token of another query, of the same query with other
// values, or of another partition key is an error matching cosmoserr.ErrInvalidToken, before anything is
// sent; see bindToken for what an azcosmos.PartitionKey scope can bind). Results are decoded
// like Get (type check, upgrades). Paging never uses OFFSET.
func (r *Repository[T]) Page(ctx context.Context, q *Query, size int, token string) (_ Page[T], err error) {
	ctx, end := r.start(ctx, "repository.Page")
	defer func() { end(err) }()
	var p Page[T]
	if q != nil && len(q.fields) > 0 {
		return p, invalid(cosmoserr.ErrInvalidQuery, "query", "Select projects rows for PageOf and AllOf; Page and All decode whole items")
	}
	rq, err := q.render(r.typeName, r.untyped, r.version, nil)
	if err != nil {
		return p, err
	}
	next, err := r.pageRaw(ctx, q, rq, size, token, func(n int) { p.Items = slices.Grow(p.Items, n) }, func(doc []byte) error {
		item, _, err := decode[T](&r.core, doc)
		if err == nil {
			p.Items = append(p.Items, item)
		}
		return err
	})
	p.Next = next
	return p, err
}

// All returns an iterator over every result of q, page by page (DefaultPageSize). It stops at the
// first error, which it yields with a zero T.
func (r *Repository[T]) All(ctx context.Context, q *Query) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		token := ""
		for {
			p, err := r.Page(ctx, q, DefaultPageSize, token)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range p.Items {
				if !yield(it, nil) {
					return
				}
			}
			if p.Next == "" {
				return
			}
			token = p.Next
		}
	}
}

// Count returns the number of items of this type matching a query built with NewQuery, in its
// partition or, with CrossPartition, across every partition. The query's order, top and projection
// are ignored; across partitions, the counts of the physical partitions are summed by the
// crosspartition engine. A template query is an error matching cosmoserr.ErrInvalidQuery.
func (r *Repository[T]) Count(ctx context.Context, q *Query) (_ int64, err error) {
	ctx, end := r.start(ctx, "repository.Count")
	defer func() { end(err) }()
	if q == nil {
		return 0, invalid(cosmoserr.ErrInvalidQuery, "query", "is nil")
	}
	if q.err != nil {
		return 0, q.err
	}
	if !q.built {
		return 0, invalid(cosmoserr.ErrInvalidQuery, "query", "Count needs a query from NewQuery")
	}
	if !q.hasPK && !q.cross {
		return 0, invalid(cosmoserr.ErrInvalidQuery, "query", "Count needs a partition key, or CrossPartition() to count across partitions")
	}
	rq := q.build(r.typeName, r.untyped, r.version, nil, true)
	var total int64
	token := ""
	for {
		next, err := r.pageRaw(ctx, q, rq, 0, token, nil, func(doc []byte) error {
			var n int64
			if err := json.Unmarshal(doc, &n); err != nil {
				return err
			}
			total += n
			return nil
		})
		if err != nil || next == "" {
			return total, err
		}
		token = next
	}
}

// PageOf runs one page of q like Repository.Page, decoding each result into D: a projection DTO
// with a subset of T's fields. If q was built with NewQuery and has no Select, it selects the JSON
// names of D's fields.
//
// Schema versions work as in Get for a query built with NewQuery: a document below the current
// version comes back whole (the projection asks for it only then), runs through Options.Upgrades
// and D takes its fields from the upgraded form; a newer one is cosmoserr.ErrUnknownSchemaVersion. Filters
// and order still apply to the stored documents, so a renamed property matches old documents
// only after Migrate. The rows of an SQL template are the template's own: they are decoded into
// D as returned, without type check or upgrade.
func PageOf[D, T any](ctx context.Context, r *Repository[T], q *Query, size int, token string) (_ Page[D], err error) {
	ctx, end := r.start(ctx, "repository.PageOf")
	defer func() { end(err) }()
	var p Page[D]
	var fields []string
	if q != nil && q.built && len(q.fields) == 0 {
		fields = jsonfields.Of(reflect.TypeFor[D]())
	}
	selected := fields
	if q != nil && len(q.fields) > 0 {
		selected = q.fields
	}
	whole := q != nil && q.built && len(selected) == 0 // SELECT *: rows are whole documents
	rq, err := q.render(r.typeName, r.untyped, r.version, fields)
	if err != nil {
		return p, err
	}
	next, err := r.pageRaw(ctx, q, rq, size, token, func(n int) { p.Items = slices.Grow(p.Items, n) }, func(row []byte) error {
		var d D
		if err := r.decodeRow(row, selected, whole, &d); err != nil {
			return err
		}
		p.Items = append(p.Items, d)
		return nil
	})
	p.Next = next
	return p, err
}

// decodeRow decodes one result row of PageOf into d. A projected row of a document that is not
// at the current schema version carries the whole document (see Query.build): it is checked and
// upgraded like Get does, then d takes the selected fields from the upgraded document.
func (c *core) decodeRow(row []byte, selected []string, whole bool, d any) error {
	full := row
	if !whole {
		full = member(row, fullDocKey)
	}
	if full == nil || string(full) == "null" {
		if err := json.Unmarshal(row, d); err != nil {
			h, _ := scanHeader(row, false)
			return c.docError(cosmoserr.ErrValidation, h, "cannot be decoded: "+err.Error())
		}
		return nil
	}
	h, _ := scanHeader(full, false)
	if err := c.checkHeaderForRead(h); err != nil {
		return err
	}
	doc := full
	if c.docVersion(h) != c.version {
		up, err := c.upgrade(h, full)
		if err != nil {
			return err
		}
		doc = up
	}
	if len(selected) > 0 {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(doc, &m); err != nil {
			return c.docError(cosmoserr.ErrValidation, h, "cannot be decoded: "+err.Error())
		}
		keep := make(map[string]json.RawMessage, len(selected))
		for _, f := range selected {
			if v, ok := m[f]; ok {
				keep[f] = v
			}
		}
		b, err := json.Marshal(keep)
		if err != nil {
			return c.docError(cosmoserr.ErrValidation, h, "cannot be projected: "+err.Error())
		}
		doc = b
	}
	if err := json.Unmarshal(doc, d); err != nil {
		return c.docError(cosmoserr.ErrValidation, h, "cannot be decoded: "+err.Error())
	}
	return nil
}

// AllOf is All for a projection into D (see PageOf).
func AllOf[D, T any](ctx context.Context, r *Repository[T], q *Query) iter.Seq2[D, error] {
	return func(yield func(D, error) bool) {
		token := ""
		for {
			p, err := PageOf[D](ctx, r, q, DefaultPageSize, token)
			if err != nil {
				var zero D
				yield(zero, err)
				return
			}
			for _, it := range p.Items {
				if !yield(it, nil) {
					return
				}
			}
			if p.Next == "" {
				return
			}
			token = p.Next
		}
	}
}

// pageRaw runs pages of rq from token until one has results or the query ends, passing each
// result to each, and returns the next token.
// reserve, if not nil, is told how many results a response carries before they are passed on.
func (c *core) pageRaw(ctx context.Context, q *Query, rq *rendered, size int, token string, reserve func(int), each func([]byte) error) (string, error) {
	pk, cross, err := c.scope(q)
	if err != nil {
		return "", err
	}
	if size <= 0 {
		size = DefaultPageSize
	}
	bind := sync.OnceValue(func() tokenBinding { return c.bindToken(q, rq) })
	opts := azcosmos.QueryOptions{
		PageSizeHint:              int32(min(size, 1000)),
		QueryParameters:           rq.params,
		EnableCrossPartitionQuery: &cross,
	}
	if token != "" {
		cont, err := c.decodeToken(bind(), token)
		if err != nil {
			return "", err
		}
		opts.ContinuationToken = &cont
	}
	if q.cross && token == "" {
		c.log.DebugContext(ctx, "cosmoskit: cross-partition query", "type", c.typeName, "query", rq.text)
	}
	pager := c.queryPager(q, rq.text, pk, q.hasPK && cross, &opts)
	for pager.More() {
		resp, err := pager.NextPage(ctx)
		if err != nil {
			return "", c.queryError(err)
		}
		if reserve != nil && len(resp.Items) > 0 {
			reserve(len(resp.Items))
		}
		for _, doc := range resp.Items {
			if err := each(doc); err != nil {
				return "", err
			}
		}
		if resp.ContinuationToken == nil || *resp.ContinuationToken == "" {
			return "", nil
		}
		if len(resp.Items) > 0 {
			return c.encodeToken(bind(), *resp.ContinuationToken), nil
		}
	}
	return "", nil
}
