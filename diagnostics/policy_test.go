package diagnostics_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/internal/opstate"
)

// harness is a real azcosmos client against cosmostest with the diagnostics policies installed,
// recording spans, metrics and logs in memory.
type harness struct {
	server    *cosmostest.Server
	spans     *tracetest.SpanRecorder
	reader    *sdkmetric.ManualReader
	logs      *syncBuffer
	policy    *diagnostics.Policy
	client    *azcosmos.Client
	container *azcosmos.ContainerClient
}

type harnessConfig struct {
	opts      diagnostics.Options
	perRetry  []policy.Policy // installed below the attempt policy
	retry     *policy.RetryOptions
	key       string   // client key; "" means the server's
	preferred []string // ClientOptions.PreferredRegions
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a slog handler.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// records decodes the JSON log records.
func (b *syncBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func newHarness(t *testing.T, cfg harnessConfig, serverOpts ...cosmostest.Option) *harness {
	t.Helper()
	h := &harness{
		server: cosmostest.NewServer(t, serverOpts...),
		spans:  tracetest.NewSpanRecorder(),
		reader: sdkmetric.NewManualReader(),
		logs:   &syncBuffer{},
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	o := cfg.opts
	o.TracerProvider = tp
	o.MeterProvider = mp
	o.Logger = slog.New(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h.policy = mustPolicy(t, o)

	copts := h.server.ClientOptions()
	copts.PerCallPolicies = append(copts.PerCallPolicies, h.policy)
	copts.PerRetryPolicies = append(copts.PerRetryPolicies, diagnostics.NewAttemptPolicy())
	copts.PerRetryPolicies = append(copts.PerRetryPolicies, cfg.perRetry...)
	copts.TracingProvider = diagnostics.TracingProvider(tp)
	if cfg.retry != nil {
		copts.Retry = *cfg.retry
	}
	copts.PreferredRegions = cfg.preferred
	key := cfg.key
	if key == "" {
		key = h.server.Key()
	}
	cred, err := azcosmos.NewKeyCredential(key)
	if err != nil {
		t.Fatal(err)
	}
	h.client, err = azcosmos.NewClientWithKey(h.server.Endpoint(), cred, copts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// setup creates db1/c1 (partition key /pk) with the server's own key, so that a harness whose
// client uses a wrong key still has something to fail against.
func (h *harness) setup(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	admin, err := azcosmos.NewClientFromConnectionString(h.server.ConnectionString(), h.server.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db1"}, nil); err != nil {
		t.Fatalf("create database: %v", err)
	}
	db, err := admin.NewDatabase("db1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c1",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatalf("create container: %v", err)
	}
	h.container, err = h.client.NewContainer("db1", "c1")
	if err != nil {
		t.Fatal(err)
	}
}

func (h *harness) upsert(ctx context.Context, t *testing.T, id string) azcosmos.ItemResponse {
	t.Helper()
	resp, err := h.container.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p1"),
		[]byte(`{"id":"`+id+`","pk":"p1","n":1}`), nil)
	if err != nil {
		t.Fatalf("upsert %s: %v", id, err)
	}
	return resp
}

// spansNamed returns the ended spans with that name.
func (h *harness) spansNamed(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range h.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value // later values (set at the end) win
	}
	return m
}

func (h *harness) metrics(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := h.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

func hasAttr(set attribute.Set, k string, want attribute.Value) bool {
	v, ok := set.Value(attribute.Key(k))
	return ok && v == want
}

func TestPolicyReadItemSpansAndMetrics(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.setup(t)
	ctx := context.Background()
	h.upsert(ctx, t, "a")
	read, err := h.container.ReadItem(ctx, azcosmos.NewPartitionKeyString("p1"), "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, missErr := h.container.ReadItem(ctx, azcosmos.NewPartitionKeyString("p1"), "missing", nil)
	if missErr == nil {
		t.Fatal("reading a missing item succeeded")
	}

	reads := h.spansNamed("read_item c1")
	if len(reads) != 2 {
		t.Fatalf("got %d read_item spans, want 2; all: %v", len(reads), spanNames(h.spans.Ended()))
	}
	ok, miss := attrs(reads[0]), attrs(reads[1])
	want := map[attribute.Key]attribute.Value{
		"db.system.name":                          attribute.StringValue("azure.cosmosdb"),
		"db.namespace":                            attribute.StringValue("db1"),
		"db.collection.name":                      attribute.StringValue("c1"),
		"db.operation.name":                       attribute.StringValue("read_item"),
		"db.response.status_code":                 attribute.StringValue("200"),
		"azure.cosmosdb.response.sub_status_code": attribute.IntValue(0),
		"azure.cosmosdb.operation.request_charge": attribute.Float64Value(float64(read.RequestCharge)),
		"azure.cosmosdb.connection.mode":          attribute.StringValue("gateway"),
		"azure.cosmosdb.activity_id":              attribute.StringValue(read.ActivityID),
		"server.address":                          attribute.StringValue("127.0.0.1"),
	}
	for k, v := range want {
		if ok[k] != v {
			t.Errorf("read_item span %s = %v, want %v", k, ok[k].String(), v.String())
		}
	}
	if read.RequestCharge <= 0 {
		t.Errorf("read charge %v, want > 0", read.RequestCharge)
	}
	if reads[0].SpanKind() != trace.SpanKindClient || reads[0].Status().Code != codes.Unset {
		t.Errorf("read_item span kind %v status %v", reads[0].SpanKind(), reads[0].Status())
	}
	if _, has := ok["db.query.text"]; has {
		t.Error("db.query.text set on a point read")
	}
	// A 404 is an answer, not a fault: recorded with error.type but the span status stays unset.
	if miss["db.response.status_code"] != attribute.StringValue("404") || miss["error.type"] != attribute.StringValue("404") {
		t.Errorf("404 span attrs: status %v error.type %v", miss["db.response.status_code"].String(), miss["error.type"].String())
	}
	if reads[1].Status().Code != codes.Unset {
		t.Errorf("404 span status = %v, want Unset", reads[1].Status())
	}

	// The SDK's HTTP span joins the trace as a child of the policy's span; its own operation
	// span is dropped.
	var httpChild bool
	for _, s := range h.spansNamed("HTTP GET") {
		if s.Parent().SpanID() == reads[0].SpanContext().SpanID() && s.SpanContext().TraceID() == reads[0].SpanContext().TraceID() {
			httpChild = true
		}
	}
	if !httpChild {
		t.Errorf("no HTTP GET span under read_item; spans: %v", spanNames(h.spans.Ended()))
	}
	for _, s := range h.spans.Ended() {
		for _, kv := range s.Attributes() {
			if kv.Key == "db.system" {
				t.Errorf("span %q carries the SDK's old db.system attribute", s.Name())
			}
		}
	}

	// The error the caller gets carries what the service said.
	err = cosmoserr.FromError("", missErr)
	var de *cosmoserr.Error
	if !errors.As(err, &de) || !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Fatalf("FromError(404) = %v", err)
	}
	if de.Operation != "read_item" || de.Container != "c1" || de.ActivityID == "" || de.Attempts != 1 {
		t.Errorf("404 error fields: %+v", de)
	}
	if miss["azure.cosmosdb.activity_id"] != attribute.StringValue(de.ActivityID) {
		t.Errorf("span activity id %v, error activity id %v", miss["azure.cosmosdb.activity_id"].String(), de.ActivityID)
	}
	if !strings.Contains(de.Diagnostics.String(), "read_item") {
		t.Errorf("error diagnostics %q do not name the operation", de.Diagnostics.String())
	}

	// Metrics: one duration point per (operation, status), request charge summed.
	ms := h.metrics(t)
	dur, ok2 := ms["db.client.operation.duration"].Data.(metricdata.Histogram[float64])
	if !ok2 {
		t.Fatalf("db.client.operation.duration missing or not a float histogram: %v", ms)
	}
	if ms["db.client.operation.duration"].Unit != "s" {
		t.Errorf("duration unit %q", ms["db.client.operation.duration"].Unit)
	}
	counts := map[string]uint64{}
	for _, dp := range dur.DataPoints {
		if hasAttr(dp.Attributes, "db.operation.name", attribute.StringValue("read_item")) &&
			hasAttr(dp.Attributes, "db.collection.name", attribute.StringValue("c1")) &&
			hasAttr(dp.Attributes, "server.address", attribute.StringValue("127.0.0.1")) {
			v, _ := dp.Attributes.Value("db.response.status_code")
			counts[v.AsString()] += dp.Count
		}
	}
	if counts["200"] != 1 || counts["404"] != 1 {
		t.Errorf("read_item duration counts by status = %v, want 200:1 404:1", counts)
	}
	charge, ok3 := ms["azure.cosmosdb.client.operation.request_charge"].Data.(metricdata.Histogram[float64])
	if !ok3 {
		t.Fatalf("request charge metric missing")
	}
	var sum float64
	for _, dp := range charge.DataPoints {
		if hasAttr(dp.Attributes, "db.operation.name", attribute.StringValue("read_item")) &&
			hasAttr(dp.Attributes, "db.response.status_code", attribute.StringValue("200")) {
			sum += dp.Sum
		}
	}
	if sum != float64(read.RequestCharge) {
		t.Errorf("read_item request charge metric sum = %v, want %v", sum, read.RequestCharge)
	}

	// The 404 is logged once, at debug level, with what support needs.
	var failures []map[string]any
	for _, r := range h.logs.records(t) {
		if r["msg"] == "cosmoskit: operation failed" {
			failures = append(failures, r)
		}
	}
	if len(failures) != 1 {
		t.Fatalf("got %d failure records, want 1: %s", len(failures), h.logs.String())
	}
	f := failures[0]
	if f["level"] != "DEBUG" || f["status"] != float64(404) || f["activity_id"] != de.ActivityID ||
		f["db.operation.name"] != "read_item" || !strings.Contains(f["diagnostics"].(string), "read_item") {
		t.Errorf("404 record = %v", f)
	}
}

func spanNames(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

func TestPolicyQueryText(t *testing.T) {
	for _, capture := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "capture"}[capture], func(t *testing.T) {
			h := newHarness(t, harnessConfig{opts: diagnostics.Options{CaptureQueryText: capture}})
			h.setup(t)
			ctx := context.Background()
			h.upsert(ctx, t, "a")
			const text = "SELECT * FROM c WHERE c.n = @n"
			pager := h.container.NewQueryItemsPager(text, azcosmos.NewPartitionKeyString("p1"),
				&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@n", Value: "secret-parameter-value"}}})
			var n int
			for pager.More() {
				page, err := pager.NextPage(ctx)
				if err != nil {
					t.Fatal(err)
				}
				n += len(page.Items)
			}
			qs := h.spansNamed("query_items c1")
			if len(qs) == 0 {
				t.Fatalf("no query_items span; spans: %v", spanNames(h.spans.Ended()))
			}
			a := attrs(qs[0])
			got, has := a["db.query.text"]
			if capture && got.AsString() != text {
				t.Errorf("db.query.text = %q, want %q", got.AsString(), text)
			}
			if !capture && has {
				t.Errorf("db.query.text recorded without CaptureQueryText: %q", got.AsString())
			}
			if rows, ok := a["db.response.returned_rows"]; !ok || rows.AsInt64() != int64(n) {
				t.Errorf("db.response.returned_rows = %v, want %d", rows.String(), n)
			}
			for _, s := range h.spans.Ended() {
				for _, kv := range s.Attributes() {
					if strings.Contains(kv.Value.String(), "secret-parameter-value") {
						t.Errorf("span %q attribute %s carries a parameter value", s.Name(), kv.Key)
					}
				}
			}
		})
	}
}

func TestPolicyMeter(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.setup(t)
	ctx, m := diagnostics.WithMeter(context.Background())
	var want float32
	want += h.upsert(ctx, t, "a").RequestCharge
	want += h.upsert(ctx, t, "b").RequestCharge
	r, err := h.container.ReadItem(ctx, azcosmos.NewPartitionKeyString("p1"), "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	want += r.RequestCharge
	h.upsert(context.Background(), t, "c") // not in the unit of work
	if m.Requests() != 3 {
		t.Errorf("Requests = %d, want 3", m.Requests())
	}
	if got := m.RequestCharge(); float32(got) != want || got <= 0 {
		t.Errorf("RequestCharge = %v, want %v", got, want)
	}
}

// TestMeterWithoutProviders checks the cheap path (no tracer, meter provider or logger) still
// feeds meters.
func TestMeterWithoutProviders(t *testing.T) {
	s := cosmostest.NewServer(t)
	copts := s.ClientOptions()
	copts.PerCallPolicies = append(copts.PerCallPolicies, mustPolicy(t, diagnostics.Options{}))
	cred, _ := azcosmos.NewKeyCredential(s.Key())
	client, err := azcosmos.NewClientWithKey(s.Endpoint(), cred, copts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, m := diagnostics.WithMeter(context.Background())
	resp, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Requests() != 1 || m.RequestCharge() != float64(resp.RequestCharge) {
		t.Errorf("meter = %d requests %v RU, want 1 and %v", m.Requests(), m.RequestCharge(), resp.RequestCharge)
	}
}

func TestPolicyThresholdLogs(t *testing.T) {
	h := newHarness(t, harnessConfig{opts: diagnostics.Options{
		PointLatencyThreshold:    1, // 1ns: every point operation is slow
		NonPointLatencyThreshold: 1 << 62,
		RequestChargeThreshold:   0.0001,
	}})
	h.setup(t)
	ctx := context.Background()
	h.upsert(ctx, t, "a")
	pager := h.container.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKeyString("p1"), nil)
	for pager.More() {
		if _, err := pager.NextPage(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var slow, expensive []map[string]any
	for _, r := range h.logs.records(t) {
		switch r["msg"] {
		case "cosmoskit: slow operation":
			slow = append(slow, r)
		case "cosmoskit: expensive operation":
			expensive = append(expensive, r)
		}
	}
	if len(slow) != 1 || slow[0]["db.operation.name"] != "upsert_item" || slow[0]["level"] != "WARN" {
		t.Fatalf("slow records = %v", slow)
	}
	if d, _ := slow[0]["diagnostics"].(string); !strings.Contains(d, "upsert_item c1") {
		t.Errorf("slow record diagnostics = %q", d)
	}
	var queryExpensive bool
	for _, r := range expensive {
		if r["db.operation.name"] == "query_items" && r["request_charge"].(float64) > 0 {
			queryExpensive = true
		}
	}
	if !queryExpensive {
		t.Errorf("no expensive record for the query: %v", expensive)
	}
}

// waitReporter plays the retry package: for each 429 attempt it reports the wait the server asked
// for with opstate.AddThrottleWait (azcore's retry policy above it then waits that long).
type waitReporter struct{}

func (waitReporter) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
		ms, _ := strconv.Atoi(resp.Header.Get("x-ms-retry-after-ms"))
		opstate.AddThrottleWait(req.Raw().Context(), time.Duration(ms)*time.Millisecond)
	}
	return resp, err
}

// throttleReads makes the server answer the next n document reads of c1 with 429/3200 and a
// retry-after of 1 ms.
func throttleReads(h *harness, n int) *cosmostest.FaultHandle {
	return h.server.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
		Container: "c1", Status: http.StatusTooManyRequests, RetryAfter: time.Millisecond, Times: n})
}

func TestPolicyThrottled(t *testing.T) {
	t.Run("retried", func(t *testing.T) {
		h := newHarness(t, harnessConfig{perRetry: []policy.Policy{waitReporter{}}})
		h.setup(t)
		ctx, m := diagnostics.WithMeter(context.Background())
		h.upsert(ctx, t, "a")
		fault := throttleReads(h, 2)
		h.server.ResetRequests()
		if _, err := h.container.ReadItem(ctx, azcosmos.NewPartitionKeyString("p1"), "a", nil); err != nil {
			t.Fatal(err)
		}
		if fault.Hits() != 2 {
			t.Fatalf("fault fired %d times, want 2", fault.Hits())
		}
		sent := h.server.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReadItem})
		spans := h.spansNamed("read_item c1")
		if len(spans) != 1 {
			t.Fatalf("read_item spans: %d", len(spans))
		}
		a := attrs(spans[0])
		if a["db.response.status_code"] != attribute.StringValue("200") || a["cosmoskit.throttles"] != attribute.IntValue(2) ||
			a["cosmoskit.attempts"] != attribute.IntValue(sent) || sent != 3 {
			t.Errorf("span attrs status %v throttles %v attempts %v; server saw %d reads",
				a["db.response.status_code"].String(), a["cosmoskit.throttles"].String(), a["cosmoskit.attempts"].String(), sent)
		}
		var events int
		for _, e := range spans[0].Events() {
			if e.Name == "cosmoskit.throttled" {
				events++
			}
		}
		if events != 2 {
			t.Errorf("throttled events = %d, want 2", events)
		}
		if m.Throttles() != 2 || m.Requests() != 2 {
			t.Errorf("meter throttles %d requests %d, want 2 and 2", m.Throttles(), m.Requests())
		}
		if got, want := m.ThrottleWait(), 2*time.Millisecond; got != want {
			t.Errorf("meter ThrottleWait = %v, want %v (the two 1 ms retry hints)", got, want)
		}
		ms := h.metrics(t)
		if got := sumCounter(t, ms["cosmoskit.client.throttled_requests"], "read_item"); got != 2 {
			t.Errorf("throttled_requests = %d, want 2", got)
		}
		if got := sumCounter(t, ms["cosmoskit.client.retries"], "read_item"); got != 2 {
			t.Errorf("retries = %d, want 2", got)
		}
		if wait, ok := ms["cosmoskit.client.throttle_wait"].Data.(metricdata.Sum[float64]); !ok || len(wait.DataPoints) != 1 || wait.DataPoints[0].Value != 0.002 {
			t.Errorf("throttle_wait = %+v, want one point of 0.002 s", ms["cosmoskit.client.throttle_wait"].Data)
		}
	})
	t.Run("exhausted", func(t *testing.T) {
		h := newHarness(t, harnessConfig{retry: &policy.RetryOptions{MaxRetries: 1}})
		h.setup(t)
		h.upsert(context.Background(), t, "a")
		throttleReads(h, 0)
		_, err := h.container.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("p1"), "a", nil)
		err = cosmoserr.FromError("", err)
		var de *cosmoserr.Error
		if !errors.As(err, &de) || !errors.Is(err, cosmoserr.ErrThrottled) {
			t.Fatalf("err = %v, want ErrThrottled", err)
		}
		if de.Attempts != 2 || de.SubStatus != 3200 || de.RetryAfter != time.Millisecond || !cosmoserr.IsRetryable(err) ||
			de.ActivityID == "" || !strings.Contains(de.Message, "Request rate is large") {
			t.Errorf("throttled error: %+v", de)
		}
		var raw *azcore.ResponseError
		if !errors.As(err, &raw) || raw.StatusCode != 429 {
			t.Errorf("does not unwrap to the 429 *azcore.ResponseError: %v", raw)
		}
		spans := h.spansNamed("read_item c1")
		if len(spans) != 1 || spans[0].Status().Code != codes.Error || attrs(spans[0])["error.type"] != attribute.StringValue("429") {
			t.Errorf("throttled span: %v", spans)
		}
		var warned bool
		for _, r := range h.logs.records(t) {
			if r["msg"] == "cosmoskit: operation failed" && r["level"] == "WARN" && r["status"] == float64(429) &&
				r["throttles"] == float64(2) && r["sub_status"] == float64(3200) && r["activity_id"] == de.ActivityID {
				warned = true
			}
		}
		if !warned {
			t.Errorf("no WARN record for the final 429: %s", h.logs.String())
		}
	})
}

