package cosmostest

import (
	"fmt"
	"strconv"
	"time"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Throughput buckets: a container's offer may divide its throughput into buckets (1 to 5), each
// with the most of it that requests naming the bucket (x-ms-cosmos-throughput-bucket) may spend:
// "throughputBuckets": [{"id": 1, "maxThroughputPercentage": 20}] in the offer's content (the
// shape is this server's; the service's offer field is unverified). With throughput limits, a
// request naming a configured bucket is admitted while its partition has budget and the bucket has
// spent less than its share of the partition's budget in the current second; otherwise it is
// refused with the partition's 429/3200. A request naming no bucket, or one the offer does not
// configure, is limited by the partition's budget only. Bulk requests' mid-request throttling
// (bulk.go) counts the partition's budget only.

// tbucketKey is a partition's spending for one throughput bucket.
type tbucketKey struct {
	r *pkRange
	n int
}

// throughputBucketOf is the request's x-ms-cosmos-throughput-bucket, 0 when absent or not 1..5.
func throughputBucketOf(rq *request) int {
	n, err := strconv.Atoi(rq.hdr(wire.HeaderThroughputBucket))
	if err != nil || n < 1 || n > 5 {
		return 0
	}
	return n
}

// bucketShare is the fraction of c's throughput bucket n may spend, 0 when not configured.
func bucketShare(c *container, n int) float64 {
	if c.offer == nil || n == 0 {
		return 0
	}
	list, _ := c.offer.content["throughputBuckets"].([]any)
	for _, b := range list {
		if m, ok := b.(map[string]any); ok && int(number(m["id"])) == n {
			return number(m["maxThroughputPercentage"]) / 100
		}
	}
	return 0
}

// admitBucket checks the request's throughput bucket on partition r; it returns false and the
// wait (ms) when the bucket's share of this second's budget is spent. Callers hold srv.mu.
func (srv *server) admitBucket(rq *request, c *container, r *pkRange, now time.Time, budget float64) (bool, int64) {
	n := throughputBucketOf(rq)
	share := bucketShare(c, n)
	if share <= 0 {
		return true, 0
	}
	if srv.tput.tbuckets == nil {
		srv.tput.tbuckets = map[tbucketKey]*ruBucket{}
	}
	k := tbucketKey{r, n}
	b := srv.tput.tbuckets[k]
	sec := now.Unix()
	if b == nil {
		b = &ruBucket{sec: sec}
		srv.tput.tbuckets[k] = b
	}
	limit := budget * share
	if sec > b.sec {
		b.spent = max(b.spent-float64(sec-b.sec)*limit, 0)
		b.sec = sec
	}
	if b.spent < limit {
		return true, 0
	}
	return false, b.retryAfterMs(limit, now)
}

// SetThroughputBuckets configures the throughput buckets of a container with its own offer. It
// maps a bucket id (1 to 5) to the most of the container's throughput, in percent (1 to 100), that
// requests naming the bucket may spend; an empty map removes them. Enforced with throughput
// limits (WithThroughputLimits). Errors: unknown database or container, a container without an
// offer of its own, an id or percentage out of range.
func (s *Server) SetThroughputBuckets(database, container string, maxPercent map[int]int) error {
	srv := s.s
	srv.mu.Lock()
	defer srv.mu.Unlock()
	c, err := srv.container(database, container)
	if err != nil {
		return fmt.Errorf("cosmostest: SetThroughputBuckets: %s", asStatus(err).message)
	}
	if c.offer == nil {
		return fmt.Errorf("cosmostest: SetThroughputBuckets: container %s/%s has no throughput of its own", database, container)
	}
	list := make([]any, 0, len(maxPercent))
	for id := 1; id <= 5; id++ {
		pct, ok := maxPercent[id]
		if !ok {
			continue
		}
		if pct < 1 || pct > 100 {
			return fmt.Errorf("cosmostest: SetThroughputBuckets: bucket %d: %d%% is outside 1 to 100", id, pct)
		}
		list = append(list, map[string]any{"id": float64(id), "maxThroughputPercentage": float64(pct)})
	}
	if len(list) != len(maxPercent) {
		return fmt.Errorf("cosmostest: SetThroughputBuckets: bucket ids are 1 to 5")
	}
	if len(list) == 0 {
		delete(c.offer.content, "throughputBuckets")
	} else {
		c.offer.content["throughputBuckets"] = list
	}
	clear(srv.tput.tbuckets) // the new shares apply from now
	return nil
}
