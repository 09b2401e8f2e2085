package crosspartition

import (
	"context"
	"errors"
	"log/slog"
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
	// MaxConcurrency is how many partition key ranges are read at the same time. Default (0):
	// DefaultMaxConcurrency (8); negative is refused.
	MaxConcurrency int
	// MaxNonStreamingItems caps TOP (or OFFSET + LIMIT) of a non-streaming ORDER BY
	// (ORDER BY VectorDistance), whose candidates are buffered in memory. Default (0):
	// DefaultMaxNonStreamingItems (50,000), as the other SDKs; negative is refused.
	MaxNonStreamingItems int
	// Logger receives one Debug record per page read across partitions (container, items,
	// request charge, whether more follow; never a query or its parameters). Default (nil):
	// slog.Default(), however the handle was made (pass cosmoskit.Client.Logger() for the client's).
	Logger *slog.Logger
	// TokenSigningKey keys the MAC of continuation tokens (HMAC-SHA256): a secret of at least
	// 32 bytes (New refuses a shorter one), the same on every instance of a service so that
	// tokens work behind a load balancer. With it nobody without the key can forge or alter a
	// token. Default nil: a token is still bound to the account, database, container, query and
	// parameter values and covers every byte (truncated or altered: cosmoserr.ErrInvalidToken, nothing
	// sent), but the MAC key is public, so an end user can craft token positions; such a token
	// costs no more than a legitimate resume of the same query with the same options (see the
	// package doc: page sizes from the options, positions within one page, a page that would drop
	// more rows on the token's word refused).
	TokenSigningKey []byte
}

// validate refuses values that are neither the zero default nor usable.
func (o Options) validate() error {
	if o.MaxConcurrency < 0 {
		return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "Options.MaxConcurrency", Reason: "must not be negative (0 means the default, 8)"}
	}
	if o.MaxNonStreamingItems < 0 {
		return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "Options.MaxNonStreamingItems", Reason: "must not be negative (0 means the default, 50,000)"}
	}
	if o.TokenSigningKey != nil && len(o.TokenSigningKey) < 32 {
		return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "Options.TokenSigningKey", Reason: "must be at least 32 bytes (or nil for the public key)"}
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.MaxConcurrency == 0 {
		o.MaxConcurrency = DefaultMaxConcurrency
	}
	if o.MaxNonStreamingItems == 0 {
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
// cosmoskit) and diagnostics apply to every request. It sends no request. Errors: a
// *cosmoserr.ValidationError (matching cosmoserr.ErrValidation) for a nil c or a negative option.
func New(c *azcosmos.ContainerClient, o Options) (*Container, error) {
	if c == nil {
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "container", Reason: "is nil"}
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Container{c: c, opts: o, identity: tokenmac.Identity(c)}, nil
}

// Options returns the options in effect (defaults filled in).
func (c *Container) Options() Options {
	o := c.opts
	o.TokenSigningKey = nil // a secret: never read back (nor printed with the options)
	return o
}

// NewQueryItemsPager runs query across every partition the query's plan targets, merging ORDER BY,
// TOP, OFFSET/LIMIT, DISTINCT, aggregates and GROUP BY on the client.
//
// It is like azcosmos's ContainerClient.NewQueryItemsPager with an empty partition key, but with
// the merging done from the service's query plan. From o it uses QueryParameters, PageSizeHint
// (items per page, default 100, at most 1000), ContinuationToken (a token of this package, for this
// query and parameters), SessionToken, ConsistencyLevel, PriorityLevel, ThroughputBucket,
// EnableScanInQuery and DedicatedGatewayRequestOptions; every page's ContinuationToken is this
// package's own opaque, URL-safe token (nil on the last page). A page is never empty unless the
// query has no (more) results. RequestCharge of a page is the sum over the requests it made;
// RawResponse, ActivityID, QueryMetrics and Diagnostics are empty (a page is made of several
// responses: see the span). Range targeting travels as policy.WithHTTPHeader in the request
// context, so headers the caller put in ctx that way are not sent with the per-range requests (set
// them on the client instead). A service error is a *cosmoserr.Error for query_items
// (errors.Is(err, cosmoserr.ErrNotFound) and errors.As to *azcore.ResponseError work); a refused
// token or PageSizeHint is a *cosmoserr.ValidationError (Kind cosmoserr.ErrInvalidToken for a
// token), a query this package cannot answer an *UnsupportedError.
func (c *Container) NewQueryItemsPager(query string, o *azcosmos.QueryOptions) *runtime.Pager[azcosmos.QueryItemsResponse] {
	return c.newPager(query, nil, o)
}

// NewPrefixQueryItemsPager is NewQueryItemsPager over the logical partitions whose hierarchical
// partition key starts with prefix (its first components).
//
// The plan request and every per-range request carry prefix as the partition key header, so the
// plan's queryRanges are the ranges holding the prefix and each range answers only its documents
// under the prefix. A tenant that spans several physical partitions is then merged like any
// cross-partition query (the gateway answers such a query with ORDER BY, TOP, aggregates, DISTINCT
// or GROUP BY with a 400/1004 when sent as a single-partition query). Tokens are bound to the
// prefix.
func (c *Container) NewPrefixQueryItemsPager(query string, prefix azcosmos.PartitionKey, o *azcosmos.QueryOptions) *runtime.Pager[azcosmos.QueryItemsResponse] {
	return c.newPager(query, &prefix, o)
}

func (c *Container) newPager(query string, prefix *azcosmos.PartitionKey, o *azcosmos.QueryOptions) *runtime.Pager[azcosmos.QueryItemsResponse] {
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
				ex, err = c.start(ctx, query, prefix, &opts)
				if err != nil {
					return azcosmos.QueryItemsResponse{}, serviceError(err)
				}
			}
			resp, err := ex.nextPage(ctx)
			if err == nil && c.opts.Logger.Enabled(ctx, slog.LevelDebug) {
				c.opts.Logger.DebugContext(ctx, "cosmoskit: cross-partition page", "container", c.c.ID(),
					"items", len(resp.Items), "requestCharge", resp.RequestCharge, "more", resp.ContinuationToken != nil)
			}
			return resp, serviceError(err)
		},
	})
}

