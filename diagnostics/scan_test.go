package diagnostics_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// fillScan creates 1000 items {n: 0..999} in logical partition "p1" (ten batches) and one item
// in "solo".
func fillScan(t *testing.T, h *harness) {
	t.Helper()
	ctx := context.Background()
	for b := range 10 {
		batch := h.container.NewTransactionalBatch(azcosmos.NewPartitionKeyString("p1"))
		for i := range 100 {
			n := b*100 + i
			batch.CreateItem([]byte(fmt.Sprintf(`{"id":"i%d","pk":"p1","n":%d}`, n, n)), nil)
		}
		resp, err := h.container.ExecuteTransactionalBatch(ctx, batch, nil)
		if err != nil || !resp.Success {
			t.Fatalf("batch %d: %v", b, err)
		}
	}
	if _, err := h.container.CreateItem(ctx, azcosmos.NewPartitionKeyString("solo"), []byte(`{"id":"only","pk":"solo","n":1}`), nil); err != nil {
		t.Fatal(err)
	}
}

func queryAll(ctx context.Context, t *testing.T, c *azcosmos.ContainerClient, pk string, q string, params ...azcosmos.QueryParameter) int {
	t.Helper()
	pager := c.NewQueryItemsPager(q, azcosmos.NewPartitionKeyString(pk), &azcosmos.QueryOptions{QueryParameters: params})
	n := 0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		n += len(page.Items)
	}
	return n
}

func scanRecords(t *testing.T, h *harness) []map[string]any {
	var out []map[string]any
	for _, r := range h.logs.records(t) {
		if r["msg"] == "cosmoskit: query scans many documents for few results" {
			out = append(out, r)
		}
	}
	return out
}

// A query that retrieves 1,000 documents for 10 is flagged: counted on the meter and the metrics
// every time, logged once per shape (whatever its literals), without a value in the record. A
// point-key query never is.
func TestScanDetection(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.setup(t)
	fillScan(t, h)
	ctx, meter := diagnostics.WithMeter(context.Background())

	if n := queryAll(ctx, t, h.container, "p1", "SELECT * FROM c WHERE c.n >= 990"); n != 10 {
		t.Fatalf("scan query returned %d, want 10", n)
	}
	if got := len(scanRecords(t, h)); got != 1 {
		t.Fatalf("after one scan: %d warnings, want 1: %s", got, h.logs.String())
	}
	// Same shape, another literal: counted, not logged again.
	queryAll(ctx, t, h.container, "p1", "SELECT *   FROM c WHERE c.n >= 995")
	for range 5 {
		if n := queryAll(ctx, t, h.container, "solo", "SELECT * FROM c WHERE c.id = @id", azcosmos.QueryParameter{Name: "@id", Value: "only"}); n != 1 {
			t.Fatalf("point query returned %d", n)
		}
	}
	recs := scanRecords(t, h)
	if len(recs) != 1 {
		t.Fatalf("%d scan warnings, want 1: %v", len(recs), recs)
	}
	r := recs[0]
	if r["level"] != "WARN" || r["query_shape"] != "SELECT * FROM c WHERE c.n >= ?" || r["retrieved_documents"] != 1000.0 ||
		r["returned_documents"] != 10.0 || r["db.collection.name"] != "c1" {
		t.Errorf("record %v", r)
	}
	// The records' timestamps are left out: their digits may spell a literal by chance.
	if logs := timestamps.ReplaceAllString(h.logs.String(), ""); strings.Contains(logs, "990") || strings.Contains(logs, "995") || strings.Contains(logs, `"only"`) {
		t.Errorf("a literal or parameter value reached the log: %s", logs)
	}
	if meter.Scans() != 2 || meter.DocumentsRetrieved() != 2000+5 || meter.DocumentsReturned() != 15+5 {
		t.Errorf("meter: %d scans, %d retrieved, %d returned; want 2, 2005, 20", meter.Scans(), meter.DocumentsRetrieved(), meter.DocumentsReturned())
	}
	m := h.metrics(t)
	if got := sumAll(t, m[diagnostics.MetricQueryScans]); got != 2 {
		t.Errorf("%s = %d, want 2", diagnostics.MetricQueryScans, got)
	}
	if got := sumAll(t, m[diagnostics.MetricQueryDocumentsRetrieved]); got != 2005 {
		t.Errorf("%s = %d, want 2005", diagnostics.MetricQueryDocumentsRetrieved, got)
	}
	if got := sumAll(t, m[diagnostics.MetricQueryDocumentsReturned]); got != 20 {
		t.Errorf("%s = %d, want 20", diagnostics.MetricQueryDocumentsReturned, got)
	}
}

