package retry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"
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

// Outcomes as the gobreaker breakers see them: nil is a success, errFailure a failure, and
// errNeutral is excluded (counted neither way).
var (
	errFailure = errors.New("failure")
	errNeutral = errors.New("neutral")
)

// breaker is one circuit breaker: a gobreaker TwoStepCircuitBreaker (closed until threshold
// consecutive failures, then open for the open interval, then half-open letting probes through:
// that many successes close it, one failure opens it again), plus the order in which breakers
// opened, which the policy uses to pick the route when every one is open. gobreaker reads
// time.Now; the order is a sequence number, so no clock is involved.
type breaker struct {
	name string
	cb   *gobreaker.TwoStepCircuitBreaker[struct{}]
	// opened is the sequence number of the breaker's last opening (or of the last failure of a
	// route sent to it while open), from openings: the smallest is the least recently opened.
	opened atomic.Uint64
}

// openings orders breaker openings across a process.
var openings atomic.Uint64

func newBreaker(name string, threshold, probes int, interval time.Duration, report func(from, to State)) *breaker {
	b := &breaker{name: name}
	b.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:         name,
		MaxRequests:  uint32(probes), //nolint:gosec // validated non-negative, small
		Timeout:      interval,
		ReadyToTrip:  func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= uint32(threshold) }, //nolint:gosec // validated
		IsSuccessful: func(err error) bool { return err == nil },
		IsExcluded:   func(err error) bool { return errors.Is(err, errNeutral) },
		OnStateChange: func(_ string, from, to gobreaker.State) {
			if to == gobreaker.StateOpen {
				b.opened.Store(openings.Add(1))
			}
			if report != nil {
				report(stateOf(from), stateOf(to))
			}
		},
	})
	return b
}

func stateOf(s gobreaker.State) State {
	switch s {
	case gobreaker.StateOpen:
		return StateOpen
	case gobreaker.StateHalfOpen:
		return StateHalfOpen
	default:
		return StateClosed
	}
}

// state returns the breaker's state (an open breaker whose interval has passed reads half-open).
func (b *breaker) state() State { return stateOf(b.cb.State()) }

// allow asks the breaker to let one attempt through: false when it is open, or half-open with
// its probes in flight.
func (b *breaker) allow() (ticket, bool) {
	done, err := b.cb.Allow()
	if err != nil {
		return ticket{}, false
	}
	return ticket{done: done}, true
}

// ticket records the outcome of one attempt a breaker let through. The zero ticket records
// nothing (a breaker not asked: breakers disabled, or the last route sent whatever they say).
type ticket struct {
	done   func(error)
	forced *breaker // the route sent without asking this (open) breaker
}

func (t ticket) record(o outcome) {
	switch {
	case t.done != nil:
		switch o {
		case outcomeSuccess:
			t.done(nil)
		case outcomeFailure:
			t.done(errFailure)
		default:
			t.done(errNeutral)
		}
	case t.forced != nil && o == outcomeFailure:
		// The breaker was not asked and counts nothing, but the route failed again: it goes to
		// the back of the all-open order, so the next request tries another route first.
		t.forced.opened.Store(openings.Add(1))
	}
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
	mu       sync.Mutex
	m        map[breakerKey]*breakerEntry
}

func newBreakers(o BreakerOptions, r StateReporter) *breakers {
	return &breakers{opts: o.withDefaults(), reporter: r, m: map[breakerKey]*breakerEntry{}}
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
	var report func(from, to State)
	if b.reporter != nil {
		rep := b.reporter
		report = func(from, to State) {
			rep.CircuitBreakerStateChanged(context.Background(), name, from.String(), to.String())
		}
	}
	cb := newBreaker(name, threshold, b.opts.HalfOpenProbes, b.opts.OpenInterval, report)
	e := &breakerEntry{cb: cb, region: regionName}
	b.m[k] = e
	return e
}

// open reports whether the region's breaker, or the partition's breaker in that region, is open,
// and the order of its opening (the later of the two when both are).
func (b *breakers) open(r region, partition string, write bool) (bool, uint64) {
	if b == nil {
		return false, 0
	}
	rb := b.get(breakerKey{host: r.host, write: write}, r.name).cb
	isOpen := rb.state() == StateOpen
	var at uint64
	if isOpen {
		at = rb.opened.Load()
	}
	if partition != "" {
		pb := b.get(breakerKey{host: r.host, partition: partition, write: write}, r.name).cb
		if pb.state() == StateOpen {
			at = max(at, pb.opened.Load())
			isOpen = true
		}
	}
	return isOpen, at
}

// leastRecentlyOpened returns the region among regions (all with an open breaker) whose breaker
// opened first: the route sent, without asking its breaker, when every route is open.
func (b *breakers) leastRecentlyOpened(regions []region, partition string, write bool) region {
	best := regions[0]
	var bestAt uint64
	for i, r := range regions {
		_, at := b.open(r, partition, write)
		if i == 0 || at < bestAt {
			best, bestAt = r, at
		}
	}
	return best
}

// allow asks the breaker that counts this request (the partition's when the request names its
// range, else the region's) to let it through; ok is false when it refuses (open, or half-open
// with its probes in flight). The region breaker is consulted for partition requests as well.
// With force (the last route), a request its breaker refuses is sent anyway, without a ticket from
// the breaker: its outcome is not counted, except that a failure moves the route to the back of
// the all-open order.
func (b *breakers) allow(r region, partition string, write, force bool) (t ticket, ok bool) {
	if b == nil {
		return ticket{}, true
	}
	region := b.get(breakerKey{host: r.host, write: write}, r.name)
	counted := region
	if partition != "" {
		counted = b.get(breakerKey{host: r.host, partition: partition, write: write}, r.name)
	}
	if partition == "" || region.cb.state() != StateOpen {
		if t, ok := counted.cb.allow(); ok {
			return t, true
		}
	}
	if !force {
		return ticket{}, false
	}
	forced := counted.cb
	if partition != "" && region.cb.state() == StateOpen && counted.cb.state() != StateOpen {
		forced = region.cb
	}
	return ticket{forced: forced}, true
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
		failures := 0
		s := e.cb.state()
		if s == StateClosed {
			failures = int(e.cb.cb.Counts().ConsecutiveFailures)
		}
		out = append(out, BreakerInfo{
			Name: e.cb.name, Region: e.region, Host: k.host, Partition: k.partition, Write: k.write,
			State: s, ConsecutiveFailures: failures,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
