package repository

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Entity is a repository seen without its type parameter; every *Repository[T] is one. Mixed uses
// it to decode each document of a shared container to its registered Go type.
type Entity interface {
	// Type returns the type discriminator.
	Type() string
	entity() *core
	decodeAny(doc []byte) (any, error)
}

func (r *Repository[T]) entity() *core { return &r.core }

func (r *Repository[T]) decodeAny(doc []byte) (any, error) {
	v, _, err := decode[T](&r.core, doc)
	return v, err
}

// Mixed reads the documents of several types that share a container and a partition key (a customer
// and its orders). It decodes each to the Go type of the repository registered for its "type": the
// values are T, not *T, so a type switch reads `case Order:`.
type Mixed struct {
	core   *core
	byType map[string]Entity
	byJSON map[string]Entity // keyed by the quoted type, as it appears in documents
	types  []string
	query  *Query
}

// NewMixed returns a polymorphic reader over repositories of one container with distinct types.
func NewMixed(repos ...Entity) (*Mixed, error) {
	if len(repos) == 0 {
		return nil, invalid(cosmoserr.ErrValidation, "repos", "none given")
	}
	m := &Mixed{core: repos[0].entity(), byType: make(map[string]Entity, len(repos)), byJSON: make(map[string]Entity, len(repos))}
	for _, e := range repos {
		c := e.entity()
		if c.c != m.core.c {
			return nil, invalid(cosmoserr.ErrValidation, "repos", "repositories use different container clients")
		}
		if _, dup := m.byType[c.typeName]; dup {
			return nil, invalid(cosmoserr.ErrValidation, "repos", fmt.Sprintf("type %q registered twice", c.typeName))
		}
		m.byType[c.typeName] = e
		m.byJSON[string(c.typeJSON)] = e
		m.types = append(m.types, c.typeName)
	}
	m.query = SQL("SELECT * FROM c WHERE ARRAY_CONTAINS(@types, c.type)", Param("@types", m.types))
	return m, nil
}

// decode decodes a document by its "type": cosmoserr.ErrTypeMismatch for a type not registered.
func (m *Mixed) decode(doc []byte) (any, error) {
	h, _ := scanHeader(doc, false)
	if e, ok := m.byJSON[string(h.typ)]; ok {
		return e.decodeAny(doc)
	}
	err := m.core.docError(cosmoserr.ErrTypeMismatch, h, "no repository registered for this type")
	var de *DocumentError
	if errors.As(err, &de) {
		de.Type = fmt.Sprint(m.types)
	}
	return nil, err
}

// Get reads the item with id in partition pk by a point read and decodes it to its registered type.
func (m *Mixed) Get(ctx context.Context, pk PartitionKey, id string) (_ any, err error) {
	ctx, end := m.core.start(ctx, "repository.Mixed.Get")
	defer func() { end(err) }()
	sdk, err := m.core.checkPoint(pk, id)
	if err != nil {
		return nil, err
	}
	resp, err := m.core.c.ReadItem(ctx, sdk, id, nil)
	if err != nil {
		return nil, m.core.opError(cosmoserr.OpReadItem, id, err)
	}
	return m.decode(resp.Value)
}

// Partition returns every document of the registered types in partition pk, each decoded to its
// Go type, with one single-partition query. It stops at the first error, yielded with a nil value.
func (m *Mixed) Partition(ctx context.Context, pk PartitionKey) iter.Seq2[any, error] {
	q := m.query.Partition(pk)
	return func(yield func(any, error) bool) {
		rq, err := q.render("", false, 0, nil)
		if err != nil {
			yield(nil, err)
			return
		}
		token := ""
		for {
			var items []any
			pctx, end := m.core.start(ctx, "repository.Mixed.Partition")
			next, err := m.core.pageRaw(pctx, q, rq, DefaultPageSize, token, nil, func(doc []byte) error {
				v, err := m.decode(doc)
				if err == nil {
					items = append(items, v)
				}
				return err
			})
			end(err)
			for _, v := range items {
				if !yield(v, nil) {
					return
				}
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if next == "" {
				return
			}
			token = next
		}
	}
}
