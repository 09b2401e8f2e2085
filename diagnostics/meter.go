package diagnostics

import (
	"context"
	"sync"
	"time"
)

// Meter adds up the request units, operations, throttled attempts and throttle waits of a unit of
// work. A unit of work is, for example, one HTTP request of a service ("this request cost 7.3 RU in
// 3 calls"). Get one with [WithMeter]; every Cosmos DB operation run with that context (or a
// context derived from it) through a client with [Policy] installed is added to it. Meters nest: an
// operation counts toward every meter in its context. Calls the SDK makes on contexts of its own
// (its partition key range cache and account refreshes run on context.Background) are not charged
// to any meter. A Meter is safe for concurrent use; the methods of a nil *Meter return zero.
type Meter struct {
	parent *Meter

	mu        sync.Mutex
	charge    float64
	requests  int
	attempts  int
	throttles int
	wait      time.Duration
	retrieved int64 // query documents loaded (scan.go)
	returned  int64 // query documents returned
	scans     int   // query pages found to be scans
}

type meterKey struct{}

// WithMeter returns a context carrying a new [Meter], and the meter. If ctx already carries a
// meter, the new one is nested inside it: operations count toward both.
func WithMeter(ctx context.Context) (context.Context, *Meter) {
	m := &Meter{parent: MeterFromContext(ctx)}
	return context.WithValue(ctx, meterKey{}, m), m
}

// MeterFromContext returns the innermost [Meter] in ctx, or nil.
func MeterFromContext(ctx context.Context) *Meter {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	return m
}

// RequestCharge returns the request units consumed so far, summed over every attempt.
func (m *Meter) RequestCharge() float64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.charge
}

// Requests returns the number of Cosmos DB operations (pipeline calls: a point operation, one
// query page, one change feed page, ...) completed so far. Retries of one operation count once;
// the SDK's account metadata reads are not counted.
func (m *Meter) Requests() int {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests
}

// Attempts returns the number of HTTP attempts of those operations so far: every retry counts
// (a read answered by two 429s and then 200 is 1 request and 3 attempts). Without the attempt
// policy ([NewAttemptPolicy]) below the retries, each operation counts as one attempt.
func (m *Meter) Attempts() int {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.attempts
}

// Throttles returns the number of attempts answered with 429 so far, including those retried.
func (m *Meter) Throttles() int {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.throttles
}

// ThrottleWait returns the time spent so far waiting before retrying throttled attempts of those
// operations. It counts the waits the retry layer reported (package retry's PipelinePolicy does;
// azcore's own retry policy does not, so its waits are not included). An operation's wait is added
// when the operation completes.
func (m *Meter) ThrottleWait() time.Duration {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.wait
}

func (m *Meter) add(charge float64, attempts, throttles int, wait time.Duration) {
	if attempts < 1 {
		attempts = 1
	}
	for ; m != nil; m = m.parent {
		m.mu.Lock()
		m.charge += charge
		m.requests++
		m.attempts += attempts
		m.throttles += throttles
		m.wait += wait
		m.mu.Unlock()
	}
}
