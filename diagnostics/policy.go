package diagnostics

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/opstate"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Policy is the per-call azcore policy that observes each Cosmos DB operation: install it in
// azcosmos.ClientOptions.PerCallPolicies, with [NewAttemptPolicy] in PerRetryPolicies. It sits
// above azcore's retry policy and the Cosmos region retry, so it sees each operation once, with
// its final outcome. For each operation it
//   - starts a client span "<operation> <container>" with the database semantic conventions
//     (db.system.name=azure.cosmosdb, db.namespace, db.collection.name, db.operation.name,
//     azure.cosmosdb.operation.request_charge, db.response.status_code,
//     azure.cosmosdb.response.sub_status_code, azure.cosmosdb.consistency.level when sent,
//     server.address/server.port of the region endpoint that answered,
//     azure.cosmosdb.operation.contacted_regions with the account's region names (learnt from the
//     account metadata the SDK reads through the policy), azure.cosmosdb.activity_id,
//     db.response.returned_rows for feeds, cosmoskit.partition_key_range_id when the request
//     targets one physical partition, db.query.text only with Options.CaptureQueryText);
//   - records db.client.operation.duration, the request charge, throttles, throttle waits and
//     retries (see the Metric constants), by operation, database, container, status, sub-status
//     and region;
//   - logs a failed operation once with its status, sub-status, activity id, RU and the SDK's
//     diagnostics string (level Warn, never Error: the caller gets the same failure as an error
//     and decides; Debug for 404, 409 and 412 with sub-status 0, which are answers rather than
//     faults, and for cancellations), and a slow
//     (see the latency thresholds) or expensive (RequestChargeThreshold) one at level Warn;
//   - adds the request charge to every [Meter] in the context.
//
// Install it once per client. A Policy is safe for concurrent use by any number of clients; each
// pipeline call is one operation (a point operation, one query or change feed page, one metadata
// read). Use [Policy.StartOperation] for a span over several calls.
type Policy struct {
	opts    Options
	tracer  trace.Tracer
	inst    *instruments
	logger  *slog.Logger
	active  bool // any of tracer, inst, logger
	regions regionNames
	scans   scanState // query shapes warned about (scan.go)
}

// NewPolicy returns the per-call policy configured by o. If the MeterProvider fails to create an
// instrument, metrics are turned off and the failure is logged to o.Logger. Errors: a
// *cosmoserr.ValidationError (matching cosmoserr.ErrValidation) naming the option for a negative
// threshold.
func NewPolicy(o Options) (*Policy, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	p := &Policy{opts: o, logger: o.Logger}
	if o.TracerProvider != nil {
		p.tracer = o.TracerProvider.Tracer(instrumentationName, trace.WithSchemaURL(semconv.SchemaURL))
	}
	if o.MeterProvider != nil {
		in, err := newInstruments(o.MeterProvider)
		if err != nil {
			if o.Logger != nil {
				o.Logger.Warn("cosmoskit: diagnostics metrics disabled", slog.Any("error", err))
			}
		} else {
			p.inst = in
		}
	}
	p.active = p.tracer != nil || p.inst != nil || p.logger != nil
	return p, nil
}

// Options returns the options in effect, the default thresholds filled in.
func (p *Policy) Options() Options {
	o := p.opts
	o.PointLatencyThreshold = o.pointThreshold()
	o.NonPointLatencyThreshold = o.nonPointThreshold()
	return o
}

// Do implements policy.Policy.
func (p *Policy) Do(req *policy.Request) (*http.Response, error) {
	if p.opts.Disable {
		return req.Next()
	}
	raw := req.Raw()
	ctx := raw.Context()
	meter := MeterFromContext(ctx)
	if !p.active && meter == nil {
		if raw.Method == http.MethodGet && (raw.URL.Path == "" || raw.URL.Path == "/") {
			// An account read (every 5 minutes): learn the region names even on the cheap path,
			// for Stats.Region of the calls made with a Meter.
			resp, err := req.Next()
			if err == nil && resp != nil && resp.StatusCode == http.StatusOK {
				p.regions.learn(resp)
			}
			return resp, err
		}
		return req.Next()
	}
	op := wire.Classify(raw)
	st := &opstate.State{Names: &p.regions}
	ctx = opstate.With(ctx, st) // st is the request's context from here down (one allocation)
	var span trace.Span
	var query string
	if p.opts.CaptureQueryText && (p.tracer != nil || p.logger != nil) && isQueryOp(op.Name) {
		query = queryText(req)
	}
	if p.tracer != nil {
		ctx, span = p.startSpan(ctx, raw, op, query)
	}
	start := time.Now()
	resp, err := req.WithContext(ctx).Next()
	d := time.Since(start)

	out := newOutcome(raw, resp, err, st)
	if op.Name == cosmoserr.OpReadAccount && out.status == http.StatusOK && out.resp != nil {
		p.regions.learn(out.resp)
	}
	if p.tracer != nil || p.inst != nil {
		out.regions = p.contactedRegions(st, &out)
	}
	if meter != nil && op.Name != cosmoserr.OpReadAccount {
		meter.add(out.charge, out.attempts, out.throttles, out.throttleWait)
	}
	if op.Name == cosmoserr.OpQueryItems && out.status == http.StatusOK && out.resp != nil {
		p.observeQuery(ctx, req, op, out.resp, meter)
	}
	if span != nil {
		endSpan(span, out)
	}
	if p.inst != nil {
		p.inst.record(ctx, op, &out, d)
	}
	if p.logger != nil {
		p.log(ctx, raw, op, &out, d, query, st) // names the regions only when it writes a record
	}
	return resp, err
}

