package retry

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// PipelinePolicy is the per-retry azcore policy that makes an azcosmos client resilient: retries,
// circuit breakers, region routing and failover, hedging.
//
// It retries 429s within a budget, keeps circuit breakers per region endpoint and partition key
// range, routes each request to the first region of the effective order (preferred regions minus
// excluded ones and those whose breaker is open), fails reads over to the next region, and pins the
// attempts of a hedged operation ([Hedge]) to their regions. Install it with
// [PipelinePolicy.Install] (package cosmoskit does this for you); one PipelinePolicy serves one
// client, and is safe for concurrent use.
//
// # Where it sits and who retries what
//
// azcosmos fixes its region routing when the client is built: its own retry policy, which runs
// before the per-retry policies, writes the chosen region's endpoint into the request's host. This
// policy runs after it and rewrites the host again with its own choice (only the host: the
// signature does not cover it), so one azcosmos client per account serves every routing choice,
// and the choice is made per request, race-free. It learns the account's regions and endpoints
// from the account metadata (GET /) the SDK reads through the same pipeline, and so follows the
// SDK's topology refreshes.
//
// Session and RetryWith: a 404/1002 (the region has not caught up with the request's session
// token) is retried in the same region with backoff before it goes back to the SDK, whose own
// policy then tries the write region; a 449 (RetryWith) is retried in the same region with
// backoff, writes included (see Options.SessionRetry and Options.RetryWith).
//
// One retry layer: throttled requests are retried here, exactly as ThrottleOptions says, and an
// exhausted throttle budget is returned as a final error that neither azcore's retry policy nor the
// Cosmos retry policy repeats (Install also takes 429 out of azcore's retried status codes, so
// azcore never adds attempts of its own). Reads walk the effective region order here, once, with no
// sleeps; when they walked two or more regions, their last failure is final too, so the SDK does
// not walk the regions again with its 1 s sleeps. A read with a single region to go to, and every
// write, returns its failure unchanged, and the SDK's own retry rules (same-region connection
// retries, 403/3 write-region failover, 404/1002 session retries) apply as without this policy.
type PipelinePolicy struct {
	disabled  bool    // Options.Disable: pass every request on unchanged
	opts      Options // in effect, defaults filled in
	throttle  ThrottleOptions
	session   BackoffOptions
	retryWith BackoffOptions
	hedging   HedgingOptions
	clock     Clock
	preferred atomic.Pointer[preferredRegions] // set by Install; nil: the account's order
	excluded  atomic.Pointer[excludedRegions]
	topo      atomic.Pointer[topology]
	routes    atomic.Pointer[routeCache]
	br        *breakers // nil when disabled
	hedges    hedgeCounters
}

type excludedRegions struct {
	names []string
	set   map[string]bool
}

// NewPipelinePolicy returns a policy configured by o (see [Options] for the defaults). Options that
// [Options.Validate] refuses are returned as its *cosmoserr.ValidationError, naming the field.
func NewPipelinePolicy(o Options) (*PipelinePolicy, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	p := &PipelinePolicy{
		disabled: o.Disable,
		throttle: o.Throttle.withDefaults(),
		session: o.SessionRetry.withDefaults(0, DefaultSessionRetryInitialBackoff,
			DefaultSessionRetryMaxBackoff, DefaultSessionRetryMultiplier),
		retryWith: o.RetryWith.withDefaults(DefaultRetryWithMaxWait, DefaultRetryWithInitialBackoff,
			DefaultRetryWithMaxBackoff, DefaultRetryWithMultiplier),
		hedging: o.Hedging,
		clock:   clockOr(o.Clock),
	}
	if !o.Breaker.Disable {
		p.br = newBreakers(o.Breaker, o.Reporter)
	}
	p.SetExcludedRegions()
	p.opts = o
	p.opts.Throttle = p.throttle
	p.opts.SessionRetry = p.session
	p.opts.RetryWith = p.retryWith
	p.opts.Breaker = o.Breaker.withDefaults()
	p.opts.Hedging = o.Hedging.withDefaults()
	p.opts.Clock = p.clock
	return p, nil
}

