package repository

import (
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Condition renders the Where filters of q as a WHERE condition over c for this repository's
// type, with its parameters.
//
// q is a query from NewQuery narrowed only by Where. The condition reads "c.type = @type AND
// c[\"status\"] = @p0 ...", or with Options.ReadUntyped "(c.type = @type OR NOT IS_DEFINED(c.type))
// AND ...", and the parameters are @type and @p0, @p1, ...: values never enter the text. Other
// packages that build their own queries (vector search) use it to accept the repository's filters.
// A template query (SQL), OrderBy, Top, Select, a scope (Partition or CrossPartition: the condition
// carries no scope, so a scoped filter would silently widen) or a recorded builder error is a
// *cosmoserr.ValidationError (cosmoserr.ErrInvalidQuery).
func (r *Repository[T]) Condition(q *Query) (string, []azcosmos.QueryParameter, error) {
	if q == nil {
		return "", nil, invalid(cosmoserr.ErrInvalidQuery, "query", "is nil")
	}
	if q.err != nil {
		return "", nil, q.err
	}
	if !q.built {
		return "", nil, invalid(cosmoserr.ErrInvalidQuery, "query", "a filter must come from NewQuery().Where(...), not SQL")
	}
	if len(q.orders) > 0 || q.top > 0 || len(q.fields) > 0 {
		return "", nil, invalid(cosmoserr.ErrInvalidQuery, "query", "a filter may only use Where (no OrderBy, Top or Select)")
	}
	if q.hasPK || q.cross {
		return "", nil, invalid(cosmoserr.ErrInvalidQuery, "query", "a filter carries no scope (no Partition or CrossPartition): scope the search itself")
	}
	rq := q.build(r.typeName, r.untyped, r.version, nil, true)
	_, where, _ := strings.Cut(rq.text, " FROM c WHERE ")
	return where, rq.params, nil
}

// Decode checks a document's type and schema version and decodes it into a T, running the
// registered upgrades of an older version, as Get does for a stored document.
func (r *Repository[T]) Decode(doc []byte) (T, error) {
	v, _, err := decode[T](&r.core, doc)
	return v, err
}
