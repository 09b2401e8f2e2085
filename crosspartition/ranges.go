package crosspartition

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/internal/epk"
	"github.com/cosmoskit/cosmoskit-go/internal/feedrange"
	"golang.org/x/sync/errgroup"
)

// pkRange is one physical partition: its id and EPK range [min, max).
type pkRange struct {
	ID, Min, Max string
}

func (r pkRange) feedRange() azcosmos.FeedRange {
	return azcosmos.FeedRange{MinInclusive: r.Min, MaxExclusive: r.Max}
}

// isEnd reports an open upper bound ("" or "FF").
func isEnd(s string) bool { return s == "" || s == epk.MaxEPK }

// overlaps reports whether the partition key range r, [Min, Max), overlaps the plan's query range q.
// A q with Min == Max, both inclusive, is an EPK point: only the range containing it overlaps; the
// service's plans use the point ["", ""] for a query that reads no document (SELECT 5, WHERE false),
// to be sent once, to the first range.
func (r pkRange) overlaps(q queryRange) bool {
	if q.Min == q.Max && q.IsMinInclusive && q.IsMaxInclusive {
		return epk.Compare(r.Min, q.Min) <= 0 && (isEnd(r.Max) || epk.Compare(q.Min, r.Max) < 0)
	}
	if !isEnd(q.Max) {
		if c := epk.Compare(q.Max, r.Min); c < 0 || c == 0 && !q.IsMaxInclusive {
			return false
		}
	}
	if !isEnd(r.Max) && q.Min != "" && epk.Compare(q.Min, r.Max) >= 0 {
		return false
	}
	return true
}

// rangeCache holds a container's partition key ranges with their ids.
//
// azcosmos v1.5.0 reads the container's pkranges feed (signed, through the client's pipeline) and
// caches it, but exposes only the EPK bounds (ReadFeedRanges), not the range ids a query must name
// in x-ms-documentdb-partitionkeyrangeid. The SDK resolves a FeedRange to its id when it reads the
// change feed of that range, so the id is learnt from that request, captured with
// policy.WithCaptureResponse: one change-feed read from "now" (no documents, about 1 RU) per range,
// once per routing-map change. No reflection into the SDK and no second signing implementation.
// After a 410/1002, a change-feed read of the gone range makes the SDK refresh its own pkranges
// cache (as it does for its change feed), and the ranges are read again.
type rangeCache struct {
	mu     sync.Mutex
	ranges []pkRange // sorted by Min
	loaded bool
}

func (c *Container) routingMap(ctx context.Context) ([]pkRange, error) {
	c.rc.mu.Lock()
	defer c.rc.mu.Unlock()
	if c.rc.loaded {
		return c.rc.ranges, nil
	}
	rs, err := c.loadRanges(ctx, c.rc.ranges)
	if err != nil {
		return nil, err
	}
	c.rc.ranges, c.rc.loaded = rs, true
	return rs, nil
}

// refreshRanges re-reads the ranges after gone (a range the service reported gone) and returns them.
func (c *Container) refreshRanges(ctx context.Context, gone pkRange) ([]pkRange, error) {
	c.rc.mu.Lock()
	defer c.rc.mu.Unlock()
	if c.rc.loaded && !slices.Contains(c.rc.ranges, gone) {
		return c.rc.ranges, nil // another query refreshed them already
	}
	// Reading the gone range's change feed makes the SDK see the 410 and refresh its cache.
	now := time.Now().Add(time.Minute)
	fr := gone.feedRange()
	if _, err := c.c.ReadChangeFeed(ctx, &azcosmos.ChangeFeedOptions{FeedRange: &fr, StartFrom: &now, MaxItemCount: 1}); err != nil && !isGone(err) {
		return nil, err
	}
	rs, err := c.loadRanges(ctx, c.rc.ranges)
	if err != nil {
		return nil, err
	}
	if slices.Contains(rs, gone) {
		return nil, &PlanError{Reason: "partition key range " + gone.ID + " is gone but the SDK's routing map still lists it"}
	}
	c.rc.ranges, c.rc.loaded = rs, true
	return rs, nil
}

// loadRanges reads the ranges, reusing the ids of known ranges with the same bounds.
func (c *Container) loadRanges(ctx context.Context, known []pkRange) ([]pkRange, error) {
	frs, err := c.c.ReadFeedRanges(ctx, nil)
	if err != nil {
		return nil, err
	}
	out := make([]pkRange, len(frs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.opts.MaxConcurrency)
	for i, fr := range frs {
		out[i] = pkRange{Min: fr.MinInclusive, Max: fr.MaxExclusive}
		if j := slices.IndexFunc(known, func(k pkRange) bool { return k.Min == fr.MinInclusive && k.Max == fr.MaxExclusive }); j >= 0 {
			out[i].ID = known[j].ID
			continue
		}
		g.Go(func() error {
			id, err := c.rangeID(gctx, fr)
			out[i].ID = id
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b pkRange) int { return epk.Compare(a.Min, b.Min) })
	return out, nil
}

// rangeID learns the id of the range with exactly the bounds fr (see rangeCache).
func (c *Container) rangeID(ctx context.Context, fr azcosmos.FeedRange) (string, error) {
	id, err := feedrange.ID(ctx, c.c, fr)
	if feedrange.IsNoID(err) {
		return "", &PlanError{Reason: "cannot learn the id of partition key range [" + fr.MinInclusive + ", " + fr.MaxExclusive + ")"}
	}
	return id, err
}

// isGone reports a 410 whose sub-status says the range is gone (split, merge, migration).
func isGone(err error) bool {
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusGone || re.RawResponse == nil {
		return false
	}
	switch sub, _ := strconv.Atoi(re.RawResponse.Header.Get(hdrSubStatus)); sub {
	case subPartitionKeyGone, subCompletingSplit, subCompletingMigration:
		return true
	}
	return false
}

// targets returns the ranges overlapping any of the plan's query ranges, in EPK order.
func targets(all []pkRange, qrs []queryRange) []pkRange {
	var out []pkRange
	for _, r := range all {
		if slices.ContainsFunc(qrs, r.overlaps) {
			out = append(out, r)
		}
	}
	return out
}
