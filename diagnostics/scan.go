package diagnostics

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Scan detection: every query page carries the x-ms-documentdb-query-metrics header (azcosmos asks
// for it on every query; it costs no RU). The policy reads the documents the page retrieved
// (loaded from storage) and returned, adds them to the [Meter]s in the context and to the
// MetricQueryDocuments* counters, and calls a page a scan when it retrieved at least
// ScanOptions.MinRetrieved documents and at least ScanOptions.Ratio times as many as it returned
// (a query whose filter no index serves). Each scan counts on the meters and on MetricQueryScans;
// the first scan of each query shape (the query text with every literal replaced by "?", per
// database and container) is logged once at level Warn. Parameter values and literals never
// reach a record.

// Default scan thresholds (ScanOptions).
const (
	// DefaultScanMinRetrieved is ScanOptions.MinRetrieved when unset.
	DefaultScanMinRetrieved = 100
	// DefaultScanRatio is ScanOptions.Ratio when unset.
	DefaultScanRatio = 10
	// DefaultScanMaxShapes is ScanOptions.MaxShapes when unset.
	DefaultScanMaxShapes = 1000
)

// Query metrics instruments.
const (
	// MetricQueryDocumentsRetrieved counts the documents query pages loaded from storage.
	MetricQueryDocumentsRetrieved = "cosmoskit.query.documents.retrieved"
	// MetricQueryDocumentsReturned counts the documents query pages returned.
	MetricQueryDocumentsReturned = "cosmoskit.query.documents.returned"
	// MetricQueryScans counts the query pages found to be scans.
	MetricQueryScans = "cosmoskit.query.scans"
)

const msgScan = "cosmoskit: query scans many documents for few results"

// ScanOptions configures scan detection (Options.Scan). The zero value is the default.
type ScanOptions struct {
	// MinRetrieved is the fewest documents a page must retrieve to be a scan. If 0,
	// DefaultScanMinRetrieved (100); negative is refused.
	MinRetrieved int
	// Ratio is the least ratio of retrieved to returned documents (returned counted as at least 1)
	// of a scan. If 0, DefaultScanRatio (10); negative is refused.
	Ratio float64
	// MaxShapes is how many distinct query shapes the policy remembers for its once-per-shape
	// warning; scans of shapes beyond it are counted but not logged. If 0,
	// DefaultScanMaxShapes (1000); negative is refused.
	MaxShapes int
	// Disable turns scan detection off (the documents are still counted).
	Disable bool
}

// Options returns o with the defaults written out.
func (o ScanOptions) Options() ScanOptions {
	if o.MinRetrieved <= 0 {
		o.MinRetrieved = DefaultScanMinRetrieved
	}
	if o.Ratio <= 0 {
		o.Ratio = DefaultScanRatio
	}
	if o.MaxShapes <= 0 {
		o.MaxShapes = DefaultScanMaxShapes
	}
	return o
}

// isScan reports whether a page that retrieved retrieved documents and returned returned is a
// scan under o (defaults applied).
func (o ScanOptions) isScan(retrieved, returned int64) bool {
	o = o.Options()
	if o.Disable || retrieved < int64(o.MinRetrieved) {
		return false
	}
	return float64(retrieved) >= o.Ratio*float64(max(returned, 1))
}

// scanState remembers the query shapes already warned about.
type scanState struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

// first reports whether key is new, remembering it while fewer than limit keys are.
func (s *scanState) first(key string, limit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[key]; ok {
		return false
	}
	if len(s.seen) >= limit {
		return false
	}
	if s.seen == nil {
		s.seen = map[string]struct{}{}
	}
	s.seen[key] = struct{}{}
	return true
}

type queryInstruments struct {
	retrieved, returned, scans metric.Int64Counter
}

func newQueryInstruments(m metric.Meter) (queryInstruments, error) {
	var q queryInstruments
	var err error
	if q.retrieved, err = m.Int64Counter(MetricQueryDocumentsRetrieved,
		metric.WithDescription("Documents query pages loaded from storage (x-ms-documentdb-query-metrics retrievedDocumentCount)."),
		metric.WithUnit("{document}")); err != nil {
		return q, err
	}
	if q.returned, err = m.Int64Counter(MetricQueryDocumentsReturned,
		metric.WithDescription("Documents query pages returned (outputDocumentCount)."),
		metric.WithUnit("{document}")); err != nil {
		return q, err
	}
	q.scans, err = m.Int64Counter(MetricQueryScans,
		metric.WithDescription("Query pages that retrieved many documents for few results."),
		metric.WithUnit("{page}"))
	return q, err
}

// observeQuery reads a query page's metrics: meters, counters and the once-per-shape warning.
func (p *Policy) observeQuery(ctx context.Context, req *policy.Request, op wire.Operation, resp *http.Response, meter *Meter) {
	qm, ok := wire.ParseQueryMetrics(resp.Header.Get(wire.HeaderQueryMetrics))
	if !ok {
		return
	}
	retrieved, returned := max(qm.RetrievedDocumentCount, 0), max(qm.OutputDocumentCount, 0)
	so := p.opts.Scan.Options()
	scan := so.isScan(retrieved, returned)
	meter.addQuery(retrieved, returned, scan)
	if p.inst != nil && p.inst.query.retrieved != nil {
		set := metric.WithAttributes(
			attribute.String(keySystemName, valSystemName),
			attribute.String(keyNamespace, op.Database),
			attribute.String(keyCollection, op.Container))
		p.inst.query.retrieved.Add(ctx, retrieved, set)
		p.inst.query.returned.Add(ctx, returned, set)
		if scan {
			p.inst.query.scans.Add(ctx, 1, set)
		}
	}
	if !scan || p.logger == nil || !p.logger.Enabled(ctx, slog.LevelWarn) {
		return
	}
	shape := ""
	if req.RewindBody() == nil {
		shape = QueryShape(queryText(req))
	}
	if !p.scans.first(op.Database+"\x00"+op.Container+"\x00"+shape, so.MaxShapes) {
		return
	}
	p.logger.LogAttrs(ctx, slog.LevelWarn, msgScan,
		slog.String(keyNamespace, op.Database),
		slog.String(keyCollection, op.Container),
		slog.String("query_shape", shape),
		slog.Int64("retrieved_documents", retrieved),
		slog.Int64("returned_documents", returned),
		slog.Float64("request_charge", wire.RequestCharge(resp.Header)),
		slog.String("advice", "add an index or a partition key filter the query can use; diagnostics.Explain shows the indexes used and missing"))
}

// maxShapeLen caps a query shape's length.
const maxShapeLen = 512

// QueryShape returns query with every string and number literal replaced by "?" and runs of
// white space collapsed: what identifies a query in logs without any value in it. Parameter names
// (@id) are kept; their values are never in the text.
func QueryShape(query string) string {
	var b strings.Builder
	space := false
	for i := 0; i < len(query) && b.Len() < maxShapeLen; {
		c := query[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(query) && query[j] != c {
				if query[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
			b.WriteByte('?')
			space = false
		case c >= '0' && c <= '9' && (i == 0 || !identByte(query[i-1])):
			j := i
			for j < len(query) && (identByte(query[j]) || query[j] == '.' ||
				((query[j] == '+' || query[j] == '-') && (query[j-1] == 'e' || query[j-1] == 'E'))) {
				j++
			}
			i = j
			b.WriteByte('?')
			space = false
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			i++
		default:
			b.WriteByte(c)
			space = false
			i++
		}
	}
	return strings.TrimSpace(b.String())
}

func identByte(c byte) bool {
	return c == '_' || c == '@' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// DocumentsRetrieved returns the documents the query pages run so far loaded from storage (their
// query metrics' retrievedDocumentCount).
func (m *Meter) DocumentsRetrieved() int64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.retrieved
}

// DocumentsReturned returns the documents those query pages returned (outputDocumentCount).
func (m *Meter) DocumentsReturned() int64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.returned
}

// Scans returns the number of query pages so far that were scans (see [ScanOptions]).
func (m *Meter) Scans() int {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.scans
}

func (m *Meter) addQuery(retrieved, returned int64, scan bool) {
	for ; m != nil; m = m.parent {
		m.mu.Lock()
		m.retrieved += retrieved
		m.returned += returned
		if scan {
			m.scans++
		}
		m.mu.Unlock()
	}
}