func sumCounter(t *testing.T, m metricdata.Metrics, op string) int64 {
	t.Helper()
	sum, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s: not an int64 sum: %T", m.Name, m.Data)
	}
	var n int64
	for _, dp := range sum.DataPoints {
		if hasAttr(dp.Attributes, "db.operation.name", attribute.StringValue(op)) {
			n += dp.Value
		}
	}
	return n
}

// TestKeyNeverLeaks runs successful and failing calls, including a client with a wrong key, with
// debug logging, and checks that neither key appears in any log record, error message, span or
// diagnostics string.
func TestKeyNeverLeaks(t *testing.T) {
	const serverKey = "c2VydmVyLWtleS1zZXJ2ZXIta2V5LXNlcnZlci1rZXktc2VydmVyLWtleS0xMjM0NTY3ODkw"
	const wrongKey = "d3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXktd3Jvbmcta2V5LXdyb25nLWtleS0xMjM="
	var outputs []string

	good := newHarness(t, harnessConfig{opts: diagnostics.Options{CaptureQueryText: true, PointLatencyThreshold: 1}}, cosmostest.WithKey(serverKey))
	good.setup(t)
	ctx := context.Background()
	good.upsert(ctx, t, "a")
	_, err := good.container.ReadItem(ctx, azcosmos.NewPartitionKeyString("p1"), "missing", nil)
	e := cosmoserr.FromError("", err)
	outputs = append(outputs, e.Error(), good.logs.String())
	var de *cosmoserr.Error
	if errors.As(e, &de) {
		outputs = append(outputs, de.Diagnostics.String())
	}

	bad := newHarness(t, harnessConfig{key: wrongKey}, cosmostest.WithKey(serverKey))
	bad.setup(t)
	_, err = bad.container.ReadItem(ctx, azcosmos.NewPartitionKeyString("p1"), "a", nil)
	e = cosmoserr.FromError("", err)
	if !errors.Is(e, cosmoserr.ErrUnauthorized) {
		t.Fatalf("wrong key: %v, want ErrUnauthorized", e)
	}
	outputs = append(outputs, e.Error(), bad.logs.String())
	if errors.As(e, &de) {
		outputs = append(outputs, de.Diagnostics.String())
	}
	if !strings.Contains(bad.logs.String(), `"status":401`) {
		t.Errorf("the 401 was not logged: %s", bad.logs.String())
	}
	for _, h := range []*harness{good, bad} {
		for _, s := range h.spans.Ended() {
			for _, kv := range s.Attributes() {
				outputs = append(outputs, kv.Value.String())
			}
			outputs = append(outputs, s.Status().Description)
		}
	}
	for _, out := range outputs {
		for _, key := range []string{serverKey, wrongKey} {
			if strings.Contains(out, key) || strings.Contains(out, key[:20]) {
				t.Errorf("key found in output: %q", out)
			}
		}
	}
}

