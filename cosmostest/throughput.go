package cosmostest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Throughput enforcement (WithThroughputLimits), modelled on the service:
//
//   - A container's RU/s is its own offer, or else its database's shared offer divided evenly
//     among the database's containers that have no offer of their own; a container with no offer
//     anywhere is unlimited. Autoscale offers count with their maximum throughput.
//   - The container's RU/s is split evenly across its physical partitions (pkranges), and each
//     partition has a budget of that many RU per second of the server clock (WithClock, Advance).
//   - A request is admitted while its partition has spent less than its budget in the current
//     second; its charge (the ru.go model) is spent after it ran, so the last admitted request may
//     overdraw the budget, and the overdraft is paid off by the following seconds' budgets. A
//     fan-out query spends its charge evenly across the partitions it read.
//   - Otherwise the request is refused before anything changes: 429, x-ms-substatus 3200, the
//     service's "Request rate is large" body, x-ms-request-charge 0 and x-ms-retry-after-ms = the
//     milliseconds until the partition has budget again.
const (
	subRUBudgetExceeded = 3200
	hdrRetryAfterMs     = wire.HeaderRetryAfterMs
	hdrPriority         = wire.HeaderPriorityLevel
	throttleMessage     = `Message: {"Errors":["Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request later. Learn more: http://aka.ms/cosmosdb-error-429"]}`
)

// throughputState is the limiter's state; guarded by server.mu.
type throughputState struct {
	buckets   map[*pkRange]*ruBucket
	tbuckets  map[tbucketKey]*ruBucket // per partition and throughput bucket (bucket.go)
	throttled map[requestKey]int       // requests refused with 429/3200, for Throttled
}

// ruBucket is one partition's spending: spent RU counted against the budget of second sec.
type ruBucket struct {
	sec   int64
	spent float64
}

// throttle is admit with limits on; callers hold srv.mu.
func (srv *server) throttle(rq *request, c *container, r *pkRange) error {
	budget := partitionBudget(c)
	if budget <= 0 {
		return nil
	}
	now := srv.now()
	b := srv.tput.bucket(r, now.Unix(), budget)
	ok := b.spent < budget*priorityShare(rq)
	ms := int64(0)
	if ok {
		ok, ms = srv.admitBucket(rq, c, r, now, budget) // bucket.go
	} else {
		ms = b.retryAfterMs(budget, now)
	}
	if ok {
		rq.admitted = append(rq.admitted, r)
		return nil
	}
	if srv.tput.throttled == nil {
		srv.tput.throttled = map[requestKey]int{}
	}
	cl := rq.classification
	srv.tput.throttled[requestKey{cl.Region, cl.Operation, cl.ResourceType, cl.Database, cl.Container}]++
	rq.charge = 0
	e := newError(http.StatusTooManyRequests, subRUBudgetExceeded, "%s", throttleMessage)
	e.header = http.Header{}
	e.header.Set(hdrRetryAfterMs, strconv.FormatInt(ms, 10))
	return e
}

// lowPriorityShare is the part of a partition's budget that Low priority requests
// (x-ms-cosmos-priority-level: Low) may spend in a second: once a partition has spent this much,
// Low requests are throttled while High ones (the default) are still admitted, which is the
// service's rule "under pressure, Low priority requests are throttled first". The service does
// not document a figure; 0.8 leaves High requests a fifth of every second's budget.
const lowPriorityShare = 0.8

// priorityShare is the part of a partition's budget the request may see spent and still be
// admitted: 1 for High (and no header), lowPriorityShare for Low.
func priorityShare(rq *request) float64 {
	if strings.EqualFold(rq.hdr(hdrPriority), wire.PriorityLow) {
		return lowPriorityShare
	}
	return 1
}

