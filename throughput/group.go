package throughput

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// GroupOptions configure a Group. The zero value of each field is its documented default;
// Group.Options returns the options in effect.
type GroupOptions struct {
	// Name names the group (in errors and Stats). Required.
	Name string
	// TargetRUPerSecond is the group's budget in RU/s. Set it or TargetFraction, not both.
	TargetRUPerSecond float64
	// TargetFraction is the budget as a fraction, in (0, 1], of the container's provisioned
	// throughput (manual RU/s, or the autoscale maximum), which NewGroup reads from the service.
	TargetFraction float64
	// Priority is sent as x-ms-cosmos-priority-level on the group's requests: PriorityLevelLow for
	// background work, which the service throttles first under pressure. Default: "" (none sent;
	// the service's default is High).
	Priority azcosmos.PriorityLevel
	// ThroughputBucket, 1 to 5, is sent as x-ms-cosmos-throughput-bucket on the group's
	// requests. Default: 0 (none).
	ThroughputBucket int
	// Burst is how long the budget may be saved up while the group is idle: at most Burst times
	// the target. Default: 1 s.
	Burst time.Duration
}

// Group is a budget of request units per second. It is safe for concurrent use; share one Group
// among all the workloads that should spend one budget.
type Group struct {
	opts GroupOptions

	mu     sync.Mutex
	target float64   // RU/s in effect (a GlobalGroup changes it)
	burst  float64   // the most tokens saved up
	tokens float64   // RU available (negative: owed)
	last   time.Time // of the last refill
	avg    float64   // moving average of the charge per attempt, reserved before each attempt
	probe  bool      // an attempt is out while avg is unknown: the others wait for its charge
	st     Stats
}

// Stats are what a Group has seen.
type Stats struct {
	Requests      int64         // attempts sent
	RequestCharge float64       // RU charged
	Throttled     int64         // attempts answered 429
	Waited        time.Duration // time attempts waited for budget
}

func bad(field, format string, args ...any) error {
	return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "GroupOptions." + field, Reason: fmt.Sprintf(format, args...)}
}

// NewGroup returns a group. With TargetFraction it reads the container's throughput (one request
// through c); otherwise it does no I/O and c may be nil.
//
// Errors: a *cosmoserr.ValidationError naming the field for an empty name, no target or both,
// a fraction outside (0, 1], a priority other than High or Low, a bucket outside 1 to 5, a
// negative burst; a *cosmoserr.Error when the container's throughput cannot be read (a container
// in a shared-throughput database has none of its own: use TargetRUPerSecond).
func NewGroup(ctx context.Context, c *azcosmos.ContainerClient, o GroupOptions) (*Group, error) {
	switch {
	case o.Name == "":
		return nil, bad("Name", "is required")
	case o.TargetRUPerSecond < 0 || math.IsNaN(o.TargetRUPerSecond) || math.IsInf(o.TargetRUPerSecond, 0):
		return nil, bad("TargetRUPerSecond", "is not a positive number")
	case o.TargetFraction < 0 || o.TargetFraction > 1 || math.IsNaN(o.TargetFraction):
		return nil, bad("TargetFraction", "is outside (0, 1]")
	case (o.TargetRUPerSecond > 0) == (o.TargetFraction > 0):
		return nil, bad("TargetRUPerSecond", "set it or TargetFraction, exactly one")
	case o.Priority != "" && o.Priority != azcosmos.PriorityLevelHigh && o.Priority != azcosmos.PriorityLevelLow:
		return nil, bad("Priority", "is neither High nor Low")
	case o.ThroughputBucket < 0 || o.ThroughputBucket > 5:
		return nil, bad("ThroughputBucket", "is outside 1 to 5 (0 for none)")
	case o.Burst < 0:
		return nil, bad("Burst", "is negative")
	}
	if o.Burst == 0 {
		o.Burst = time.Second
	}
	target := o.TargetRUPerSecond
	if o.TargetFraction > 0 {
		if c == nil {
			return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "container", Reason: "is required with GroupOptions.TargetFraction"}
		}
		resp, err := c.ReadThroughput(ctx, nil)
		if err != nil {
			return nil, cosmoserr.FromError(cosmoserr.OpReadThroughput, err)
		}
		ru, ok := resp.ThroughputProperties.ManualThroughput()
		if !ok {
			ru, ok = resp.ThroughputProperties.AutoscaleMaxThroughput()
		}
		if !ok || ru <= 0 {
			return nil, &cosmoserr.Error{Operation: cosmoserr.OpReadThroughput, Message: "the container's offer names no throughput"}
		}
		target = o.TargetFraction * float64(ru)
	}
	return &Group{opts: o, target: target, burst: target * o.Burst.Seconds(), last: time.Now()}, nil
}