// TestPolicyTransportError: the server drops the connection of an upsert without answering; the
// SDK does not retry a write after an ambiguous transport error (it may have been applied), so the
// policy sees no response at all.
func TestPolicyTransportError(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.setup(t)
	ctx := context.Background()
	h.upsert(ctx, t, "a")
	h.server.InjectFault(cosmostest.Fault{Operation: cosmostest.OpUpsertItem,
		DropConnection: true, Times: 1})
	_, err := h.container.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p1"), []byte(`{"id":"b","pk":"p1"}`), nil)
	if err == nil {
		t.Fatal("upsert succeeded through a dropped connection")
	}
	e := cosmoserr.FromError("upsert_item", err)
	var de *cosmoserr.Error
	if !errors.As(e, &de) || de.StatusCode != 0 || !cosmoserr.IsRetryable(e) || cosmoserr.IsTimeout(e) {
		t.Fatalf("FromError(dropped connection) = %#v (retryable %v)", e, cosmoserr.IsRetryable(e))
	}
	if !strings.HasPrefix(e.Error(), "cosmoskit: upsert_item: ") {
		t.Errorf("Error() = %q", e.Error())
	}
	spans := h.spansNamed("upsert_item c1")
	if len(spans) != 2 {
		t.Fatalf("upsert spans = %d", len(spans))
	}
	a := attrs(spans[1])
	if spans[1].Status().Code != codes.Error || a["error.type"] != attribute.StringValue("transport") || a["azure.cosmosdb.activity_id"].AsString() == "" {
		t.Errorf("span status %v attrs %v", spans[1].Status(), a)
	}
	if _, has := a["db.response.status_code"]; has {
		t.Errorf("status code recorded without a response: %v", a["db.response.status_code"])
	}
	var logged bool
	for _, r := range h.logs.records(t) {
		if r["msg"] == "cosmoskit: operation failed" && r["level"] == "WARN" && r["db.operation.name"] == "upsert_item" && r["error"] != "" {
			logged = true
		}
	}
	if !logged {
		t.Errorf("no WARN record for the dropped connection (the caller gets the error): %s", h.logs.String())
	}
}

