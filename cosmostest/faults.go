package cosmostest

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// Fault is a rule that makes the server misbehave for matching requests, so tests can watch how a
// client reacts. Install it with (*Server).InjectFault.
//
// Matchers: every non-zero matcher must match; a zero matcher matches anything. Faults see only
// authenticated requests (a bad signature is always 401), and they run before the request is
// served, so nothing a faulted request asked for is changed unless the fault proceeds (a Delay
// alone).
//
// Action, applied in this order:
//   - Delay: wait this long first. The wait ends early when the client gives up (its request
//     context is cancelled), and then nothing else happens. After the delay, the fault answers
//     with Status or drops the connection if either is set, and otherwise the request proceeds
//     normally (a slow server).
//   - DropConnection: close the connection without answering (HTTP/1.1: hijack and close; HTTP/2:
//     reset the stream), so the client sees an ambiguous transport error (EOF / connection reset):
//     it cannot know whether the request was applied, and it was not.
//   - Status (with SubStatus, Message, RetryAfter, Headers): answer with that error in the
//     service's shape: x-ms-substatus, x-ms-activity-id, x-ms-request-charge 0 and a JSON body
//     {"code": "<the service's code for Status>", "message": "..."}. Typical faults: 429 with
//     RetryAfter (sub-status 3200 is used when SubStatus is 0), 503, 408, 410/1002
//     (PartitionKeyRangeGone), 449 (RetryWith), 500, 403/3 (WriteForbidden).
//
// A Fault with none of Delay, DropConnection and Status does nothing but count Hits.
//
// Frequency: Times > 0 fires on the next Times matching requests and then never again; 0 means
// every matching request. Probability in (0, 1) fires on that fraction of matching requests,
// drawn from a generator seeded with Seed, so a run with the same sequence of requests fires on
// the same ones; 0 (or ≥ 1) means always. With both, the fault fires at most Times times.
//
// When several installed faults match a request, the first installed one that fires wins.
type Fault struct {
	// Region is the region name (compared like the SDK does: case and spaces ignored).
	Region string
	// Operation is the kind of request, e.g. OpReadItem, OpQueryItems, OpCreateItem (internal/wire's names).
	Operation Operation
	// ResourceType is the kind of resource, e.g. ResourceDocument. The account (GET /) has
	// ResourceType "", which matches anything: select it with Operation OpReadAccount.
	ResourceType ResourceType
	// Database and Container are resource ids (not _rids).
	Database  string
	Container string
	// PartitionKeyRangeID is the physical partition: the x-ms-documentdb-partitionkeyrangeid
	// header, or for point operations the range the partition key header maps to.
	PartitionKeyRangeID string
	// Match, if set, must also return true. It runs with the server's lock held, so it must be
	// quick, must not read the body and must not call the Server's methods.
	Match func(*http.Request) bool

	// Status is the HTTP status to answer with (0: do not answer).
	Status int
	// SubStatus is the x-ms-substatus header value (default 0; 3200 for 429).
	SubStatus int
	// Message is the message in the error body. Default: the service's message for common faults,
	// else "cosmostest: injected fault".
	Message string
	// RetryAfter becomes x-ms-retry-after-ms (milliseconds, rounded up) when positive. When 0 the
	// header is absent, and azcore then backs off on its own (0.8 s, 2.4 s, ... for a 429).
	RetryAfter time.Duration
	// Headers are added to the error response, each name spelled as the service spells it (the
	// table of headers.go, else lower case); they cannot replace x-ms-substatus,
	// x-ms-activity-id or x-ms-request-charge.
	Headers http.Header
	// Delay is waited before anything else.
	Delay time.Duration
	// DropConnection closes the connection without a response.
	DropConnection bool

	// Times limits how many requests the fault fires on (0: unlimited).
	Times int
	// Probability is the chance each matching request fires (0: always).
	Probability float64
	// Seed seeds the generator Probability draws from.
	Seed uint64
}

// FaultHandle is an installed fault. Its methods are safe for concurrent use.
type FaultHandle struct {
	srv       *server
	f         Fault
	rng       *rand.Rand
	hits      int // guarded by srv.mu
	cancelled int // guarded by srv.mu
}

// faultSet is the server's installed faults, in installation order; guarded by server.mu.
type faultSet struct {
	list []*FaultHandle
}

// InjectFault installs f and returns its handle. It takes effect for requests whose fault check
// starts after InjectFault returns.
func (s *Server) InjectFault(f Fault) *FaultHandle {
	h := &FaultHandle{srv: s.s, f: f, rng: rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))}
	if f.Headers != nil {
		h.f.Headers = f.Headers.Clone()
	}
	s.s.mu.Lock()
	s.s.faults.list = append(s.s.faults.list, h)
	s.s.mu.Unlock()
	return h
}

// ClearFaults removes every installed fault. Handles keep their Hits.
func (s *Server) ClearFaults() {
	s.s.mu.Lock()
	s.s.faults.list = nil
	s.s.mu.Unlock()
}

