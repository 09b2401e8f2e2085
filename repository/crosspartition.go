package repository

import (
	"errors"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// queryPager returns the pager of one query page: the SDK's for a query scoped to a partition key
// (a single request to the gateway, as always), and the crosspartition engine's for a
// CrossPartition query without one, so that ORDER BY, TOP, Count and DISTINCT work across
// physical partitions. Both continuation tokens travel inside the repository's own page token.
//
// A prefix of a hierarchical key (prefix set) runs through the engine too, over the ranges holding
// the prefix: on the service a large tenant spans several physical partitions, and the gateway
// answers a query with ORDER BY, TOP, aggregates, DISTINCT or GROUP BY on such a prefix with a
// 400/1004 when it is sent as one single-partition query.
func (c *core) queryPager(q *Query, text string, pk azcosmos.PartitionKey, prefix bool, opts *azcosmos.QueryOptions) *runtime.Pager[azcosmos.QueryItemsResponse] {
	switch {
	case q.cross && !q.hasPK:
		return c.xq.NewQueryItemsPager(text, opts)
	case prefix:
		return c.xq.NewPrefixQueryItemsPager(text, pk, opts)
	}
	return c.c.NewQueryItemsPager(text, pk, opts)
}

// queryError maps a query page's error: a token the engine refuses is cosmoserr.ErrInvalidToken, a query it
// cannot run across partitions cosmoserr.ErrInvalidQuery (both still match the crosspartition sentinels),
// a service error the typed *OpError.
func (c *core) queryError(err error) error {
	var ve *cosmoserr.ValidationError
	switch {
	case errors.As(err, &ve):
		return err // crosspartition's refusal of a token or an option: already the one refusal type
	case errors.Is(err, cosmoserr.ErrNotResumable):
		return &cosmoserr.ValidationError{Kind: cosmoserr.ErrInvalidToken, Field: "token", Reason: "this query's results cannot resume from a token", Err: err}
	case errors.Is(err, cosmoserr.ErrUnsupported):
		return &cosmoserr.ValidationError{Kind: cosmoserr.ErrInvalidQuery, Field: "query", Reason: "cannot be answered across partitions", Err: err}
	}
	return c.opError(cosmoserr.OpQueryItems, "", err)
}
