package crosspartition

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/tokenmac"
)

// Defaults of Options.
const (
	DefaultMaxConcurrency       = 8
	DefaultPageSize             = 100
	DefaultMaxNonStreamingItems = 50_000
	defaultMaxTokenHashes       = 1 << 16
	maxBackendPageSize          = 1000
)

// Options configure a Container. The zero value is the documented defaults; Container.Options
// returns the options in effect.
type Options struct {
	// MaxConcurrency is how many partition key ranges are read at the same time.
	// Default DefaultMaxConcurrency (8).
	MaxConcurrency int
	// MaxNonStreamingItems caps TOP (or OFFSET + LIMIT) of a non-streaming ORDER BY
	// (ORDER BY VectorDistance), whose candidates are buffered in memory. Default
	// DefaultMaxNonStreamingItems (50,000), as the other SDKs.
	MaxNonStreamingItems int
	// TokenSigningKey keys the MAC of continuation tokens (HMAC-SHA256): a secret of at least
	// 32 bytes (to be refused by New once it returns an error; repository.New refuses it), the same on every instance of a service so
	// that tokens work behind a load balancer. With it nobody without the key can forge or alter a
	// token. Default nil: a token is still bound to the account, database, container, query and
	// parameter values and covers every byte (truncated or altered: ErrInvalidToken, nothing
	// sent), but the MAC key is public, so an end user can craft token positions; what such a
	// token costs is still bounded by the container's physical partitions (at most one request per
	// partition key range per page).
	TokenSigningKey []byte
}

func (o Options) withDefaults() Options {
	if o.MaxConcurrency <= 0 {
		o.MaxConcurrency = DefaultMaxConcurrency
	}
	if o.MaxNonStreamingItems <= 0 {
		o.MaxNonStreamingItems = DefaultMaxNonStreamingItems
	}
	o.TokenSigningKey = slices.Clone(o.TokenSigningKey)
	return o
}

// Container runs cross-partition queries on one container. It is safe for concurrent use and
// caches the container's partition key ranges; create one per container and keep it.
type Container struct {
	c        *azcosmos.ContainerClient
	opts     Options
	identity []byte // account, database and container, for token bindings
	rc       rangeCache
	pc       planCache
	// observe, set only by tests, sees the ORDER BY values of every row returned.
	observe func(keys []any, out []byte)
}

// New returns a Container running cross-partition queries on c. Requests go through c's own
// pipeline, so its credentials, retries (cosmoskit's 429 and breaker policies when c comes from
// cosmoskit) and diagnostics apply to every request. o may be nil.
func New(c *azcosmos.ContainerClient, o *Options) *Container {
	var opts Options
	if o != nil {
		opts = *o
	}
	return &Container{c: c, opts: opts.withDefaults(), identity: tokenmac.Identity(c)}
}

// Options returns the options in effect (defaults filled in).
func (c *Container) Options() Options { return c.opts }

// NewQueryItemsPager runs query across every partition the query's plan targets, like
// azcosmos's ContainerClient.NewQueryItemsPager with an empty partition key, but with ORDER BY,
// TOP, OFFSET/LIMIT, DISTINCT, aggregates and GROUP BY merged on the client from the service's
// query plan. From o it uses QueryParameters, PageSizeHint (items per page, default 100, at most
// 1000), ContinuationToken (a token of this package, for this query and parameters),
// SessionToken, ConsistencyLevel, PriorityLevel, ThroughputBucket, EnableScanInQuery and
// DedicatedGatewayRequestOptions; every page's ContinuationToken is this package's own opaque,
// URL-safe token (nil on the last page). A page is never empty unless the query has no (more)
// results. RequestCharge of a page is the sum over the requests it made; RawResponse, ActivityID,
// QueryMetrics and Diagnostics are empty (a page is made of several responses: see the span).
// Range targeting travels as policy.WithHTTPHeader in the request context, so headers the caller
// put in ctx that way are not sent with the per-range requests (set them on the client instead).
// A service error is a *cosmoserr.Error for query_items (errors.Is(err, cosmoserr.ErrNotFound)
// and errors.As to *azcore.ResponseError work); a refused token or query is this package's own
// typed error.
func (c *Container) NewQueryItemsPager(query string, o *azcosmos.QueryOptions) *runtime.Pager[azcosmos.QueryItemsResponse] {
	var opts azcosmos.QueryOptions
	if o != nil {
		opts = *o
	}
	var ex *execution
	return runtime.NewPager(runtime.PagingHandler[azcosmos.QueryItemsResponse]{
		More: func(p azcosmos.QueryItemsResponse) bool { return p.ContinuationToken != nil },
		Fetcher: func(ctx context.Context, prev *azcosmos.QueryItemsResponse) (azcosmos.QueryItemsResponse, error) {
			if ex == nil {
				var err error
				ex, err = c.start(ctx, query, &opts)
				if err != nil {
					return azcosmos.QueryItemsResponse{}, serviceError(err)
				}
			}
			resp, err := ex.nextPage(ctx)
			return resp, serviceError(err)
		},
	})
}

// serviceError returns a service error (an *azcore.ResponseError from any request the query made:
// plan, routing map or a range's page) as a *cosmoserr.Error for query_items, the one error model
// of cosmoskit; it still unwraps to the *azcore.ResponseError. The package's own errors
// (TokenError, UnsupportedError, ...), cancellation and transport errors are returned unchanged.
func serviceError(err error) error {
	var re *azcore.ResponseError
	if err == nil || !errors.As(err, &re) {
		return err
	}
	return cosmoserr.FromError(cosmoserr.OpQueryItems, err)
}

// page sends one query request through the container's pipeline: the SDK's query pager, one page.
// Range targeting and plan-request headers travel in ctx (policy.WithHTTPHeader).
func (c *Container) page(ctx context.Context, query string, params []azcosmos.QueryParameter, cont string, maxItems int, base *azcosmos.QueryOptions) (azcosmos.QueryItemsResponse, error) {
	o := azcosmos.QueryOptions{QueryParameters: params, PageSizeHint: int32(maxItems)}
	if base != nil {
		o.SessionToken = base.SessionToken
		o.ConsistencyLevel = base.ConsistencyLevel
		o.PriorityLevel = base.PriorityLevel
		o.ThroughputBucket = base.ThroughputBucket
		o.EnableScanInQuery = base.EnableScanInQuery
		o.DedicatedGatewayRequestOptions = base.DedicatedGatewayRequestOptions
	}
	if cont != "" {
		o.ContinuationToken = &cont
	}
	pager := c.c.NewQueryItemsPager(query, azcosmos.NewPartitionKey(), &o)
	return pager.NextPage(ctx)
}

// inRange returns ctx with the header that targets partition key range id.
func inRange(ctx context.Context, id string) context.Context {
	return policy.WithHTTPHeader(ctx, http.Header{http.CanonicalHeaderKey(hdrPKRangeID): {id}})
}

// pageSize validates PageSizeHint.
func pageSize(o *azcosmos.QueryOptions) (int, error) {
	switch n := o.PageSizeHint; {
	case n == 0 || n == -1:
		return DefaultPageSize, nil
	case n < -1:
		return 0, fmt.Errorf("crosspartition: PageSizeHint %d: must be -1, 0 or positive", n)
	default:
		return min(int(n), maxBackendPageSize), nil
	}
}