func TestCircuitBreakerStateChanged(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.policy.CircuitBreakerStateChanged(context.Background(), "127.0.0.1:8081", "closed", "open")
	m := h.metrics(t)["cosmoskit.client.circuit_breaker.state_changes"]
	sum, ok := m.Data.(metricdata.Sum[int64])
	if !ok || len(sum.DataPoints) != 1 || sum.DataPoints[0].Value != 1 ||
		!hasAttr(sum.DataPoints[0].Attributes, "cosmoskit.circuit_breaker.state", attribute.StringValue("open")) {
		t.Errorf("state change metric = %+v", m.Data)
	}
	if !strings.Contains(h.logs.String(), `"msg":"cosmoskit: circuit breaker state changed"`) {
		t.Errorf("no log record: %s", h.logs.String())
	}
}

func TestTracingProviderNil(t *testing.T) {
	if p := diagnostics.TracingProvider(nil); p.NewTracer("m", "v").Enabled() {
		t.Error("TracingProvider(nil) creates an enabled tracer")
	}
}

// TestPolicyContactedRegion: with two regions and East US preferred, the read is served by East
// US, and the span and metrics say so with the account's region name and that region's endpoint.
func TestPolicyContactedRegion(t *testing.T) {
	h := newHarness(t, harnessConfig{preferred: []string{"East US"}}, cosmostest.WithRegions("West US", "East US"))
	h.setup(t)
	ctx := context.Background()
	h.upsert(ctx, t, "a")
	if _, err := h.container.ReadItem(ctx, azcosmos.NewPartitionKeyString("p1"), "a", nil); err != nil {
		t.Fatal(err)
	}
	east, err := url.Parse(h.server.RegionEndpoint("East US"))
	if err != nil {
		t.Fatal(err)
	}
	west, _ := url.Parse(h.server.RegionEndpoint("West US"))
	eastPort, _ := strconv.Atoi(east.Port())
	westPort, _ := strconv.Atoi(west.Port())
	read := attrs(h.spansNamed("read_item c1")[0])
	if got := read["azure.cosmosdb.operation.contacted_regions"].AsStringSlice(); len(got) != 1 || got[0] != "East US" {
		t.Errorf("read contacted_regions = %v, want [East US]", got)
	}
	if read["server.port"] != attribute.IntValue(eastPort) {
		t.Errorf("read server.port = %v, want %d (East US)", read["server.port"].String(), eastPort)
	}
	write := attrs(h.spansNamed("upsert_item c1")[0])
	if got := write["azure.cosmosdb.operation.contacted_regions"].AsStringSlice(); len(got) != 1 || got[0] != "West US" {
		t.Errorf("upsert contacted_regions = %v, want [West US] (the write region)", got)
	}
	if write["server.port"] != attribute.IntValue(westPort) {
		t.Errorf("upsert server.port = %v, want %d (West US)", write["server.port"].String(), westPort)
	}
	dur := h.metrics(t)["db.client.operation.duration"].Data.(metricdata.Histogram[float64])
	var found bool
	for _, dp := range dur.DataPoints {
		v, _ := dp.Attributes.Value("azure.cosmosdb.operation.contacted_regions")
		if hasAttr(dp.Attributes, "db.operation.name", attribute.StringValue("read_item")) && len(v.AsStringSlice()) == 1 && v.AsStringSlice()[0] == "East US" {
			found = true
		}
	}
	if !found {
		t.Errorf("no read_item duration point for East US: %+v", dur.DataPoints)
	}
}