// Options returns the options in effect, for printing or logging the configuration. They are o as
// given to [NewPipelinePolicy] with every zero value replaced by its documented default:
// Throttle.MaxRetries 9, MaxWait 30 s, DefaultRetryAfter 100 ms; Breaker thresholds 10 and 5,
// OpenInterval 30 s, HalfOpenProbes 1; SessionRetry MaxWait 0 (no in-region wait) with 5 ms,
// 500 ms, ×5; RetryWith 30 s, 10 ms, 1 s, ×2, filled in even when disabled; Hedging Threshold
// 500 ms and Step 100 ms, filled in even when hedging is off; Clock SystemClock. The exception is
// where the zero value is itself the behaviour: a nil Reporter stays nil. With Throttle.Disable,
// Throttle.MaxRetries reads 0. Passing the result to NewPipelinePolicy configures an equivalent
// policy. The regions are read back with [PipelinePolicy.PreferredRegions] and
// [PipelinePolicy.ExcludedRegions].
func (p *PipelinePolicy) Options() Options { return p.opts }

// preferredRegions is the region order Install took from the client options.
type preferredRegions struct {
	names     []string // as given
	canonical []string // compared like the SDK does (case and spaces ignored); empty names dropped
}

// PreferredRegions returns a copy of the region order the policy routes by: the
// azcosmos.ClientOptions.PreferredRegions it was installed with (empty: the account's order).
func (p *PipelinePolicy) PreferredRegions() []string {
	if pr := p.preferred.Load(); pr != nil {
		return append([]string(nil), pr.names...)
	}
	return nil
}

func (p *PipelinePolicy) preferredOrder() []string {
	if pr := p.preferred.Load(); pr != nil {
		return pr.canonical
	}
	return nil
}

// Install adds p to opts.PerRetryPolicies and takes 429 out of the status codes azcore's retry
// policy retries, so that throttling has one retry layer.
//
// p goes ahead of the policies already there, so that the diagnostics attempt policy and any host
// pinning policy run below it and see each attempt; azcore keeps its other retried status codes
// (408, 500, 502, 503, 504). A ShouldRetry already set in opts.Retry is wrapped to return false for
// 429. It also wraps opts.Transport (an http.Client like azcosmos's default when nil) in the
// transport that sends the policy's hedges (see [HedgingOptions]), so set the Transport before
// calling Install. A policy built with Options.Disable installs nothing. The policy routes by
// opts.PreferredRegions (names the account does not have are skipped; empty: the account's readable
// regions in its order), the one list the SDK and the policy share: set it before calling Install,
// and install a policy in one client only.
func (p *PipelinePolicy) Install(opts *azcosmos.ClientOptions) {
	if p.disabled {
		return
	}
	pr := &preferredRegions{names: append([]string(nil), opts.PreferredRegions...)}
	for _, r := range opts.PreferredRegions {
		if c := canonical(r); c != "" {
			pr.canonical = append(pr.canonical, c)
		}
	}
	p.preferred.Store(pr)
	opts.PerRetryPolicies = append([]policy.Policy{p}, opts.PerRetryPolicies...)
	if _, ok := opts.Transport.(*hedgeTransport); !ok {
		next := opts.Transport
		if next == nil {
			next = defaultHTTPClient()
		}
		opts.Transport = &hedgeTransport{next: next}
	}
	if should := opts.Retry.ShouldRetry; should != nil {
		opts.Retry.ShouldRetry = func(resp *http.Response, err error) bool {
			if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
				return false
			}
			return should(resp, err)
		}
		return
	}
	codes := opts.Retry.StatusCodes
	if codes == nil {
		codes = []int{http.StatusRequestTimeout, http.StatusInternalServerError, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout}
	} else {
		kept := make([]int, 0, len(codes))
		for _, c := range codes {
			if c != http.StatusTooManyRequests {
				kept = append(kept, c)
			}
		}
		codes = kept
	}
	opts.Retry.StatusCodes = codes
}

// SetExcludedRegions replaces the client-level excluded regions (names compared like the SDK
// does). It takes effect for requests that start after it returns; safe for concurrent use.
func (p *PipelinePolicy) SetExcludedRegions(regions ...string) {
	p.excluded.Store(&excludedRegions{names: append([]string(nil), regions...), set: canonicalSet(regions)})
}

