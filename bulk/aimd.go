package bulk

import (
	"time"

	"github.com/cosmoskit/cosmoskit-go/internal/rucharge"
)

// Adaptive control per physical partition (AIMD from the 429s it sees):
//
//   - a window of requests in flight starts at 1, grows by 1/window per request answered without a
//     throttle (one more per window's worth of answers) up to Options.MaxConcurrencyPerRange, and
//     halves on a throttle;
//   - a request-unit rate: when the container's provisioned throughput can be read, the
//     partition's share of it times startShare from the start; otherwise unknown (unpaced) until
//     the first throttle, then the RU/s the partition was charged over the last second times
//     rateCut. Cut by rateCut on each later throttle, grown by rateGrowth (1.5%) of the first
//     rate per second without one. Requests are paced to it: a request expected to cost c RU
//     moves the next send c/rate seconds on;
//   - a paced request carries operations expected to cost at most requestShare (5%) of a second
//     at the rate: the service counts a partition's budget per second and a request's whole
//     charge lands in one second, so pacing overshoots a second by up to one request, and the
//     AIMD would settle that far below the budget (with 100 operations of 5 RU, a fifth of a
//     2,500 RU/s partition);
//   - a throttle also pauses the partition until the service's retry-after;
//   - one cut per round: throttles of requests sent before the last cut do not cut again.
const (
	// rateCut is mild because a throttle also pauses the partition until the retry-after: the
	// pause, not the cut, gives back what the second overdrew. At 0.9 a cut took 7 s of growth to
	// recover and the job averaged 2.5% below the budget; at 0.95 about half a percent.
	rateCut    = 0.95
	rateGrowth = 0.015
	minRate    = 1.0 // RU/s
	chargeSpan = time.Second
	// maxPause bounds the pause a retry-after hint imposes on a partition, as the Java bulk
	// executor does (BatchExecUtils.MAX_RETRY_AFTER_IN_MS): a hostile or broken hint cannot stall
	// a job.
	maxPause = 5 * time.Second
	// startShare is the part of a partition's provisioned share a job starts paced at.
	startShare = 0.95
	// requestShare bounds a paced request's expected charge to this part of one second at the
	// partition's rate (ruPerOp: the average charge of an operation that ran).
	requestShare = 0.05
)

// rangeState is one physical partition of a job: its queue and its control state. Owned by the
// scheduler goroutine.
type rangeState struct {
	id       string
	queue    []*item
	keys     map[string]int // logical partitions with operations in flight
	inflight int

	window, maxWindow float64
	rate, baseRate    float64 // RU/s; 0 = unpaced
	ruPerOp           float64 // moving average of the charge per operation
	nextSend          time.Time
	lastCut, lastGrow time.Time
	charges           []charge // the last second's charges
	firstCharge       time.Time
}

type charge struct {
	at time.Time
	ru float64
}

func newRangeState(id string, maxWindow int, budget float64) *rangeState {
	r := &rangeState{id: id, keys: map[string]int{}, window: 1, maxWindow: float64(maxWindow)}
	if budget > 0 {
		r.rate = budget * startShare
		r.baseRate = r.rate
	}
	return r
}

// slots is how many requests may be in flight.
func (r *rangeState) slots() int { return max(int(r.window), 1) }

// take removes up to maxOps operations (maxBytes of JSON; a larger one alone) from the queue,
// keeping the input order per logical partition: an operation whose partition key has a request
// in flight, or an earlier operation left in the queue, stays. full reports that a limit, not the
// queue's end, closed the request.
func (r *rangeState) take(maxOps, maxBytes int) (items []*item, full bool) {
	var blocked map[string]bool
	size := 0
	rest := r.queue[:0:0]
	for i, it := range r.queue {
		if full {
			rest = append(rest, r.queue[i:]...)
			break
		}
		if r.keys[it.p.key] > 0 || blocked[it.p.key] {
			rest = append(rest, it)
			continue
		}
		n := len(it.p.enc) + 1
		if len(items) > 0 && size+n > maxBytes {
			full = true
			if blocked == nil {
				blocked = map[string]bool{}
			}
			blocked[it.p.key] = true
			rest = append(rest, it)
			continue
		}
		items = append(items, it)
		size += n
		if len(items) == maxOps || size >= maxBytes {
			full = true
		}
	}
	r.queue = rest
	return items, full
}