func TestStartOperation(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.setup(t)
	pk := azcosmos.NewPartitionKeyString("p1")
	ctx, finish := h.policy.StartOperation(context.Background(), "update", "db1", "c1")
	r, err := h.container.ReadItem(ctx, pk, "missing", nil)
	if err == nil {
		t.Fatal("read of a missing item succeeded")
	}
	w := h.upsert(ctx, t, "a")
	finish(cosmoserr.FromError("", err))
	_ = r

	logical := h.spansNamed("update c1")
	if len(logical) != 1 {
		t.Fatalf("update spans = %d; all: %v", len(logical), spanNames(h.spans.Ended()))
	}
	l := logical[0]
	a := attrs(l)
	if l.SpanKind() != trace.SpanKindInternal || a["db.operation.name"] != attribute.StringValue("update") || a["cosmoskit.requests"] != attribute.IntValue(2) {
		t.Errorf("logical span kind %v attrs %v", l.SpanKind(), a)
	}
	read := h.spansNamed("read_item c1")[0]
	wantRU := attrs(read)["azure.cosmosdb.operation.request_charge"].AsFloat64() + float64(w.RequestCharge)
	if got := a["azure.cosmosdb.operation.request_charge"].AsFloat64(); math.Abs(got-wantRU) > 1e-5 {
		t.Errorf("logical request charge = %v, want %v", got, wantRU)
	}
	if read.Parent().SpanID() != l.SpanContext().SpanID() {
		t.Error("read_item is not a child of the logical span")
	}
	// A 404 is an expected answer: recorded, but the span status stays unset.
	if a["db.response.status_code"] != attribute.StringValue("404") || l.Status().Code != codes.Unset {
		t.Errorf("logical span status %v code %v", l.Status(), a["db.response.status_code"].String())
	}

	ctx, finish = h.policy.StartOperation(context.Background(), "migrate", "db1", "c1")
	_ = ctx
	finish(errors.New("boom"))
	if m := h.spansNamed("migrate c1"); len(m) != 1 || m[0].Status().Code != codes.Error {
		t.Errorf("failed logical span: %v", m)
	}
}