// Remove uninstalls the fault; requests already being delayed by it finish their fault. Removing
// twice is a no-op.
func (h *FaultHandle) Remove() {
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	l := h.srv.faults.list
	for i, x := range l {
		if x == h {
			h.srv.faults.list = append(l[:i:i], l[i+1:]...)
			return
		}
	}
}

// Hits returns how many requests the fault fired on.
func (h *FaultHandle) Hits() int {
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	return h.hits
}

// Cancelled returns how many of the fault's delays were cut short because the client gave up
// the request (its context was cancelled or its deadline passed, e.g. the losing leg of a hedged
// read).
func (h *FaultHandle) Cancelled() int {
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	return h.cancelled
}

// matches reports whether the fault's matchers accept rq; callers hold srv.mu. rangeID resolves
// the request's physical partition lazily.
func (f *Fault) matches(rq *request, rangeID func() string) bool {
	switch {
	case f.Region != "" && canonicalRegion(f.Region) != canonicalRegion(rq.Region),
		f.Operation != "" && f.Operation != rq.Operation,
		f.ResourceType != "" && f.ResourceType != rq.ResourceType,
		f.Database != "" && f.Database != rq.Database,
		f.Container != "" && f.Container != rq.Container,
		f.PartitionKeyRangeID != "" && f.PartitionKeyRangeID != rangeID():
		return false
	}
	return f.Match == nil || f.Match(rq.r)
}

// pick returns the first fault that fires for rq and counts its hit; callers hold srv.mu.
func (srv *server) pick(rq *request) *FaultHandle {
	resolved, rangeID := false, ""
	lazyRange := func() string {
		if !resolved {
			resolved, rangeID = true, srv.requestRange(rq)
		}
		return rangeID
	}
	for _, h := range srv.faults.list {
		f := &h.f
		if f.Times > 0 && h.hits >= f.Times {
			continue
		}
		if !f.matches(rq, lazyRange) {
			continue
		}
		if f.Probability > 0 && f.Probability < 1 && h.rng.Float64() >= f.Probability {
			continue
		}
		h.hits++
		return h
	}
	return nil
}

// requestRange is the physical partition a request targets before it is served: the range id
// header, else the range of the partition key header on an existing container; "" if neither.
// Callers hold srv.mu.
func (srv *server) requestRange(rq *request) string {
	if rq.PKRangeID != "" {
		return rq.PKRangeID
	}
	h := rq.hdr(hdrPK)
	if h == "" || rq.Database == "" || rq.Container == "" {
		return ""
	}
	c, err := srv.container(rq.Database, rq.Container)
	if err != nil {
		return ""
	}
	pk, err := parsePartitionKeyHeader(h)
	if err != nil || len(pk) != len(c.pk.Paths) {
		return ""
	}
	return c.rangeFor(pk).id
}

// applyFault carries out h's fault for rq outside srv.mu and reports whether it answered the
// request (true also when the client went away during a delay or the connection was dropped).
func (srv *server) applyFault(rq *request, h *FaultHandle) bool {
	f := &h.f
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-rq.r.Context().Done():
			t.Stop()
			srv.mu.Lock()
			h.cancelled++
			srv.mu.Unlock()
			return true
		}
	}
	switch {
	case f.DropConnection:
		dropConnection(rq.w)
		return true
	case f.Status != 0:
		rq.charge = 0
		rq.fail(faultError(f))
		return true
	}
	return false
}

// dropConnection closes the client's connection without a response: hijack and close on
// HTTP/1.1; on HTTP/2 (no hijacking) abort the handler, which resets the stream.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// faultMessages are the service's messages for the statuses faults usually inject.
var faultMessages = map[int]string{
	http.StatusTooManyRequests:     throttleMessage,
	http.StatusServiceUnavailable:  "Service is currently unavailable. More info: https://aka.ms/cosmosdb-tsg-service-unavailable",
	http.StatusRequestTimeout:      "Request timed out. More info: https://aka.ms/cosmosdb-tsg-request-timeout",
	http.StatusGone:                "The partition key range is gone (split or merged).",
	449:                            "Conflicting request to resource has been attempted. Retry to avoid conflicts.",
	http.StatusInternalServerError: "Unknown server error occurred when processing this request.",
	http.StatusForbidden:           "The requested operation cannot be performed at this region",
}

// faultError is the error response a fault answers with.
func faultError(f *Fault) *statusError {
	msg := f.Message
	if msg == "" {
		msg = faultMessages[f.Status]
	}
	if msg == "" {
		msg = "cosmostest: injected fault"
	}
	sub := f.SubStatus
	if sub == 0 && f.Status == http.StatusTooManyRequests {
		sub = subRUBudgetExceeded
	}
	e := newError(f.Status, sub, "%s", msg)
	e.header = http.Header{}
	if f.RetryAfter > 0 {
		ms := (f.RetryAfter + time.Millisecond - 1) / time.Millisecond
		e.header.Set(hdrRetryAfterMs, strconv.FormatInt(int64(ms), 10))
	}
	for k, v := range f.Headers {
		e.header[spell(k)] = append([]string(nil), v...)
	}
	return e
}