// Thresholds are options; Disable turns the detection off but keeps the counts.
func TestScanOptions(t *testing.T) {
	h := newHarness(t, harnessConfig{opts: diagnostics.Options{Scan: diagnostics.ScanOptions{Disable: true}}})
	h.setup(t)
	fillScan(t, h)
	ctx, meter := diagnostics.WithMeter(context.Background())
	queryAll(ctx, t, h.container, "p1", "SELECT * FROM c WHERE c.n >= 990")
	if meter.Scans() != 0 || meter.DocumentsRetrieved() != 1000 || len(scanRecords(t, h)) != 0 {
		t.Errorf("disabled: %d scans, %d retrieved, %d records", meter.Scans(), meter.DocumentsRetrieved(), len(scanRecords(t, h)))
	}
	o := diagnostics.ScanOptions{}.Options()
	if o.MinRetrieved != diagnostics.DefaultScanMinRetrieved || o.Ratio != diagnostics.DefaultScanRatio || o.MaxShapes != diagnostics.DefaultScanMaxShapes {
		t.Errorf("defaults: %+v", o)
	}
	for _, tc := range []struct {
		o                   diagnostics.ScanOptions
		retrieved, returned int64
		want                bool
	}{
		{diagnostics.ScanOptions{}, 1000, 10, true},
		{diagnostics.ScanOptions{}, 1, 1, false},
		{diagnostics.ScanOptions{}, 99, 0, false},
		{diagnostics.ScanOptions{}, 100, 0, true},
		{diagnostics.ScanOptions{}, 1000, 101, false},
		{diagnostics.ScanOptions{MinRetrieved: 2000}, 1000, 0, false},
		{diagnostics.ScanOptions{Ratio: 200}, 1000, 10, false},
	} {
		if got := tc.o.IsScan(tc.retrieved, tc.returned); got != tc.want {
			t.Errorf("%+v.IsScan(%d, %d) = %v", tc.o, tc.retrieved, tc.returned, got)
		}
	}
}

// Explain asks for index metrics and reports the page's documents and the index advice.
func TestExplain(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.setup(t)
	fillScan(t, h)
	ctx := context.Background()
	x, err := diagnostics.Explain(ctx, h.container, "SELECT * FROM c WHERE c.n >= 990", azcosmos.NewPartitionKeyString("p1"), nil, diagnostics.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if x.Retrieved != 1000 || x.Returned != 10 || !x.Scan || x.RequestCharge <= 0 {
		t.Errorf("scan: %+v", x)
	}
	if len(x.Utilized) != 1 || x.Utilized[0].Paths[0] != "/n/?" || x.Utilized[0].Composite || len(x.Potential) != 0 {
		t.Errorf("index advice: utilized %+v, potential %+v", x.Utilized, x.Potential)
	}
	x, err = diagnostics.Explain(ctx, h.container, "SELECT * FROM c WHERE c.id = @id", azcosmos.NewPartitionKeyString("solo"),
		&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@id", Value: "only"}}}, diagnostics.ScanOptions{})
	if err != nil || x.Scan || x.Retrieved != 1 || x.Returned != 1 {
		t.Errorf("point: %+v, %v", x, err)
	}
	if _, err := diagnostics.Explain(ctx, h.container, "", azcosmos.NewPartitionKeyString("p1"), nil, diagnostics.ScanOptions{}); err == nil {
		t.Error("empty query accepted")
	}
}

func TestQueryShape(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT * FROM c WHERE c.n >= 990":                           "SELECT * FROM c WHERE c.n >= ?",
		"SELECT * FROM c WHERE c.name = 'O\\'Brien' AND c.x = \"y\"": "SELECT * FROM c WHERE c.name = ? AND c.x = ?",
		"SELECT TOP 10 c.a1 FROM c\n\tWHERE c.v IN (1.5e-3, -2)":     "SELECT TOP ? c.a1 FROM c WHERE c.v IN (?, -?)",
		"SELECT * FROM c WHERE c.id = @id1":                          "SELECT * FROM c WHERE c.id = @id1",
		"  ":                                                         "",
	} {
		if got := diagnostics.QueryShape(in); got != want {
			t.Errorf("QueryShape(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzQueryShape(f *testing.F) {
	f.Add("SELECT * FROM c WHERE c.name = 'x' AND c.n = 12")
	f.Add(`'unterminated \`)
	f.Fuzz(func(t *testing.T, q string) {
		s := diagnostics.QueryShape(q)
		if len(s) > 512 {
			t.Errorf("shape of %d bytes", len(s))
		}
		if strings.ContainsAny(s, `'"`) {
			t.Errorf("a quote survived in %q", s)
		}
	})
}

func sumAll(t *testing.T, m metricdata.Metrics) int64 {
	t.Helper()
	sum, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s: not an int64 sum: %T", m.Name, m.Data)
	}
	var n int64
	for _, dp := range sum.DataPoints {
		n += dp.Value
	}
	return n
}

// timestamps matches the time member of a JSON log record.
var timestamps = regexp.MustCompile(`"time":"[^"]*",?`)