func TestStartOperationWithoutPolicy(t *testing.T) {
	var nilPolicy *diagnostics.Policy
	ctx, finish := nilPolicy.StartOperation(context.Background(), "update", "db1", "c1")
	if trace.SpanFromContext(ctx).SpanContext().IsValid() {
		t.Error("a span was started without a tracer")
	}
	finish(nil)

	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	parentCtx, parent := tp.Tracer("test").Start(context.Background(), "handler")
	_, finish = nilPolicy.StartOperation(parentCtx, "update", "db1", "c1")
	finish(nil)
	parent.End()
	var found bool
	for _, s := range sr.Ended() {
		if s.Name() == "update c1" && s.Parent().SpanID() == parent.SpanContext().SpanID() {
			found = true
		}
	}
	if !found {
		t.Errorf("no update span under the caller's span: %v", spanNames(sr.Ended()))
	}
}

func TestPolicyDisableLatencyLog(t *testing.T) {
	h := newHarness(t, harnessConfig{opts: diagnostics.Options{PointLatencyThreshold: 1, DisableLatencyLog: true}})
	h.setup(t)
	h.upsert(context.Background(), t, "a")
	if strings.Contains(h.logs.String(), "cosmoskit: slow operation") {
		t.Errorf("slow operation logged with DisableLatencyLog: %s", h.logs.String())
	}
}