// Options returns the options in effect.
func (g *Group) Options() GroupOptions { return g.opts }

// Target returns the group's budget in RU/s in effect (TargetFraction resolved; for a group
// shared through a GlobalGroup, this process's share).
func (g *Group) Target() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.target
}

// setTarget changes the budget, from now on.
func (g *Group) setTarget(ru float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refill(time.Now())
	g.target = ru
	g.burst = ru * g.opts.Burst.Seconds()
	g.tokens = min(g.tokens, g.burst)
}

// Stats returns what the group has seen so far.
func (g *Group) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.st
}

// refill adds the budget earned since the last refill; callers hold g.mu.
func (g *Group) refill(now time.Time) {
	if d := now.Sub(g.last); d > 0 {
		g.tokens = min(g.tokens+g.target*d.Seconds(), g.burst)
		g.last = now
	}
}

// maxWait is the longest an attempt sleeps before looking at the budget again.
const maxWait = 100 * time.Millisecond

// acquire waits until the group has budget and reserves the expected charge of one attempt. Until
// a charge has been seen, one attempt at a time goes out (a burst of unknown cost could overdraw
// the budget many times over).
func (g *Group) acquire(ctx context.Context) (float64, error) {
	var waited time.Duration
	for {
		g.mu.Lock()
		now := time.Now()
		g.refill(now)
		if g.target > 0 && g.tokens >= 0 && (g.avg > 0 || !g.probe) {
			g.probe = g.avg == 0
			est := g.avg
			g.tokens -= est
			g.st.Requests++
			g.st.Waited += waited
			g.mu.Unlock()
			return est, nil
		}
		wait := maxWait // a share of 0 (a GlobalGroup's, while it joins or others hold the budget)
		switch {
		case g.target > 0 && g.tokens < 0:
			wait = time.Duration(-g.tokens / g.target * float64(time.Second))
		case g.target > 0:
			wait = 5 * time.Millisecond // waiting for the probe's charge
		}
		g.mu.Unlock()
		// Look again at least every maxWait: a GlobalGroup's share may grow meanwhile.
		wait = min(max(wait, time.Millisecond), maxWait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		case <-t.C:
			waited += wait
		}
	}
}

// settle replaces an attempt's reservation by its actual charge.
func (g *Group) settle(reserved, charge float64, throttled bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tokens += reserved - charge
	g.st.RequestCharge += charge
	g.probe = false
	if throttled {
		g.st.Throttled++
		return // a 429 is free and says nothing of the next attempt's charge
	}
	if g.avg == 0 {
		g.avg = charge
	} else {
		g.avg = 0.9*g.avg + 0.1*charge
	}
}

type groupKey struct{}

// WithGroup returns a context whose requests spend from g (nil: no group).
func WithGroup(ctx context.Context, g *Group) context.Context {
	return context.WithValue(ctx, groupKey{}, g)
}

// FromContext returns the group of ctx, nil if none.
func FromContext(ctx context.Context) *Group {
	g, _ := ctx.Value(groupKey{}).(*Group)
	return g
}
