package cosmostest

import (
	"cmp"
	"container/heap"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Change feed request headers (rest_protocol §9).
const (
	hdrAIM             = wire.HeaderAIM
	hdrIfNoneMatch     = "If-None-Match"
	hdrIfModifiedSince = "If-Modified-Since"
	// aimIncremental is the latest-version mode, the only one the Go SDK v1.5.0 reads.
	aimIncremental = "incremental feed"
)

// Change feed charges, on top of ru.go: a page costs like a query page over the documents it
// returns; a 304 costs ruChangeFeedEmpty.
const (
	ruChangeFeedEmpty = 1.0
	// changeFeedDefaultPage is the service's default x-ms-max-item-count for the change feed.
	changeFeedDefaultPage = 100
	// changeFeedMaxPageBytes is the service's response size limit (4 MB), which ends a page early.
	changeFeedMaxPageBytes = 4 << 20
)

// changeFeed serves GET …/docs with A-IM: Incremental Feed, the latest-version change feed of one
// physical partition (x-ms-documentdb-partitionkeyrangeid):
//
//   - If-None-Match "<lsn>" (the etag of a previous answer) continues after that LSN; absent means
//     from the beginning, * means from now. It wins over If-Modified-Since, which (RFC 1123, as the
//     SDK writes it with zone "UTC"; http.TimeFormat also accepted) starts at the first change
//     whose _ts is at or after that time.
//   - x-ms-max-item-count bounds the page (default 100), and so does the 4 MB response limit;
//     x-ms-documentdb-partitionkey restricts it to one logical partition (or a hierarchical
//     prefix).
//   - Live documents whose last write is after the start, each once in its latest version, in _lsn
//     order, with _lsn added; deletes and TTL-expired items are not shown.
//   - 200 with etag "<lsn>" (the last returned change when the page is full, else the range's
//     current LSN) or 304 with the etag to continue from when nothing is new.
//
// Errors: 400 for a malformed If-None-Match or If-Modified-Since, for another A-IM mode (not
// implemented), and for a request naming neither a range nor a partition key on a container with
// several ranges; 410/1002 for a range id that does not exist (split away).
func (srv *server) changeFeed(rq *request, c *container) error {
	if mode := strings.ToLower(strings.TrimSpace(rq.hdr(hdrAIM))); mode != aimIncremental {
		return unsupported("the change feed mode A-IM: " + rq.hdr(hdrAIM) + " (only Incremental Feed, latest version)")
	}
	pk, err := feedPartitionKey(rq, c)
	if err != nil {
		return err
	}
	var r *pkRange
	switch id := rq.hdr(hdrPKRangeID); {
	case id != "":
		if r = c.rangeByID(id); r == nil {
			return newError(http.StatusGone, subPartitionKeyGone, "The partition key range %s is gone (split or merged).", id)
		}
	case len(c.ranges) == 1:
		r = c.ranges[0]
	case pk != nil && len(pk) == len(c.pk.Paths):
		r = c.rangeFor(pk)
	default:
		return badRequest("cosmostest: a change feed request on a container with several partition key ranges needs the x-ms-documentdb-partitionkeyrangeid header or a full partition key.")
	}
	rq.PKRangeID = r.id
	rq.session = r.sessionToken()
	after, since, err := changeFeedStart(rq.hdr(hdrIfNoneMatch), rq.hdr(hdrIfModifiedSince), r.lsn)
	if err != nil {
		return err
	}
	if err := srv.admit(rq, c, r); err != nil {
		return err
	}

	limit, err := maxItemCount(rq)
	if err != nil {
		return err
	}
	if limit <= 0 {
		limit = changeFeedDefaultPage
	}
	now := srv.now().Unix()
	// Keep the `limit` changes with the lowest LSNs in a max-heap: a page costs O(n log limit).
	page := make(lsnHeap, 0, min(limit, len(r.items)))
	matched := 0
	for key, it := range r.items {
		if c.expired(it, now) {
			delete(r.items, key)
			continue
		}
		if it.lsn <= after || (since != nil && it.ts < since.Unix()) {
			continue
		}
		if pk != nil && !samePK(it.pk[:len(pk)], pk) {
			continue
		}
		matched++
		switch {
		case len(page) < limit:
			heap.Push(&page, it)
		case it.lsn < page[0].lsn:
			page[0] = it
			heap.Fix(&page, 0)
		}
	}
	changed := []*item(page)
	slices.SortFunc(changed, func(a, b *item) int { return cmp.Compare(a.lsn, b.lsn) })
	// A page also ends before the change that would take it past the service's 4 MB response
	// limit (it always holds at least one change).
	docs := make([]json.RawMessage, 0, len(changed))
	size := 0
	for _, it := range changed {
		b := withLSN(it.raw, it.lsn)
		if len(docs) > 0 && size+len(b) > changeFeedMaxPageBytes {
			break
		}
		docs = append(docs, b)
		size += len(b)
	}
	cut := len(docs) < len(changed)
	changed = changed[:len(docs)]
	// Without a cut, everything up to the range's LSN has been looked at.
	next := r.lsn
	if matched > limit || cut {
		next = changed[len(changed)-1].lsn
	}
	if next < after {
		next = after // never move a continuation backwards
	}
	etag := `"` + strconv.FormatInt(next, 10) + `"`
	rq.header.Set("etag", etag)
	rq.header.Set(wire.HeaderLSN, strconv.FormatInt(r.lsn, 10))
	rq.header.Set(hdrItemCount, strconv.Itoa(len(changed)))
	if len(changed) == 0 {
		rq.charge = ruChangeFeedEmpty
		rq.reply(http.StatusNotModified, nil)
		return nil
	}
	rq.charge = ruQuery(1, len(changed), size)
	rq.reply(http.StatusOK, feedBody(c.rid, docs))
	return nil
}

// lsnHeap is a max-heap of items by LSN.
type lsnHeap []*item

func (h lsnHeap) Len() int           { return len(h) }
func (h lsnHeap) Less(i, j int) bool { return h[i].lsn > h[j].lsn }
func (h lsnHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *lsnHeap) Push(x any)        { *h = append(*h, x.(*item)) }
func (h *lsnHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// changeFeedStart reads where a change feed request starts, from its If-None-Match (inm) and
// If-Modified-Since (ims) headers: after LSN `after` (current is the range's LSN, for *), and,
// when since is not nil, at changes whose _ts is at or after it. Errors are 400.
func changeFeedStart(inm, ims string, current int64) (after int64, since *time.Time, err error) {
	if inm = strings.TrimSpace(inm); inm != "" {
		if inm == "*" {
			return current, nil, nil
		}
		lsn, perr := strconv.ParseInt(strings.Trim(inm, `"`), 10, 64)
		if perr != nil || lsn < 0 {
			return 0, nil, badRequest("The change feed continuation (If-None-Match) %q is not valid: it must be an etag returned by a previous change feed response, or *.", inm)
		}
		return lsn, nil, nil
	}
	if ims = strings.TrimSpace(ims); ims != "" {
		t, perr := time.Parse(time.RFC1123, ims)
		if perr != nil {
			if t, perr = http.ParseTime(ims); perr != nil {
				return 0, nil, badRequest("The If-Modified-Since header %q is not a valid RFC 1123 date.", ims)
			}
		}
		return 0, &t, nil
	}
	return 0, nil, nil
}