// TestPolicyUnavailable: a 503 the Cosmos retry policy gives up on reaches the per-call policy as
// an error (not a response); it is still reported with its status and logged at WARN (not ERROR:
// the caller gets the error and may log it itself).
func TestPolicyUnavailable(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.setup(t)
	ctx := context.Background()
	h.upsert(ctx, t, "a")
	h.server.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
		Status: http.StatusServiceUnavailable, Times: 1})
	_, err := h.container.ReadItem(ctx, azcosmos.NewPartitionKeyString("p1"), "a", nil)
	err = cosmoserr.FromError("", err)
	if !errors.Is(err, cosmoserr.ErrUnavailable) || !cosmoserr.IsRetryable(err) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	spans := h.spansNamed("read_item c1")
	if len(spans) != 1 {
		t.Fatalf("read_item spans = %d", len(spans))
	}
	a := attrs(spans[0])
	if spans[0].Status().Code != codes.Error || a["db.response.status_code"] != attribute.StringValue("503") || a["error.type"] != attribute.StringValue("503") {
		t.Errorf("503 span: status %v attrs %v", spans[0].Status(), a)
	}
	var logged bool
	for _, r := range h.logs.records(t) {
		if r["msg"] == "cosmoskit: operation failed" && r["level"] == "WARN" && r["status"] == float64(503) {
			logged = true
		}
	}
	if !logged {
		t.Errorf("no WARN record for the 503: %s", h.logs.String())
	}
}