// requeue puts items to be sent again at the front of the queue, in their order.
func (r *rangeState) requeue(items []*item) {
	now := time.Now()
	for _, it := range items {
		it.enq = now
	}
	r.putBack(items)
}

// putBack puts items just taken back at the front of the queue, in their order, keeping the time
// they joined it (a partly filled request waiting for more does not restart its wait).
func (r *rangeState) putBack(items []*item) {
	r.queue = append(append(make([]*item, 0, len(items)+len(r.queue)), items...), r.queue...)
}

// maxOps is how many operations one request may carry: limit, and, once the partition is paced,
// no more than cost requestShare of a second at its rate. Before its first answer the charge of
// an operation is the documented charge of inserting the first queued document (guessRUPerOp):
// a paced partition's first request of 100 operations of 1 KB cost 550 RU, more than a second
// of a 400 RU/s partition, and came back mostly throttled.
func (r *rangeState) maxOps(limit int) int {
	if r.rate <= 0 {
		return limit
	}
	per := r.ruPerOp
	if per <= 0 {
		per = r.guessRUPerOp()
	}
	return min(limit, max(int(r.rate*requestShare/per), 1))
}

// guessRUPerOp is the documented charge of inserting an item the size of the first queued
// operation's JSON (rucharge.TableWriteRU, at least 1 KB): the charge of a write, an upper bound
// for a read or a delete of that size.
func (r *rangeState) guessRUPerOp() float64 {
	size := 0
	if len(r.queue) > 0 {
		size = len(r.queue[0].p.enc)
	}
	return rucharge.TableWriteRU(max(float64(size)/1024, 1))
}

// sent paces the next request after one of n operations.
func (r *rangeState) sent(now time.Time, n int) {
	if r.rate <= 0 || r.ruPerOp <= 0 {
		return
	}
	start := r.nextSend
	if now.After(start) {
		start = now
	}
	r.nextSend = start.Add(time.Duration(r.ruPerOp * float64(n) / r.rate * float64(time.Second)))
}

// observeCharge records the charge ru of a request answered now, of which n operations ran
// (throttled and not-run ones are free).
func (r *rangeState) observeCharge(now time.Time, ru float64, n int) {
	if n > 0 && ru > 0 {
		per := ru / float64(n)
		if r.ruPerOp == 0 {
			r.ruPerOp = per
		} else {
			r.ruPerOp = 0.8*r.ruPerOp + 0.2*per
		}
	}
	if r.firstCharge.IsZero() {
		r.firstCharge = now
	}
	r.charges = append(r.charges, charge{now, ru})
	cut := 0
	for cut < len(r.charges) && now.Sub(r.charges[cut].at) > chargeSpan {
		cut++
	}
	r.charges = r.charges[cut:]
}

// recentRate is the RU/s charged over the last second (or since the first charge, when that is
// more recent).
func (r *rangeState) recentRate(now time.Time) float64 {
	sum := 0.0
	for _, c := range r.charges {
		sum += c.ru
	}
	span := chargeSpan
	if !r.firstCharge.IsZero() {
		span = min(span, now.Sub(r.firstCharge))
	}
	return sum / max(span.Seconds(), 0.05)
}

// adapt updates the window and rate after a request sent at sentAt was answered now.
func (r *rangeState) adapt(now, sentAt time.Time, throttled bool, retryAfter time.Duration) {
	if !throttled {
		r.window = min(r.window+1/r.window, r.maxWindow)
		if r.rate > 0 {
			if !r.lastGrow.IsZero() {
				r.rate += rateGrowth * r.baseRate * now.Sub(r.lastGrow).Seconds()
			}
			r.lastGrow = now
		}
		return
	}
	if until := now.Add(min(retryAfter, maxPause)); retryAfter > 0 && until.After(r.nextSend) {
		r.nextSend = until
	}
	if !sentAt.After(r.lastCut) {
		return // sent before the last cut: already accounted for
	}
	r.lastCut, r.lastGrow = now, now
	r.window = max(r.window/2, 1)
	if r.rate <= 0 {
		// Unpaced: the rate the partition was charged over the last second, once it was
		// charged anything (a throttle before any charge says nothing of the rate: pacing at
		// minRate then sent a request every 5 s).
		if m := r.recentRate(now); m > 0 {
			r.rate = max(m*rateCut, minRate)
			r.baseRate = r.rate
		}
		return
	}
	r.rate = max(r.rate*rateCut, minRate)
}
