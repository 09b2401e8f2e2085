package retry

import "context"

type excludedKey struct{}
type hedgingKey struct{}

// WithExcludedRegions returns a context that keeps the requests made with it away from the named
// regions, in addition to the policy's client-level excluded regions. Names are compared like the
// SDK does: case and spaces ignored. The effective order is the preferred regions minus every
// excluded one; when that leaves nothing, requests go to the write region. Calling it again
// replaces the request-level list.
func WithExcludedRegions(ctx context.Context, regions ...string) context.Context {
	return context.WithValue(ctx, excludedKey{}, canonicalSet(regions))
}

func excludedFromContext(ctx context.Context) map[string]bool {
	m, _ := ctx.Value(excludedKey{}).(map[string]bool)
	return m
}

// WithHedging returns a context whose reads (and operations run through Hedge) are hedged as h
// says, overriding the policy's Options.Hedging (a zero h turns hedging off for them).
func WithHedging(ctx context.Context, h HedgingOptions) context.Context {
	return context.WithValue(ctx, hedgingKey{}, h)
}

// WithoutHedging returns a context whose requests are never hedged.
func WithoutHedging(ctx context.Context) context.Context {
	return WithHedging(ctx, HedgingOptions{})
}

func hedgingFromContext(ctx context.Context) (HedgingOptions, bool) {
	h, ok := ctx.Value(hedgingKey{}).(HedgingOptions)
	return h, ok
}

type rangeKey struct{}

// WithPartitionKeyRange returns a context whose requests target the physical partition with the
// given partition key range id. The policy sends them with the x-ms-documentdb-partitionkeyrangeid
// header (how the gateway serves a query on one physical partition) and counts their outcomes on
// that range's circuit breaker in each region, so one unhealthy partition does not close a whole
// region. Use it with a cross-partition query (azcosmos.NewPartitionKey()). Requests the SDK itself
// sends with the header (change feed, ReadManyItems) are recognised without it.
func WithPartitionKeyRange(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, rangeKey{}, id)
}

func rangeFromContext(ctx context.Context) string {
	id, _ := ctx.Value(rangeKey{}).(string)
	return id
}
