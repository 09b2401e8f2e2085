package vector

import (
	"context"
	"reflect"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/jsonfields"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// Repo runs vector searches over the items of a repository.Repository[T]: only documents of the
// repository's type (c.type = @type), decoded (and upgraded) as the repository's Get does.
type Repo[T any] struct {
	r *repository.Repository[T]
	s *Searcher
}

// ForRepository returns a typed search over r's container. Errors are New's, and a
// *cosmoserr.ValidationError for a nil r.
func ForRepository[T any](r *repository.Repository[T], o Options) (*Repo[T], error) {
	if r == nil {
		return nil, invalid(cosmoserr.ErrValidation, "repository", "is nil")
	}
	s, err := New(r.Container(), o)
	if err != nil {
		return nil, err
	}
	return &Repo[T]{r: r, s: s}, nil
}

// Searcher returns the untyped Searcher underneath (Index, Options).
func (x *Repo[T]) Searcher() *Searcher { return x.s }

// Search runs q with filter, an optional query from repository.NewQuery narrowed only by Where
// (its values travel as parameters): nil filters by type only. Fields default to the JSON fields
// of T (without the embedding unless q.IncludeEmbedding: T's embedding field stays empty); "id",
// "type" and "schemaVersion" are always fetched, since each hit is checked and decoded as the
// repository's Decode does. Upgrades of an older schema version see only the fetched fields.
func (x *Repo[T]) Search(ctx context.Context, q Query, filter *repository.Query) (Result[T], error) {
	ix, cond, params, def, err := x.prepare(ctx, filter, true)
	if err != nil {
		return Result[T]{}, err
	}
	if q.Fields != nil {
		q.Fields = append(append([]string(nil), q.Fields...), "id")
	}
	if q.Fields != nil || !q.IncludeEmbedding {
		// The repository checks a document's type and schema version on decode.
		if q.Fields != nil {
			q.Fields = append(q.Fields, "type", "schemaVersion")
		} else {
			def = append(append([]string(nil), def...), "type", "schemaVersion")
		}
	}
	pl, err := x.s.render(&q, ix, cond, params, def)
	if err != nil {
		return Result[T]{}, err
	}
	res := Result[T]{Method: ix.Method(q.Exact), Index: ix, CrossPartition: pl.pk == nil}
	err = x.collect(ctx, pl, q.K, &res)
	return res, err
}

// collect runs the plan and appends its hits to res, each decoded as T with the repository's type
// check and upgrades, and adds the request charge.
func (x *Repo[T]) collect(ctx context.Context, pl *plan, k int, res *Result[T]) error {
	return x.s.run(ctx, pl, k, func(r row) error {
		item, err := x.r.Decode(r.Item)
		if err != nil {
			return err
		}
		res.Hits = append(res.Hits, Hit[T]{Item: item, Score: r.Score})
		return nil
	}, &res.RequestCharge)
}

// prepare is what every typed search starts with: the container's vector index, the filter as a
// parameterised condition (nil filters by type only), and T's JSON fields.
func (x *Repo[T]) prepare(ctx context.Context, filter *repository.Query, vector bool) (Index, string, []azcosmos.QueryParameter, []string, error) {
	ix, err := x.s.index(ctx, vector)
	if err != nil {
		return Index{}, "", nil, nil, err
	}
	if filter == nil {
		filter = repository.NewQuery()
	}
	cond, params, err := x.r.Condition(filter)
	if err != nil {
		return Index{}, "", nil, nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "Filter", Reason: err.Error()}
	}
	return ix, cond, params, jsonfields.Of(reflect.TypeFor[T]()), nil
}