// contactedRegions returns the names of the regions the operation's attempts went to (the host
// that answered when no attempt policy is installed below).
func (p *Policy) contactedRegions(st *opstate.State, out *outcome) []string {
	hosts := st.Contacted()
	if len(hosts) == 0 { // no attempt policy below
		hosts = []string{out.hostport}
	}
	return p.regions.names(hosts)
}

// CircuitBreakerStateChanged records that the circuit breaker named name (e.g. a region endpoint)
// moved from one state to another: a MetricCircuitBreakerStateChanges count and a warning log
// record. The retry package calls it.
func (p *Policy) CircuitBreakerStateChanged(ctx context.Context, name, from, to string) {
	if p.inst != nil {
		p.inst.breaker.Add(ctx, 1, metric.WithAttributes(
			attribute.String(keySystemName, valSystemName),
			attribute.String(keyServerAddress, name),
			attribute.String(keyBreakerFrom, from),
			attribute.String(keyBreakerState, to)))
	}
	if p.logger != nil {
		p.logger.LogAttrs(ctx, slog.LevelWarn, "cosmoskit: circuit breaker state changed",
			slog.String("name", name), slog.String("from", from), slog.String("to", to))
	}
}

func (p *Policy) startSpan(ctx context.Context, raw *http.Request, op wire.Operation, query string) (context.Context, trace.Span) {
	name := op.Name
	if op.Container != "" {
		name += " " + op.Container
	} else if op.Database != "" {
		name += " " + op.Database
	}
	attrs := make([]attribute.KeyValue, 0, 10)
	attrs = append(attrs,
		attribute.String(keySystemName, valSystemName),
		attribute.String(keyOperation, op.Name),
		attribute.String(keyConnMode, "gateway"),
	)
	if op.Database != "" {
		attrs = append(attrs, attribute.String(keyNamespace, op.Database))
	}
	if op.Container != "" {
		attrs = append(attrs, attribute.String(keyCollection, op.Container))
	}
	if host, port := splitHost(raw.URL.Host); host != "" {
		attrs = append(attrs, attribute.String(keyServerAddress, host))
		if port > 0 {
			attrs = append(attrs, attribute.Int(keyServerPort, port))
		}
	}
	if cl := raw.Header.Get(wire.HeaderConsistency); cl != "" {
		attrs = append(attrs, attribute.String(keyConsistency, cl))
	}
	if id := raw.Header.Get(wire.HeaderPKRangeID); id != "" {
		attrs = append(attrs, attribute.String(keyPKRangeID, id))
	}
	if query != "" {
		attrs = append(attrs, attribute.String(keyQueryText, query))
	}
	return p.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

func endSpan(span trace.Span, out outcome) {
	if span.IsRecording() {
		attrs := make([]attribute.KeyValue, 0, 10)
		attrs = append(attrs, attribute.Float64(keyRequestCharge, out.charge))
		if out.host != "" {
			attrs = append(attrs, attribute.String(keyServerAddress, out.host))
			if out.port > 0 {
				attrs = append(attrs, attribute.Int(keyServerPort, out.port))
			}
		}
		if out.status != 0 {
			attrs = append(attrs, attribute.String(keyStatusCode, out.statusString()),
				attribute.Int(keySubStatus, out.sub))
		}
		if out.activityID != "" {
			attrs = append(attrs, attribute.String(keyActivityID, out.activityID))
		}
		if len(out.regions) > 0 {
			attrs = append(attrs, attribute.StringSlice(keyContactedRegions, out.regions))
		}
		if out.rows >= 0 {
			attrs = append(attrs, attribute.Int(keyReturnedRows, out.rows))
		}
		if out.attempts > 1 {
			attrs = append(attrs, attribute.Int(keyAttempts, out.attempts))
		}
		if out.throttles > 0 {
			attrs = append(attrs, attribute.Int(keyThrottles, out.throttles))
		}
		if et := out.errorType(); et != "" {
			attrs = append(attrs, attribute.String(keyErrorType, et))
		}
		span.SetAttributes(attrs...)
		if out.failed() && !out.expected() {
			desc := http.StatusText(out.status)
			if out.status == 0 && out.err != nil {
				desc = out.errorType()
			}
			span.SetStatus(codes.Error, desc)
		}
	}
	span.End()
}

// outcome is the final result of one operation, as the per-call policy sees it.
type outcome struct {
	status, sub  int
	activityID   string
	charge       float64
	retryAfter   time.Duration
	attempts     int
	throttles    int
	throttleWait time.Duration
	groupWait    time.Duration // spent waiting for a throughput group's budget, before sending
	consistency  string        // the x-ms-consistency-level the request sent, "" if none
	hostport     string        // host[:port] of the endpoint that answered last
	host         string
	port         int
	regions      []string // names of the regions contacted, when known
	rows         int      // x-ms-item-count, -1 when absent
	err          error    // the pipeline's error, nil when a response came back
	resp         *http.Response
}

func newOutcome(raw *http.Request, resp *http.Response, err error, st *opstate.State) outcome {
	out := outcome{rows: -1, err: err, consistency: raw.Header.Get(wire.HeaderConsistency)}
	final := resp
	if final == nil && err != nil {
		var re *azcore.ResponseError
		if errors.As(err, &re) {
			final = re.RawResponse
			out.status = re.StatusCode
		}
	}
	s := snapshot(st)
	out.attempts, out.throttles, out.throttleWait, out.groupWait = s.Attempts, s.Throttles, s.ThrottleWait, s.GroupWait
	host := s.Host
	if final != nil {
		out.resp = final
		if out.status == 0 {
			out.status = final.StatusCode
		}
		h := final.Header
		out.sub = wire.SubStatus(h)
		out.activityID = h.Get(wire.HeaderActivityID)
		out.retryAfter = wire.RetryAfter(h, time.Now)
		if s.Attempts > 0 {
			out.charge = s.RequestCharge
		} else {
			out.charge = wire.RequestCharge(h)
		}
		if v := h.Get(wire.HeaderItemCount); v != "" {
			if n, err := strconv.Atoi(v); err == nil {
				out.rows = n
			}
		}
		if final.Request != nil && final.Request.URL != nil {
			host = final.Request.URL.Host
		}
	} else {
		out.charge = s.RequestCharge
	}
	if out.activityID == "" {
		out.activityID = raw.Header.Get(wire.HeaderActivityID)
	}
	if host == "" {
		host = raw.URL.Host
	}
	out.hostport = host
	out.host, out.port = splitHost(host)
	return out
}

func (o *outcome) statusString() string {
	return strconv.Itoa(o.status)
}

// failed reports a status of 400 or more, or no response at all.
func (o *outcome) failed() bool {
	return o.status >= 400 || (o.status == 0 && o.err != nil)
}

// expected reports outcomes that are answers rather than faults: 404, 409 and 412 with sub-status
// 0 (a missing item, a duplicate id, a lost ETag race), and the caller's own cancellation.
func (o *outcome) expected() bool {
	switch o.status {
	case http.StatusNotFound, http.StatusConflict, http.StatusPreconditionFailed:
		return o.sub == 0
	case 0:
		return errors.Is(o.err, context.Canceled)
	}
	return false
}

// errorType is the error.type attribute: the status code for an error status, else a short class
// of the transport error, "" on success.
func (o *outcome) errorType() string {
	switch {
	case o.status >= 400:
		return o.statusString()
	case o.status != 0 || o.err == nil:
		return ""
	case errors.Is(o.err, context.Canceled):
		return "canceled"
	case cosmoserr.IsTimeout(o.err):
		return "timeout"
	default:
		var ne net.Error
		if errors.As(o.err, &ne) {
			return "transport"
		}
		return "_OTHER"
	}
}

func splitHost(hostport string) (string, int) {
	host, portStr, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport, 0
	}
	port, _ := strconv.Atoi(portStr)
	return host, port
}

func isQueryOp(name string) bool {
	return name == cosmoserr.OpQueryItems || name == cosmoserr.OpQueryContainers || name == cosmoserr.OpQueryDatabases || name == cosmoserr.OpQueryOffers
}

// queryText reads the "query" member of a query request body, never its parameters, and rewinds
// the body for the policies below.
func queryText(req *policy.Request) string {
	body := req.Body()
	if body == nil {
		return ""
	}
	b, err := io.ReadAll(body)
	if rerr := req.RewindBody(); rerr != nil || err != nil {
		return ""
	}
	var q struct {
		Query string `json:"query"`
	}
	if json.Unmarshal(b, &q) != nil {
		return ""
	}
	return q.Query
}