// retryAfterMs is the wait, in whole milliseconds (at least 1), until b has budget again: the end
// of this second plus one second per whole budget still owed.
func (b *ruBucket) retryAfterMs(budget float64, now time.Time) int64 {
	owed := int64(max(b.spent-budget, 0) / budget)
	wait := time.Unix(b.sec+1+owed, 0).Sub(now)
	return max(int64((wait+time.Millisecond-1)/time.Millisecond), 1)
}

// bucket returns r's bucket brought forward to second sec: each elapsed second pays off one
// budget of what was spent.
func (t *throughputState) bucket(r *pkRange, sec int64, budget float64) *ruBucket {
	if t.buckets == nil {
		t.buckets = map[*pkRange]*ruBucket{}
	}
	b := t.buckets[r]
	if b == nil {
		b = &ruBucket{sec: sec}
		t.buckets[r] = b
	}
	if sec > b.sec {
		b.spent -= float64(sec-b.sec) * budget
		if b.spent < 0 {
			b.spent = 0
		}
		b.sec = sec
	}
	return b
}

// spend charges the partitions admit let through with the request's final charge, after the
// handler ran; callers hold srv.mu.
func (srv *server) spend(rq *request) {
	if len(rq.admitted) == 0 || rq.charge <= 0 {
		return
	}
	share := rq.charge / float64(len(rq.admitted))
	for _, r := range rq.admitted {
		if b := srv.tput.buckets[r]; b != nil {
			b.spent += share
		}
		if n := throughputBucketOf(rq); n > 0 {
			if b := srv.tput.tbuckets[tbucketKey{r, n}]; b != nil {
				b.spent += share
			}
		}
	}
}

// partitionBudget is the RU/s of one physical partition of c; 0 means unlimited. Callers hold
// srv.mu.
func partitionBudget(c *container) float64 {
	var ru float64
	switch {
	case c.offer != nil:
		ru = offerRU(c.offer)
	case c.db.offer != nil:
		sharing := 0
		for _, x := range c.db.colls {
			if x.offer == nil {
				sharing++
			}
		}
		ru = offerRU(c.db.offer) / float64(max(sharing, 1))
	default:
		return 0
	}
	return ru / float64(max(len(c.ranges), 1))
}

// offerRU is an offer's RU/s: the autoscale maximum, or the manual throughput.
func offerRU(o *offer) float64 {
	if ap, ok := o.content["offerAutopilotSettings"].(map[string]any); ok {
		if v := number(ap["maxThroughput"]); v > 0 {
			return v
		}
	}
	return number(o.content["offerThroughput"])
}

func number(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case json.Number:
		f, _ := n.Float64()
		return f
	}
	return 0
}

// Throttled returns how many requests matching filter the throughput limiter
// (WithThroughputLimits) has refused with 429/3200 since the server started (ResetRequests does
// not reset it). Injected 429 faults are not included (see FaultHandle.Hits).
func (s *Server) Throttled(filter RequestFilter) int {
	s.s.mu.Lock()
	defer s.s.mu.Unlock()
	n := 0
	for k, v := range s.s.tput.throttled {
		if filter.match(k) {
			n += v
		}
	}
	return n
}

// forgetRanges drops the throughput budgets of a deleted container's partitions; callers hold
// srv.mu.
func (srv *server) forgetRanges(c *container) {
	for _, r := range c.ranges {
		delete(srv.tput.buckets, r)
	}
	for _, v := range c.views {
		if v != nil {
			srv.forgetRanges(v)
		}
	}
}

// SetThroughputLimits turns throughput enforcement (WithThroughputLimits) on or off at run time,
// for requests admitted from now on; ThroughputLimits reads it back. Budgets already spent in the
// current second stay spent.
func (s *Server) SetThroughputLimits(on bool) {
	s.s.mu.Lock()
	s.s.cfg.throughput = on
	s.s.mu.Unlock()
}

// ThroughputLimits reports whether throughput is enforced (WithThroughputLimits,
// SetThroughputLimits).
func (s *Server) ThroughputLimits() bool {
	s.s.mu.Lock()
	defer s.s.mu.Unlock()
	return s.s.cfg.throughput
}
