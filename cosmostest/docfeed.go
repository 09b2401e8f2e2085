package cosmostest

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// defaultDocFeedPage is the page size of the document feed without x-ms-max-item-count (the
// service's default for feeds).
const defaultDocFeedPage = 100

// docFeedPrefix marks the document feed's continuation tokens.
const docFeedPrefix = "docs:"

// readDocFeed serves the document feed, GET …/docs without A-IM (List Documents, a read feed
// without a query): the live documents of the container, of one logical partition
// (x-ms-documentdb-partitionkey, or a prefix of a hierarchical key) or of one physical partition
// (x-ms-documentdb-partitionkeyrangeid; a range that split is 410/1002), paged by
// x-ms-max-item-count with x-ms-continuation. Documents come in creation (_rid) order; the
// continuation is the place of the last document served in that order, so a page after a split
// or after writes neither repeats nor skips a document that existed when the feed started
// (documents created meanwhile come at the end, updates keep their place).
func (srv *server) readDocFeed(rq *request, c *container) error {
	pk, err := feedPartitionKey(rq, c)
	if err != nil {
		return err
	}
	ranges := c.ranges
	switch {
	case rq.PKRangeID != "":
		r := c.rangeByID(rq.PKRangeID)
		if r == nil {
			return newError(http.StatusGone, subPartitionKeyGone, "The partition key range %s is gone (split or merged).", rq.PKRangeID)
		}
		ranges = []*pkRange{r}
	case pk != nil && len(pk) == len(c.pk.Paths):
		ranges = []*pkRange{c.rangeFor(pk)}
	case pk != nil:
		ranges = c.prefixRanges(pk)
	}
	limit, err := maxItemCount(rq)
	if err != nil {
		return err
	}
	if limit <= 0 {
		limit = defaultDocFeedPage
	}
	var after uint64
	if tok := rq.hdr(hdrContinuation); tok != "" {
		n, perr := strconv.ParseUint(strings.TrimPrefix(tok, docFeedPrefix), 10, 64)
		if perr != nil || !strings.HasPrefix(tok, docFeedPrefix) {
			return badRequest("Invalid Continuation Token: %q is not a continuation this document feed returned.", tok)
		}
		after = n
	}
	for _, r := range ranges {
		if err := srv.admit(rq, c, r); err != nil {
			return err
		}
	}
	if len(ranges) == 1 {
		rq.PKRangeID = ranges[0].id
		rq.session = ranges[0].sessionToken()
	}
	var its []*item
	for _, r := range ranges {
		for key, it := range r.items {
			if it.seq <= after || (pk != nil && !hasPrefix(it.pk, pk)) {
				continue
			}
			if srv.lookup(c, r, key) != nil {
				its = append(its, it)
			}
		}
	}
	slices.SortFunc(its, func(a, b *item) int { return cmp.Compare(a.seq, b.seq) })
	more := len(its) > limit
	if more {
		its = its[:limit]
	}
	size := 0
	docs := make([]json.RawMessage, len(its))
	for i, it := range its {
		docs[i] = it.body()
		size += it.size
	}
	if more {
		rq.header.Set(hdrContinuation, docFeedPrefix+strconv.FormatUint(its[len(its)-1].seq, 10))
	}
	rq.header.Set(hdrItemCount, strconv.Itoa(len(its)))
	rq.charge = ruQuery(1, len(its), size)
	rq.reply(http.StatusOK, feedBody(c.rid, docs))
	return nil
}

// hasPrefix reports whether the partition key values pk start with prefix.
func hasPrefix(pk, prefix []any) bool {
	return len(pk) >= len(prefix) && samePK(pk[:len(prefix)], prefix)
}
