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
func (c *core) queryPager(q *Query, text string, pk azcosmos.PartitionKey, opts *azcosmos.QueryOptions) *runtime.Pager[azcosmos.QueryItemsResponse] {
	if q.cross && !q.hasPK {
		return c.xq.NewQueryItemsPager(text, opts)
	}
	return c.c.NewQueryItemsPager(text, pk, opts)
}

// queryError maps a query page's error: a token the engine refuses is cosmoserr.ErrInvalidToken, a query it
// cannot run across partitions cosmoserr.ErrInvalidQuery (both still match the crosspartition sentinels),
// a service error the typed *OpError.
func (c *core) queryError(err error) error {
	switch {
	case errors.Is(err, cosmoserr.ErrInvalidToken), errors.Is(err, cosmoserr.ErrNotResumable):
		return &crossError{cosmoserr.ValidationError{Kind: cosmoserr.ErrInvalidToken, Field: "token", Reason: err.Error()}, err}
	case errors.Is(err, cosmoserr.ErrUnsupported):
		return &crossError{cosmoserr.ValidationError{Kind: cosmoserr.ErrInvalidQuery, Field: "query", Reason: err.Error()}, err}
	}
	return c.opError(cosmoserr.OpQueryItems, "", err)
}

// crossError is a cosmoserr.ValidationError that also unwraps to the crosspartition error behind it.
type crossError struct {
	cosmoserr.ValidationError
	cause error
}

func (e *crossError) Unwrap() []error { return []error{&e.ValidationError, e.cause} }