// ExcludedRegions returns the client-level excluded regions.
func (p *PipelinePolicy) ExcludedRegions() []string {
	return append([]string(nil), p.excluded.Load().names...)
}

// Breakers returns the circuit breakers created so far (one per region, partition and read or
// write, on first use), sorted by name.
func (p *PipelinePolicy) Breakers() []BreakerInfo { return p.br.list() }

// Regions returns the effective read order for a request made with ctx, before circuit breakers are
// applied. It is the preferred regions, or the account's, minus the client's and ctx's excluded
// regions, falling back to the write region. It is empty until the client has read the account
// metadata.
func (p *PipelinePolicy) Regions(ctx context.Context) []string {
	t := p.topo.Load()
	if t == nil {
		return nil
	}
	var names []string
	for _, r := range p.candidates(ctx, t, false) {
		names = append(names, r.name)
	}
	return names
}

// Do implements policy.Policy.
func (p *PipelinePolicy) Do(req *policy.Request) (*http.Response, error) {
	if p.disabled {
		return req.Next()
	}
	raw := req.Raw()
	op := wire.Classify(raw)
	if op.Name == wire.OpReadAccount {
		// No routing and no breaker for the account metadata, but the same throttle budget
		// (azcore no longer retries 429).
		resp, err := p.sendThrottled(req, &throttleState{})
		if err == nil {
			if t := learnTopology(resp); t != nil {
				p.topo.Store(t)
			}
		}
		return resp, err
	}
	if h := unsendable(raw.Header); h != "" {
		return nil, unsendableRequest(op, h)
	}
	// The state of the operation's earlier attempts, if any; a first attempt keeps its state
	// locally and stores it only when the SDK may call again (an error or an error status).
	ops, saved := lookupOpState(req)
	var local opState
	if !saved {
		ops = &local
	}
	resp, err := p.do(req, op, ops)
	if !saved && (err != nil || resp.StatusCode >= 400) {
		s := new(opState)
		*s = local
		req.SetOperationValue(s)
	}
	return resp, err
}

// do routes one attempt of the SDK (see Do).
func (p *PipelinePolicy) do(req *policy.Request, op wire.Operation, ops *opState) (*http.Response, error) {
	raw := req.Raw()
	r := route{op: op, write: op.Write, document: isDocumentOp(op.Name)}
	ctx := raw.Context()
	if id := rangeFromContext(ctx); id != "" && r.document {
		raw.Header.Set(hdrPartitionKeyRangeID, id)
	}
	if id := raw.Header.Get(hdrPartitionKeyRangeID); id != "" && op.Container != "" {
		r.partition = "dbs/" + op.Database + "/colls/" + op.Container + " pkrange " + id
	}
	t := p.topo.Load()
	current := region{host: raw.URL.Host}
	if t != nil {
		if known, ok := t.byHost[current.host]; ok {
			current = known
		}
	}
	var regions []region
	switch {
	case t == nil, ops.followSDK:
		regions = []region{current}
	case !r.write:
		regions = p.candidates(ctx, t, false)
	case r.document && t.multiWrite:
		regions = p.candidates(ctx, t, true)
		// Keep the SDK's choice when it is allowed, so its own write failover keeps working.
		for i, c := range regions {
			if c.host == current.host && i > 0 {
				regions = append([]region{c}, append(regions[:i:i], regions[i+1:]...)...)
				break
			}
		}
	default: // single write region: the SDK's choice
		regions = []region{current}
	}
	pinned := false
	if key := pinnedFromContext(ctx); key != "" && r.write {
		h := p.hedging
		if hc, ok := hedgingFromContext(ctx); ok {
			h = hc
		}
		if !h.Writes || !r.document || t == nil || !t.multiWrite {
			return nil, &finalError{&cosmoserr.Error{Operation: op.Name, Database: op.Database, Container: op.Container,
				Err: errHedgedWrite}}
		}
	}
	if key := pinnedFromContext(ctx); key != "" && !ops.followSDK {
		// A hedged attempt (see Hedge): this region only; the hedge is its failover.
		for _, c := range regions {
			if c.key == key {
				regions, pinned = []region{c}, true
				break
			}
		}
	}
	avail, force := p.available(regions, r)
	st := &ops.throttle
	if r.write {
		// Writes go to one region; failures are the SDK's to retry.
		res := p.attempt(req, avail[0], r, st, force, nil)
		if res.skipped { // half-open with its probe in flight: this is the only route, so go anyway
			res = p.attempt(req, avail[0], r, st, true, nil)
		}
		ops.noteSDKRetry(res.resp)
		return res.resp, res.err
	}
	var last result
	tried := 0
	for i := 0; i < len(avail); i++ {
		c := avail[i]
		var plan *hedgePlan
		if !pinned {
			plan = p.planHedge(ctx, r, avail[i+1:])
		}
		// The last region is forced when every one before it was skipped: the breakers may
		// reorder the routes but never refuse them all.
		res := p.attempt(req, c, r, st, force || (tried == 0 && i == len(avail)-1), plan)
		if res.skipped {
			continue
		}
		tried++
		if plan != nil { // the regions the transport hedged to have had their turn
			tried += plan.launched
			i += plan.launched
		}
		if res.final {
			last.close()
			ops.noteSDKRetry(res.resp)
			return res.resp, res.err
		}
		last.close()
		last = res
	}
	if tried == 1 && !pinned && (!force || len(regions) <= 1) {
		return last.resp, last.err
	}
	// Several regions were tried, or every one is open and the probe of the least recently
	// opened failed: final, so that the SDK does not walk the regions again with its sleeps.
	return nil, last.giveUp()
}

