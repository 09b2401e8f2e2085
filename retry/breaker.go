package retry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"

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

func stateOf(s gobreaker.State) State {
	switch s {
	case gobreaker.StateHalfOpen:
		return StateHalfOpen
	case gobreaker.StateOpen:
		return StateOpen
	default:
		return StateClosed
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
	// once the breaker is open or half-open, not the run that opened it: gobreaker resets its counts
	// on every state change (and a half-open breaker counts only its probes; a failed probe opens it
	// again at once). Use State to tell an open breaker from a healthy one.
	ConsecutiveFailures int
}

// outcome of one attempt, as a breaker counts it.
type outcome int

const (
	outcomeSuccess outcome = iota
	outcomeFailure
	outcomeNeutral // 429, or the caller's own cancellation: counted as nothing
)

var (
	errAttemptFailed  = errors.New("attempt failed")
	errAttemptIgnored = errors.New("attempt ignored")
)

// classify sorts an attempt's result: 5xx, 408 and transport errors that are not the caller's own
// cancellation are failures; 429 and cancellations are neutral; the rest are successes.
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

type breakerKey struct {
	host, partition string
	write           bool
}

type breakerEntry struct {
	cb     *gobreaker.TwoStepCircuitBreaker[struct{}]
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
	st := gobreaker.Settings{
		Name:        name,
		MaxRequests: uint32(b.opts.HalfOpenProbes),
		Timeout:     b.opts.OpenInterval,
		ReadyToTrip: func(c gobreaker.Counts) bool { return int(c.ConsecutiveFailures) >= threshold },
		IsExcluded:  func(err error) bool { return errors.Is(err, errAttemptIgnored) },
	}
	if b.reporter != nil {
		rep := b.reporter
		st.OnStateChange = func(name string, from, to gobreaker.State) {
			rep.CircuitBreakerStateChanged(context.Background(), name, stateOf(from).String(), stateOf(to).String())
		}
	}
	e := &breakerEntry{cb: gobreaker.NewTwoStepCircuitBreaker[struct{}](st), region: regionName}
	b.m[k] = e
	return e
}

// open reports whether the region's breaker, or the partition's breaker in that region, is open.
func (b *breakers) open(r region, partition string, write bool) bool {
	if b == nil {
		return false
	}
	if b.get(breakerKey{host: r.host, write: write}, r.name).cb.State() == gobreaker.StateOpen {
		return true
	}
	return partition != "" && b.get(breakerKey{host: r.host, partition: partition, write: write}, r.name).cb.State() == gobreaker.StateOpen
}

// allow asks the breaker that counts this request (the partition's when the request names its
// range, else the region's) to let it through; ok is false when it refuses (open, or half-open
// with its probes in flight). The region breaker is consulted for partition requests as well.
func (b *breakers) allow(r region, partition string, write bool) (done func(outcome), ok bool) {
	if b == nil {
		return func(outcome) {}, true
	}
	region := b.get(breakerKey{host: r.host, write: write}, r.name)
	counted := region
	if partition != "" {
		if region.cb.State() == gobreaker.StateOpen {
			return nil, false
		}
		counted = b.get(breakerKey{host: r.host, partition: partition, write: write}, r.name)
	}
	d, err := counted.cb.Allow()
	if err != nil {
		return nil, false
	}
	return func(o outcome) {
		switch o {
		case outcomeSuccess:
			d(nil)
		case outcomeFailure:
			d(errAttemptFailed)
		default:
			d(errAttemptIgnored)
		}
	}, true
}

func (b *breakers) list() []BreakerInfo {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]BreakerInfo, 0, len(b.m))
	for k, e := range b.m {
		out = append(out, BreakerInfo{
			Name: e.cb.Name(), Region: e.region, Host: k.host, Partition: k.partition, Write: k.write,
			State: stateOf(e.cb.State()), ConsecutiveFailures: int(e.cb.Counts().ConsecutiveFailures),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