// TestPolicyFailureLevels: a failure the caller also gets back is logged at most at WARN, an
// expected answer (409, 412) at DEBUG; nothing the caller sees is logged at ERROR.
func TestPolicyFailureLevels(t *testing.T) {
	tests := []struct {
		status int
		want   string
	}{
		{http.StatusBadRequest, "WARN"},
		{http.StatusUnauthorized, "WARN"},
		{http.StatusForbidden, "WARN"},
		{http.StatusConflict, "DEBUG"},
		{http.StatusPreconditionFailed, "DEBUG"},
		{http.StatusRequestEntityTooLarge, "WARN"},
		{http.StatusServiceUnavailable, "WARN"},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			h := newHarness(t, harnessConfig{})
			h.setup(t)
			ctx := context.Background()
			h.upsert(ctx, t, "a")
			h.server.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
				Status: tt.status, Times: 1})
			if _, err := h.container.ReadItem(ctx, azcosmos.NewPartitionKeyString("p1"), "a", nil); err == nil {
				t.Fatal("read succeeded")
			}
			var got []string
			for _, r := range h.logs.records(t) {
				if r["level"] == "ERROR" {
					t.Errorf("ERROR record: %v", r)
				}
				if r["msg"] == "cosmoskit: operation failed" && r["status"] == float64(tt.status) {
					got = append(got, r["level"].(string))
				}
			}
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("failure records at %v, want one at %s", got, tt.want)
			}
		})
	}
}

// TestPolicyReadMany: ReadManyItems reads the partition key ranges, then queries each physical
// partition; each call is its own span, and the queries name their partition key range.
func TestPolicyReadMany(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.setup(t)
	ctx := context.Background()
	h.upsert(ctx, t, "a")
	h.upsert(ctx, t, "b")
	ctx, m := diagnostics.WithMeter(ctx)
	resp, err := h.container.ReadManyItems(ctx, []azcosmos.ItemIdentity{
		{ID: "a", PartitionKey: azcosmos.NewPartitionKeyString("p1")},
		{ID: "b", PartitionKey: azcosmos.NewPartitionKeyString("p1")},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Items) != 2 {
		t.Fatalf("read %d items", len(resp.Items))
	}
	if len(h.spansNamed("read_partition_key_ranges c1")) == 0 {
		t.Errorf("no read_partition_key_ranges span: %v", spanNames(h.spans.Ended()))
	}
	queries := h.spansNamed("query_items c1")
	if len(queries) == 0 {
		t.Fatalf("no query_items span: %v", spanNames(h.spans.Ended()))
	}
	for _, q := range queries {
		if id := attrs(q)["cosmoskit.partition_key_range_id"].AsString(); id == "" {
			t.Errorf("query span without a partition key range id: %v", attrs(q))
		}
	}
	// The meter counts the query pages and the range read made on the caller's context; the SDK's
	// partition key range cache refreshes itself on a context of its own, which no unit of work
	// is charged for.
	if m.RequestCharge() < float64(resp.RequestCharge)-1e-3 || m.Requests() < len(queries)+1 {
		t.Errorf("meter: %v RU in %d calls; ReadManyItems says %v RU in %d query pages",
			m.RequestCharge(), m.Requests(), resp.RequestCharge, len(queries))
	}
}

// TestPolicySlowRead: the server holds a read for longer than the point threshold; the read is
// logged as slow with the threshold and its diagnostics.
func TestPolicySlowRead(t *testing.T) {
	h := newHarness(t, harnessConfig{opts: diagnostics.Options{PointLatencyThreshold: 20 * time.Millisecond}})
	h.setup(t)
	ctx := context.Background()
	h.upsert(ctx, t, "a")
	h.server.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
		Delay: 40 * time.Millisecond, Times: 1})
	if _, err := h.container.ReadItem(ctx, azcosmos.NewPartitionKeyString("p1"), "a", nil); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range h.logs.records(t) {
		if r["msg"] == "cosmoskit: slow operation" && r["db.operation.name"] == "read_item" {
			found = r["latency_threshold"] == float64(20*time.Millisecond) && r["duration"].(float64) >= float64(40*time.Millisecond) &&
				strings.Contains(r["diagnostics"].(string), `"(200, 0)"`)
			if !found {
				t.Errorf("slow read record = %v", r)
			}
		}
	}
	if !found {
		t.Errorf("no slow read record: %s", h.logs.String())
	}
}
