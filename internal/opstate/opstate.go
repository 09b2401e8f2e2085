// Package opstate carries what the attempts of one Cosmos DB operation learnt, from the per-retry
// policies that see each attempt up to the per-call policy and the error that report the
// operation: the diagnostics policy starts it, the diagnostics attempt policy and the retry layer
// add to it, and cosmoserr.FromError reads it. No OpenTelemetry here.
package opstate

import (
	"context"
	"sync"
	"time"
)

// Counts is a snapshot of a State.
type Counts struct {
	Attempts      int           // HTTP attempts
	Throttles     int           // attempts answered with 429
	ThrottleWait  time.Duration // time waited before retrying throttled attempts
	GroupWait     time.Duration // time attempts waited for a client-side throughput group's budget
	RequestCharge float64       // sum of x-ms-request-charge over the attempts
	Host          string        // host[:port] of the last attempt
}

// MaxHosts bounds the contacted endpoints remembered per operation.
const MaxHosts = 4

// State is the state of one operation. Attempts may run concurrently (hedging): it is safe for
// concurrent use.
type State struct {
	// Context is the request context the State was attached to by With: a State is itself the
	// operation's request context from there down, so carrying it costs no extra allocation.
	context.Context
	// Names maps a host to its region name for the owner's reports; it is set before the State
	// is shared and read-only afterwards. nil means no names.
	Names Namer

	mu    sync.Mutex
	c     Counts
	hosts [MaxHosts]string // distinct hosts contacted, in order
	nh    int
}

// Namer names the region of a host[:port], "" when unknown.
type Namer interface{ RegionName(host string) string }

type key struct{}

// With returns ctx carrying st: st itself, wrapping ctx (a State is attached to one context, once,
// before it is shared).
func With(ctx context.Context, st *State) context.Context {
	st.Context = ctx
	return st
}

// Value returns st for the State's key and ctx's value for any other key.
func (st *State) Value(k any) any {
	if _, ok := k.(key); ok {
		return st
	}
	return st.Context.Value(k)
}

// From returns the State in ctx, nil if none.
func From(ctx context.Context) *State {
	st, _ := ctx.Value(key{}).(*State)
	return st
}

// Attempt records one HTTP attempt to host and returns the attempts so far.
func (st *State) Attempt(host string, charge float64, throttled bool) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.c.Attempts++
	st.c.RequestCharge += charge
	st.c.Host = host
	if st.nh < MaxHosts && !st.seen(host) {
		st.hosts[st.nh] = host
		st.nh++
	}
	if throttled {
		st.c.Throttles++
	}
	return st.c.Attempts
}

func (st *State) seen(host string) bool {
	for _, h := range st.hosts[:st.nh] {
		if h == host {
			return true
		}
	}
	return false
}

// AddThrottleWait records that the retry layer waited d before retrying a throttled attempt of the
// operation whose request context is ctx; nothing when ctx carries no State or d <= 0.
func AddThrottleWait(ctx context.Context, d time.Duration) {
	if st := From(ctx); st != nil && d > 0 {
		st.mu.Lock()
		st.c.ThrottleWait += d
		st.mu.Unlock()
	}
}

// AddGroupWait records that an attempt of the operation whose request context is ctx waited d
// for a client-side throughput group's budget before it was sent; nothing when ctx carries no
// State or d <= 0.
func AddGroupWait(ctx context.Context, d time.Duration) {
	if st := From(ctx); st != nil && d > 0 {
		st.mu.Lock()
		st.c.GroupWait += d
		st.mu.Unlock()
	}
}

// Snapshot returns the counts so far.
func (st *State) Snapshot() Counts {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.c
}

// Contacted returns the distinct hosts the attempts went to, in order.
func (st *State) Contacted() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]string(nil), st.hosts[:st.nh]...)
}
