package retry

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// HedgeStats counts what the policy's own hedging of reads did (see [HedgingOptions]): it does not
// count operations run through [Hedge].
type HedgeStats struct {
	// Hedged is the number of reads that sent at least one hedge.
	Hedged uint64
	// Sent is the number of hedges sent (requests to another region while an earlier one of the
	// same read had no answer yet).
	Sent uint64
	// Won is the number of reads answered first by a hedge.
	Won uint64
	// Cancelled is the number of requests cancelled because another request of the same read
	// answered first.
	Cancelled uint64
}

type hedgeCounters struct {
	hedged, sent, won, cancelled atomic.Uint64
}

// HedgeStats returns the counts of the policy's own hedging since it was built.
func (p *PipelinePolicy) HedgeStats() HedgeStats {
	return HedgeStats{Hedged: p.hedges.hedged.Load(), Sent: p.hedges.sent.Load(),
		Won: p.hedges.won.Load(), Cancelled: p.hedges.cancelled.Load()}
}

// hedgePlan is what the policy tells its transport about one attempt of a hedged read: the regions
// to hedge to, in order, after the attempt's own. The transport fills in what it did.
type hedgePlan struct {
	regions   []region // hedge targets, after the attempt's own region
	threshold time.Duration
	step      time.Duration
	counters  *hedgeCounters

	// Set by the transport, read by the policy after the attempt returns.
	launched int // hedges sent (regions[:launched])
	winner   int // -1: the attempt's own region answered; else the index in regions
}

type hedgePlanKey struct{}

func hedgePlanFrom(ctx context.Context) *hedgePlan {
	p, _ := ctx.Value(hedgePlanKey{}).(*hedgePlan)
	return p
}

// hedgeable reports whether an operation is one the policy hedges on its own: document reads
// (point reads, queries including ReadMany and the cross-partition, vector and text searches'
// pages, read all), not the change feed, metadata or writes.
func hedgeable(op wire.Operation) bool {
	switch op.Name {
	case wire.OpReadItem, wire.OpQueryItems, wire.OpReadAllItems:
		return !op.Write
	}
	return false
}

// planHedge returns the hedge plan for a read attempt in region c, whose later candidates are rest,
// or nil when the read is not hedged: hedging off (for the client, or for ctx with WithoutHedging
// or WithHedging), an attempt already pinned by Hedge, or nowhere else to go.
func (p *PipelinePolicy) planHedge(ctx context.Context, r route, rest []region) *hedgePlan {
	if r.write || !hedgeable(r.op) || len(rest) == 0 || pinnedFromContext(ctx) != "" {
		return nil
	}
	h := p.hedging
	if hc, ok := hedgingFromContext(ctx); ok {
		h = hc
	}
	if !h.Enable {
		return nil
	}
	h = h.withDefaults()
	return &hedgePlan{regions: rest, threshold: h.Threshold, step: h.Step, counters: &p.hedges, winner: -1}
}

// hedgeTransport is the transport [PipelinePolicy.Install] wraps around the client's: a request
// whose context carries a hedge plan is sent to its own region and, while no final answer has come,
// to the plan's regions after the threshold and every step (at once after a transient failure);
// the first final answer wins and the other requests are cancelled before it returns. Other
// requests pass through. It works at the transport so that the requests of one read share no
// pipeline state (azcore's per-operation values are not safe for concurrent use).
type hedgeTransport struct {
	next policy.Transporter
}

// Do implements policy.Transporter.
func (t *hedgeTransport) Do(req *http.Request) (*http.Response, error) {
	plan := hedgePlanFrom(req.Context())
	if plan == nil {
		return t.next.Do(req)
	}
	return t.hedge(req, plan)
}

