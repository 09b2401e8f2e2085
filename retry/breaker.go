package retry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"
)

// State is a circuit breaker state.
type State int

// Circuit breaker states.
const (
	// StateClosed lets every request through.
	StateClosed State = iota
	// StateHalfOpen lets a few probe requests through after the open interval.
	StateHalfOpen
	// StateOpen keeps requests away (their region, or their range in that region, is skipped).
	StateOpen
)

// String returns "closed", "half-open" or "open".
func (s State) String() string {
	switch s {
	case StateHalfOpen:
		return "half-open"
	case StateOpen:
		return "open"
	default:
		return "closed"
	}
}

// BreakerInfo describes one circuit breaker, as (*PipelinePolicy).Breakers reports it.
type BreakerInfo struct {
	// Name is the name reported to the StateReporter, e.g. "reads West US (host:port)".
	Name string
	// Region is the region name ("" if the host is not one of the account's regions) and Host
	// the host[:port] of its endpoint.
	Region, Host string
	// Partition is "" for the breaker of the whole region, else "<container link> pkrange <id>".
	Partition string
	// Write reports the breaker of writes (else reads).
	Write bool
	// State is the breaker's current state.
	State State
	// ConsecutiveFailures is the current run of failures while the breaker is closed. It reads 0
	// once the breaker is open or half-open, not the run that opened it: the counts start again on
	// every state change (and a half-open breaker counts only its probes; a failed probe opens it
	// again at once). Use State to tell an open breaker from a healthy one.
	ConsecutiveFailures int
}

// outcome of one attempt, as a breaker counts it.
type outcome int

const (
	outcomeSuccess outcome = iota
	outcomeFailure
	outcomeNeutral // 429, the caller's own cancellation, a request that could not be sent
)

// classify sorts an attempt's result: 5xx, 408 and transport errors that are not the caller's own
// cancellation are failures; 429 and cancellations are neutral; the rest are successes. (Requests
// that cannot be sent are recognised, and counted neutral, before classify.)
func classify(ctx context.Context, resp *http.Response, err error) outcome {
	if err != nil {
		if ctx.Err() != nil {
			return outcomeNeutral
		}
		var fe *finalError
		if errors.As(err, &fe) { // throttled past the budget
			return outcomeNeutral
		}
		return outcomeFailure
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return outcomeNeutral
	case resp.StatusCode >= 500, resp.StatusCode == http.StatusRequestTimeout:
		return outcomeFailure
	}
	return outcomeSuccess
}

// breaker is one circuit breaker: closed until threshold consecutive failures, then open for the
// open interval (measured on the policy's Clock), then half-open, letting probes through: that
// many successes close it, one failure opens it again. Outcomes of attempts let through in an
// earlier state are ignored.
type breaker struct {
	name      string
	threshold int
	probes    int
	interval  time.Duration
	clock     Clock
	report    func(from, to State)

	mu        sync.Mutex
	state     State
	gen       uint64    // bumped on every state change
	failures  int       // consecutive failures while closed
	inFlight  int       // probes let through while half-open, not yet answered
	successes int       // successful probes while half-open
	openedAt  time.Time // when it last opened
}

// transition records and reports state changes made under the lock.
type transition struct {
	from, to [3]State
	n        int
}

func (t *transition) add(from, to State) {
	if t.n < len(t.from) {
		t.from[t.n], t.to[t.n] = from, to
		t.n++
	}
}

func (b *breaker) change(to State, now time.Time, tr *transition) {
	tr.add(b.state, to)
	b.state = to
	b.gen++
	b.failures, b.inFlight, b.successes = 0, 0, 0
	if to == StateOpen {
		b.openedAt = now
	}
}

func (b *breaker) refresh(now time.Time, tr *transition) {
	if b.state == StateOpen && !now.Before(b.openedAt.Add(b.interval)) {
		b.change(StateHalfOpen, now, tr)
	}
}

func (b *breaker) notify(tr *transition) {
	if b.report == nil {
		return
	}
	for i := range tr.n {
		b.report(tr.from[i], tr.to[i])
	}
}

// stateNow returns the breaker's state, and when it last opened.
func (b *breaker) stateNow() (State, time.Time) {
	var tr transition
	b.mu.Lock()
	b.refresh(b.clock.Now(), &tr)
	s, at := b.state, b.openedAt
	b.mu.Unlock()
	b.notify(&tr)
	return s, at
}

// allow asks to let one attempt through. force lets it through whatever the state (an open
// breaker goes half-open at once and the attempt is its probe): the policy forces the last route
// it has rather than refusing every one. It returns the function that records the attempt's
// outcome, or false when the breaker refuses.
func (b *breaker) allow(force bool) (ticket, bool) {
	var tr transition
	b.mu.Lock()
	now := b.clock.Now()
	b.refresh(now, &tr)
	if b.state == StateOpen {
		if !force {
			b.mu.Unlock()
			b.notify(&tr)
			return ticket{}, false
		}
		b.change(StateHalfOpen, now, &tr)
	}
	if b.state == StateHalfOpen {
		if b.inFlight >= b.probes && !force {
			b.mu.Unlock()
			b.notify(&tr)
			return ticket{}, false
		}
		b.inFlight++
	}
	gen := b.gen
	b.mu.Unlock()
	b.notify(&tr)
	return ticket{b: b, gen: gen}, true
}