const hdrPartitionKeyRangeID = wire.HeaderPKRangeID

// available returns the regions of regions whose breakers are not open, in order. When every one
// is open it returns the one whose breaker opened first, with force set: it is tried half-open,
// since refusing every route would turn a partial outage into a full one (the other SDKs' circuit
// breakers likewise reorder regions but never leave none).
func (p *PipelinePolicy) available(regions []region, r route) (avail []region, force bool) {
	avail = regions // shared with the route cache: filtered into a copy only when a breaker is open
	for i, c := range regions {
		if isOpen, _ := p.br.open(c, r.partition, r.write); isOpen {
			avail = append(make([]region, 0, len(regions)), regions[:i]...)
			for _, c := range regions[i+1:] {
				if isOpen, _ := p.br.open(c, r.partition, r.write); !isOpen {
					avail = append(avail, c)
				}
			}
			break
		}
	}
	if len(avail) == 0 && len(regions) > 0 {
		return []region{p.br.leastRecentlyOpened(regions, r.partition, r.write)}, true
	}
	return avail, false
}

// opState is what the policy remembers across the attempts of one operation: the Cosmos retry
// policy and azcore's retry policy call it again for their retries, with the same operation values.
type opState struct {
	throttle throttleState
	// followSDK is set once the SDK is retrying for a reason of its own that needs its own choice
	// of endpoint (404/1002 read-session-not-available goes to the write region; 403/3 and 403/1008
	// refresh the account and start again): later attempts keep the SDK's host.
	followSDK bool
}

// lookups holds the **opState that OperationValue fills, so that looking the state up on every
// request allocates nothing.
var lookups = sync.Pool{New: func() any { return new(*opState) }}

// lookupOpState returns the state an earlier attempt of the operation stored, if any.
func lookupOpState(req *policy.Request) (*opState, bool) {
	h := lookups.Get().(**opState)
	*h = nil
	ok := req.OperationValue(h)
	s := *h
	*h = nil
	lookups.Put(h)
	return s, ok && s != nil
}

func (s *opState) noteSDKRetry(resp *http.Response) {
	if resp == nil {
		return
	}
	if wire.SDKRetries(resp.StatusCode, wire.SubStatus(resp.Header)) {
		s.followSDK = true
	}
}

// route is what the policy needs to know about a request.
type route struct {
	op        wire.Operation
	write     bool
	document  bool
	partition string // "" when the request does not name its partition key range
}

func isDocumentOp(name string) bool {
	switch name {
	case wire.OpCreateItem, wire.OpUpsertItem, wire.OpReadItem, wire.OpReplaceItem,
		wire.OpPatchItem, wire.OpDeleteItem, wire.OpQueryItems, wire.OpExecuteBatch,
		wire.OpReadChangeFeed, wire.OpReadAllItems:
		return true
	}
	return false
}