// CloseIdleConnections closes the wrapped transport's idle connections, if it can.
func (t *hedgeTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (t *hedgeTransport) hedge(req *http.Request, plan *hedgePlan) (*http.Response, error) {
	ctx := req.Context()
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		body = b
	}
	type answer struct {
		resp *http.Response
		err  error
		i    int // -1: the attempt's own region
	}
	n := 1 + len(plan.regions)
	answers := make(chan answer, n)
	cancels := make([]context.CancelFunc, 0, n)
	launch := func() {
		i := len(cancels) - 1
		actx, cancel := context.WithCancel(ctx)
		cancels = append(cancels, cancel)
		r := req.Clone(actx)
		if i >= 0 {
			r.URL.Host = plan.regions[i].host
			r.Host = plan.regions[i].host
		}
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		go func() {
			resp, err := t.next.Do(r) //nolint:bodyclose // closed by the loser's drain or returned
			answers <- answer{resp, err, i}
		}()
	}
	pending := 0
	finish := func(win answer) (*http.Response, error) {
		for i, c := range cancels {
			if i-1 != win.i {
				c()
			}
		}
		for ; pending > 0; pending-- {
			a := <-answers
			if a.resp != nil && a.resp.Body != nil {
				a.resp.Body.Close()
			}
			if ctx.Err() == nil {
				plan.counters.cancelled.Add(1)
			}
		}
		plan.launched = len(cancels) - 1
		plan.winner = win.i
		if plan.launched > 0 {
			plan.counters.hedged.Add(1)
			plan.counters.sent.Add(uint64(plan.launched))
			if win.i >= 0 && win.err == nil {
				plan.counters.won.Add(1)
			}
		}
		cancel := cancels[win.i+1]
		if win.resp == nil || win.resp.Body == nil {
			cancel()
			return win.resp, win.err
		}
		// The body is read after this returns: the winner's context ends when it is closed.
		win.resp.Body = &cancelOnClose{ReadCloser: win.resp.Body, cancel: cancel}
		return win.resp, win.err
	}
	launch()
	pending++
	timer := time.NewTimer(plan.threshold)
	defer timer.Stop()
	var last answer
	have := false
	for {
		var tick <-chan time.Time
		if len(cancels) < n {
			tick = timer.C
		}
		select {
		case a := <-answers:
			pending--
			if hedgeFinal(ctx, a.resp, a.err) {
				if have && last.resp != nil && last.resp.Body != nil {
					last.resp.Body.Close()
				}
				return finish(a)
			}
			if have && last.resp != nil && last.resp.Body != nil {
				last.resp.Body.Close()
			}
			last, have = a, true
			switch {
			case len(cancels) < n: // a transient failure: hedge at once
				launch()
				pending++
				timer.Reset(plan.step)
			case pending == 0:
				return finish(last)
			}
		case <-tick:
			launch()
			pending++
			timer.Reset(plan.step)
		}
	}
}

// hedgeFinal reports whether an answer ends a hedged read: a response that is not transient (2xx,
// 304, 4xx other than 408, 404/1002, 410, 429 and 449), or the caller's own cancellation.
func hedgeFinal(ctx context.Context, resp *http.Response, err error) bool {
	if err != nil {
		return ctx.Err() != nil
	}
	switch s := resp.StatusCode; {
	case s >= 500, s == http.StatusRequestTimeout, s == http.StatusGone, s == http.StatusTooManyRequests,
		s == wire.StatusRetryWith:
		return false
	case s == http.StatusNotFound:
		return wire.SubStatus(resp.Header) != wire.SubStatusReadSessionNotAvailable
	}
	return true
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
	once   sync.Once
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.once.Do(c.cancel)
	return err
}

// defaultHTTPClient mirrors azcosmos's default HTTP client (cosmos_default_http_client.go, not
// exported: 5 s to connect, 65 s per round trip), for Install to wrap when the options have no
// Transport.
func defaultHTTPClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   10,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		},
		Timeout: 65 * time.Second,
	}
}

// Unwrap returns the transport this one wraps.
func (t *hedgeTransport) Unwrap() policy.Transporter { return t.next }