// ticket records the outcome of one attempt a breaker let through (a value, so that letting an
// attempt through allocates nothing). The zero ticket records nothing.
type ticket struct {
	b   *breaker
	gen uint64
}

func (t ticket) done(o outcome) {
	if t.b != nil {
		t.b.record(t.gen, o)
	}
}

func (b *breaker) record(gen uint64, o outcome) {
	var tr transition
	b.mu.Lock()
	if gen == b.gen {
		now := b.clock.Now()
		switch b.state {
		case StateClosed:
			switch o {
			case outcomeSuccess:
				b.failures = 0
			case outcomeFailure:
				b.failures++
				if b.failures >= b.threshold {
					b.change(StateOpen, now, &tr)
				}
			}
		case StateHalfOpen:
			b.inFlight--
			switch o {
			case outcomeSuccess:
				b.successes++
				if b.successes >= b.probes {
					b.change(StateClosed, now, &tr)
				}
			case outcomeFailure:
				b.change(StateOpen, now, &tr)
			}
		}
	}
	b.mu.Unlock()
	b.notify(&tr)
}

func (b *breaker) consecutiveFailures() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failures
}

type breakerKey struct {
	host, partition string
	write           bool
}

type breakerEntry struct {
	cb     *breaker
	region string
}

// breakers is the set of circuit breakers of one policy, created on first use.
type breakers struct {
	opts     BreakerOptions
	reporter StateReporter
	clock    Clock
	mu       sync.Mutex
	m        map[breakerKey]*breakerEntry
}

func newBreakers(o BreakerOptions, r StateReporter, c Clock) *breakers {
	return &breakers{opts: o.withDefaults(), reporter: r, clock: clockOr(c), m: map[breakerKey]*breakerEntry{}}
}

func (b *breakers) get(k breakerKey, regionName string) *breakerEntry {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.m[k]; ok {
		return e
	}
	kind := "reads"
	threshold := b.opts.ReadFailureThreshold
	if k.write {
		kind, threshold = "writes", b.opts.WriteFailureThreshold
	}
	name := fmt.Sprintf("%s %s (%s)", kind, regionName, k.host)
	if regionName == "" {
		name = fmt.Sprintf("%s %s", kind, k.host)
	}
	if k.partition != "" {
		name += " " + k.partition
	}
	cb := &breaker{name: name, threshold: threshold, probes: b.opts.HalfOpenProbes, interval: b.opts.OpenInterval, clock: b.clock}
	if b.reporter != nil {
		rep := b.reporter
		cb.report = func(from, to State) {
			rep.CircuitBreakerStateChanged(context.Background(), name, from.String(), to.String())
		}
	}
	e := &breakerEntry{cb: cb, region: regionName}
	b.m[k] = e
	return e
}

// open reports whether the region's breaker, or the partition's breaker in that region, is open,
// and since when (the later of the two when both are).
func (b *breakers) open(r region, partition string, write bool) (bool, time.Time) {
	if b == nil {
		return false, time.Time{}
	}
	s, at := b.get(breakerKey{host: r.host, write: write}, r.name).cb.stateNow()
	isOpen := s == StateOpen
	if partition != "" {
		ps, pat := b.get(breakerKey{host: r.host, partition: partition, write: write}, r.name).cb.stateNow()
		if ps == StateOpen {
			if !isOpen || pat.After(at) {
				at = pat
			}
			isOpen = true
		}
	}
	return isOpen, at
}

// leastRecentlyOpened returns the region among regions (all with an open breaker) whose breaker
// opened first: the route tried, half-open, when every route is open.
func (b *breakers) leastRecentlyOpened(regions []region, partition string, write bool) region {
	best := regions[0]
	var bestAt time.Time
	for i, r := range regions {
		_, at := b.open(r, partition, write)
		if i == 0 || at.Before(bestAt) {
			best, bestAt = r, at
		}
	}
	return best
}

// allow asks the breaker that counts this request (the partition's when the request names its
// range, else the region's) to let it through; ok is false when it refuses (open, or half-open
// with its probes in flight). The region breaker is consulted for partition requests as well.
// force lets the request through whatever the breakers say (see breaker.allow).
func (b *breakers) allow(r region, partition string, write, force bool) (t ticket, ok bool) {
	if b == nil {
		return ticket{}, true
	}
	region := b.get(breakerKey{host: r.host, write: write}, r.name)
	counted := region
	if partition != "" {
		if s, _ := region.cb.stateNow(); s == StateOpen && !force {
			return ticket{}, false
		}
		counted = b.get(breakerKey{host: r.host, partition: partition, write: write}, r.name)
	}
	return counted.cb.allow(force)
}

func (b *breakers) list() []BreakerInfo {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	entries := make(map[breakerKey]*breakerEntry, len(b.m))
	for k, e := range b.m {
		entries[k] = e
	}
	b.mu.Unlock()
	out := make([]BreakerInfo, 0, len(entries))
	for k, e := range entries {
		s, _ := e.cb.stateNow()
		out = append(out, BreakerInfo{
			Name: e.cb.name, Region: e.region, Host: k.host, Partition: k.partition, Write: k.write,
			State: s, ConsecutiveFailures: e.cb.consecutiveFailures(),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