// candidates returns the effective order: preferred (or account) regions minus the client's and
// the request's excluded regions; the write region when that leaves nothing.
// The result may be shared: callers must not modify it.
func (p *PipelinePolicy) candidates(ctx context.Context, t *topology, write bool) []region {
	ex := p.excluded.Load()
	reqEx := excludedFromContext(ctx)
	if reqEx == nil {
		if c := p.routes.Load(); c != nil && c.topo == t && c.excluded == ex {
			if write {
				return c.write
			}
			return c.read
		}
		c := &routeCache{topo: t, excluded: ex, read: p.order(t, false, ex, nil), write: p.order(t, true, ex, nil)}
		p.routes.Store(c)
		if write {
			return c.write
		}
		return c.read
	}
	return p.order(t, write, ex, reqEx)
}

// routeCache holds the effective orders for a topology and client-level exclusion list, the
// common case of requests without exclusions of their own.
type routeCache struct {
	topo        *topology
	excluded    *excludedRegions
	read, write []region
}

func (p *PipelinePolicy) order(t *topology, write bool, ex *excludedRegions, reqEx map[string]bool) []region {
	all := t.readable
	if write {
		all = t.writable
	}
	out := without(ordered(all, p.preferredOrder()), ex.set, reqEx)
	if len(out) == 0 && len(t.writable) > 0 {
		out = []region{t.writable[0]}
	}
	if len(out) == 0 {
		out = append(out, all...)
	}
	return out
}

// result is the outcome of one attempt on one region.
type result struct {
	resp    *http.Response
	err     error
	final   bool // an answer to return (success, a 4xx, an exhausted throttle budget, the caller's cancellation)
	skipped bool // the breaker refused the attempt
	region  string
}

func (r *result) close() {
	if r != nil && r.resp != nil && r.resp.Body != nil {
		r.resp.Body.Close()
	}
}

// giveUp turns the last failure of a region walk into a final error.
func (r *result) giveUp() error {
	if r.err != nil {
		var fe *finalError
		if errors.As(r.err, &fe) {
			return r.err
		}
		var ne net.Error
		timeout := errors.As(r.err, &ne) && ne.Timeout()
		return &finalError{&regionsError{msg: "every region failed; last, " + r.region + ": " + r.err.Error(), timeout: timeout}}
	}
	return &finalError{newResponseError(r.resp)}
}

// attempt sends req to region c through the breaker and the throttle loop;
// force lets it through whatever the breakers say (the last route). With a hedge plan, the
// transport hedges the attempt to the plan's regions (see hedgeTransport).
func (p *PipelinePolicy) attempt(req *policy.Request, c region, r route, st *throttleState, force bool, plan *hedgePlan) result {
	tk, ok := p.br.allow(c, r.partition, r.write, force)
	if !ok {
		return result{skipped: true}
	}
	raw := req.Raw()
	raw.Host = c.host
	raw.URL.Host = c.host
	ctx := raw.Context()
	send := req
	if plan != nil {
		send = req.WithContext(context.WithValue(ctx, hedgePlanKey{}, plan))
	}
	resp, err := p.sendThrottled(send, st) //nolint:bodyclose // the response goes back to the caller in the result
	if plan != nil && plan.winner >= 0 {
		// A hedge answered: this region was slow, not failed, and the answer is the other's.
		tk.record(outcomeNeutral)
		o := classify(ctx, resp, err)
		return result{resp: resp, err: err, final: o == outcomeSuccess || (o == outcomeNeutral && (err != nil || ctx.Err() != nil)),
			region: plan.regions[plan.winner].name}
	}
	if err != nil {
		// Headers from policy.WithHTTPHeader are added below this policy, into this request's
		// header map: a request they made unsendable failed for its own sake, not the region's.
		if h := unsendable(raw.Header); h != "" {
			tk.record(outcomeNeutral)
			return result{err: unsendableRequest(r.op, h), final: true, region: c.name}
		}
	}
	o := classify(ctx, resp, err)
	tk.record(o)
	final := o == outcomeSuccess || (o == outcomeNeutral && (err != nil || ctx.Err() != nil))
	name := c.name
	if name == "" {
		name = c.host
	}
	return result{resp: resp, err: err, final: final, region: name}
}