// serviceError returns a service error (an *azcore.ResponseError from any request the query made:
// plan, routing map or a range's page) as a *cosmoserr.Error for query_items, the one error model
// of cosmoskit; it still unwraps to the *azcore.ResponseError. The package's own errors
// (refusals, UnsupportedError, ...), cancellation and transport errors are returned unchanged.
func serviceError(err error) error {
	var re *azcore.ResponseError
	if err == nil || !errors.As(err, &re) {
		return err
	}
	return cosmoserr.FromError(cosmoserr.OpQueryItems, err)
}

// page sends one query request through the container's pipeline: the SDK's query pager, one page.
// Range targeting and plan-request headers travel in ctx (policy.WithHTTPHeader).
// prefix, if not nil, is sent as the partition key header (NewPrefixQueryItemsPager).
func (c *Container) page(ctx context.Context, prefix *azcosmos.PartitionKey, query string, params []azcosmos.QueryParameter, cont string, maxItems int, base *azcosmos.QueryOptions) (azcosmos.QueryItemsResponse, error) {
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
	pk := azcosmos.NewPartitionKey()
	if prefix != nil {
		pk = *prefix
	}
	pager := c.c.NewQueryItemsPager(query, pk, &o)
	return pager.NextPage(ctx)
}

// inRange returns ctx with the header that targets partition key range id.
func inRange(ctx context.Context, id string) context.Context {
	return policy.WithHTTPHeader(ctx, rangeHeader(id))
}

// rangeHeader is the header that targets partition key range id (read-only once made).
func rangeHeader(id string) http.Header { return http.Header{pkRangeIDKey: {id}} }

// pkRangeIDKey is hdrPKRangeID in canonical form, computed once.
var pkRangeIDKey = http.CanonicalHeaderKey(hdrPKRangeID)

// pageSize validates PageSizeHint.
func pageSize(o *azcosmos.QueryOptions) (int, error) {
	switch n := o.PageSizeHint; {
	case n == 0 || n == -1:
		return DefaultPageSize, nil
	case n < -1:
		return 0, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "QueryOptions.PageSizeHint", Reason: "is negative; use a positive page size, or 0 or -1 for the default"}
	default:
		return min(int(n), maxBackendPageSize), nil
	}
}
