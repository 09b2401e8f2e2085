package cosmostest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/epk"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// bulkReply is a bulk response as a client sees it.
type bulkReply struct {
	status  int
	header  http.Header
	results []wire.BatchResult
	body    []byte
}

// rawBulk sends a bulk request to range rangeID of db/coll as the Java SDK does in gateway mode
// (PartitionKeyRangeServerBatchRequest: atomic false, continue on error, the range header, each
// operation with its key as JSON text) and decodes the per-operation results.
func rawBulk(t *testing.T, s *cosmostest.Server, coll, rangeID string, ops []wire.BatchOperation, edit func(http.Header)) bulkReply {
	t.Helper()
	body, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	return rawBulkBody(t, s, coll, rangeID, body, edit)
}

func rawBulkBody(t *testing.T, s *cosmostest.Server, coll, rangeID string, body []byte, edit func(http.Header)) bulkReply {
	t.Helper()
	key, _ := base64.StdEncoding.DecodeString(s.Key())
	link := "dbs/db/colls/" + coll
	req, err := http.NewRequest(http.MethodPost, s.Endpoint()+"/"+link+"/docs", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	h := req.Header
	h.Set(wire.HeaderDate, date)
	h.Set(wire.HeaderVersion, wire.APIVersion)
	h.Set(wire.HeaderContentType, "application/json")
	h.Set(wire.HeaderIsBatch, "true")
	h.Set(wire.HeaderBatchAtomic, "false")
	h.Set(wire.HeaderBatchContinueOnError, "true")
	if rangeID != "" {
		h.Set(wire.HeaderPKRangeID, rangeID)
	}
	if edit != nil {
		edit(h)
	}
	h.Set(wire.HeaderAuthorization, wire.MasterKeyAuthorization(key, http.MethodPost, "docs", link, date))
	resp, err := (&http.Client{Transport: s.ClientOptions().Transport.(*http.Client).Transport}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	rep := bulkReply{status: resp.StatusCode, header: resp.Header, body: b}
	if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusMultiStatus {
		if err := json.Unmarshal(b, &rep.results); err != nil {
			t.Fatalf("results %s: %v", b, err)
		}
	}
	return rep
}

// pkJSON is a one-component key as the operation's partitionKey field carries it.
func pkJSON(v string) string { b, _ := json.Marshal([]string{v}); return string(b) }

func upsertOp(id, pk string) wire.BatchOperation {
	return wire.BatchOperation{OperationType: wire.BatchUpsert, ID: id, PartitionKey: pkJSON(pk), ResourceBody: doc(id, pk)}
}

func resultStatuses(rs []wire.BatchResult) []int {
	out := make([]int, len(rs))
	for i, r := range rs {
		out[i] = r.StatusCode
	}
	return out
}

// TestBulkOperations: every operation type, each applied or refused on its own, with the
// result fields the Java SDK's BatchResponseParser reads; 207 when one failed, 200 when none.
func TestBulkOperations(t *testing.T) {
	s, cc := setup(t)
	ctx := context.Background()
	if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("a"), doc("old", "a"), nil); err != nil {
		t.Fatal(err)
	}
	patch := []byte(`{"operations":[{"op":"add","path":"/n","value":7}]}`)
	badPatch := []byte(`{"operations":[{"op":"replace","path":"/missing","value":7}]}`)
	ops := []wire.BatchOperation{
		{OperationType: wire.BatchCreate, ID: "n1", PartitionKey: pkJSON("a"), ResourceBody: doc("n1", "a")},   // 201
		{OperationType: wire.BatchCreate, ID: "old", PartitionKey: pkJSON("a"), ResourceBody: doc("old", "a")}, // 409
		upsertOp("n2", "b"), // 201
		{OperationType: wire.BatchReplace, ID: "ghost", PartitionKey: pkJSON("a"), ResourceBody: doc("ghost", "a")},                // 404
		{OperationType: wire.BatchRead, ID: "old", PartitionKey: pkJSON("a")},                                                      // 200 + body
		{OperationType: wire.BatchPatch, ID: "old", PartitionKey: pkJSON("a"), ResourceBody: patch},                                // 200
		{OperationType: wire.BatchPatch, ID: "old", PartitionKey: pkJSON("a"), ResourceBody: badPatch},                             // 400
		{OperationType: wire.BatchUpsert, ID: "x", PartitionKey: pkJSON("b"), ResourceBody: doc("x", "a")},                         // 400/1001
		{OperationType: wire.BatchUpsert, ID: "nokey", ResourceBody: doc("nokey", "a")},                                            // 400
		{OperationType: wire.BatchDelete, ID: "n2", PartitionKey: pkJSON("b")},                                                     // 204
		{OperationType: wire.BatchUpsert, ID: "old", PartitionKey: pkJSON("a"), IfMatch: `"stale"`, ResourceBody: doc("old", "a")}, // 412
	}
	rep := rawBulk(t, s, "c1", "0", ops, nil)
	if rep.status != http.StatusMultiStatus {
		t.Fatalf("status %d %s", rep.status, rep.body)
	}
	want := []int{201, 409, 201, 404, 200, 200, 400, 400, 400, 204, 412}
	if got := resultStatuses(rep.results); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	var sum float64
	for i, r := range rep.results {
		sum += r.RequestCharge
		ok := r.StatusCode < 300
		if ok && r.StatusCode != http.StatusNoContent && r.ETag == "" {
			t.Errorf("op %d: no eTag", i)
		}
		switch {
		case ok && r.RequestCharge <= 0,
			(r.StatusCode == 404 || r.StatusCode == 409 || r.StatusCode == 412) && r.RequestCharge != 1,
			r.StatusCode == 400 && r.RequestCharge != 0:
			t.Errorf("op %d: charge %v for status %d", i, r.RequestCharge, r.StatusCode)
		}
	}
	if rep.results[7].SubStatusCode != 1001 {
		t.Errorf("key mismatch sub-status %d, want 1001", rep.results[7].SubStatusCode)
	}
	if !strings.Contains(string(rep.results[4].ResourceBody), `"id":"old"`) || rep.results[0].ResourceBody == nil {
		t.Errorf("read body %s, create body %s (bodies without Prefer: return=minimal)", rep.results[4].ResourceBody, rep.results[0].ResourceBody)
	}
	if got, _ := strconv.ParseFloat(rep.header.Get(wire.HeaderRequestCharge), 64); fmt.Sprintf("%.2f", got) != fmt.Sprintf("%.2f", sum) {
		t.Errorf("x-ms-request-charge %v, sum of operations %v", got, sum)
	}
	if rep.header.Get(wire.HeaderSessionToken) == "" || rep.header.Get(wire.HeaderPKRangeID) != "0" {
		t.Errorf("session %q, range %q", rep.header.Get(wire.HeaderSessionToken), rep.header.Get(wire.HeaderPKRangeID))
	}
	// What succeeded is applied, what failed is not.
	if _, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("a"), "n1", nil); err != nil {
		t.Errorf("created n1: %v", err)
	}
	for _, miss := range []struct{ pk, id string }{{"b", "n2"}, {"a", "ghost"}, {"b", "x"}, {"a", "nokey"}} {
		if _, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString(miss.pk), miss.id, nil); err == nil {
			t.Errorf("%s/%s exists", miss.pk, miss.id)
		}
	}
	old, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("a"), "old", nil)
	if err != nil || !strings.Contains(string(old.Value), `"n":7`) || string(old.ETag) != rep.results[5].ETag {
		t.Errorf("patched item %s etag %s, patch result etag %s (%v)", old.Value, old.ETag, rep.results[5].ETag, err)
	}

	// All succeed: 200; Prefer: return=minimal drops write bodies.
	rep = rawBulk(t, s, "c1", "0", []wire.BatchOperation{upsertOp("m1", "a"), upsertOp("m2", "c")}, func(h http.Header) {
		h.Set(wire.HeaderPrefer, "return=minimal")
	})
	if rep.status != http.StatusOK || len(rep.results) != 2 || rep.results[0].ResourceBody != nil || rep.results[1].StatusCode != http.StatusCreated {
		t.Fatalf("all succeed: %d %s", rep.status, rep.body)
	}
}

// TestBulkUnsupportedOptions: per-operation options cosmostest does not model fail their
// operation with a 400 naming cosmostest, never silently ignored.
func TestBulkUnsupportedOptions(t *testing.T) {
	s, _ := setup(t)
	ttl := 10
	ops := []wire.BatchOperation{
		{OperationType: wire.BatchRead, ID: "a", PartitionKey: pkJSON("p"), IfNoneMatch: `"x"`},
		{OperationType: wire.BatchUpsert, PartitionKey: pkJSON("p"), ResourceBody: doc("a", "p"), TimeToLiveInSeconds: &ttl},
		{OperationType: wire.BatchUpsert, PartitionKey: pkJSON("p"), ResourceBody: doc("a", "p"), IndexingDirective: "Exclude"},
	}
	rep := rawBulk(t, s, "c1", "0", ops, nil)
	if got := fmt.Sprint(resultStatuses(rep.results)); got != "[400 400 400]" {
		t.Fatalf("results %s", rep.body)
	}
}

// TestBulkStopsWithoutContinueOnError: without x-ms-cosmos-batch-continue-on-error the operations
// after the first failure are not run (424).
func TestBulkStopsWithoutContinueOnError(t *testing.T) {
	s, cc := setup(t)
	ops := []wire.BatchOperation{
		upsertOp("a", "p"),
		{OperationType: wire.BatchRead, ID: "missing", PartitionKey: pkJSON("p")},
		upsertOp("b", "p"),
	}
	rep := rawBulk(t, s, "c1", "0", ops, func(h http.Header) { h.Del(wire.HeaderBatchContinueOnError) })
	if got := fmt.Sprint(resultStatuses(rep.results)); rep.status != http.StatusMultiStatus || got != "[201 404 424]" {
		t.Fatalf("status %d results %s", rep.status, got)
	}
	if _, err := cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("p"), "b", nil); err == nil {
		t.Error("the operation after the failure was applied")
	}
}

// TestBulkRequestRefusals: the whole-request answers (the .NET emulator tests' limits: 101
// operations, an oversized body), the range header, and a range that was split.
func TestBulkRequestRefusals(t *testing.T) {
	s, _ := setup(t, cosmostest.WithPartitionCount(2))
	many := make([]wire.BatchOperation, wire.MaxBatchOperations+1)
	for i := range many {
		many[i] = upsertOp(fmt.Sprint("i", i), "p")
	}
	big := fmt.Sprintf(`[{"operationType":"Upsert","partitionKey":"[\"p\"]","resourceBody":{"id":"x","pk":"p","pad":%q}}]`, strings.Repeat("x", wire.MaxRequestBodyBytes))
	tests := []struct {
		name    string
		rangeID string
		body    string
		status  int
		sub     string
	}{
		{"101 operations", "0", string(mustMarshal(t, many)), http.StatusBadRequest, "0"},
		{"no operations", "0", `[]`, http.StatusBadRequest, "0"},
		{"not an array", "0", `{"operationType":"Upsert"}`, http.StatusBadRequest, "0"},
		{"body over 2 MB", "0", big, http.StatusRequestEntityTooLarge, "0"},
		{"no range header", "", string(mustMarshal(t, many[:1])), http.StatusBadRequest, "0"},
		{"unknown range", "9", string(mustMarshal(t, many[:1])), http.StatusGone, "1002"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := rawBulkBody(t, s, "c1", tt.rangeID, []byte(tt.body), nil)
			if rep.status != tt.status || rep.header.Get(wire.HeaderSubStatus) != tt.sub {
				t.Fatalf("status %d/%s, want %d/%s: %s", rep.status, rep.header.Get(wire.HeaderSubStatus), tt.status, tt.sub, rep.body)
			}
		})
	}

	// Java's "collectionRid,rangeId" form names the range too; a key outside the range fails
	// alone with 410/1002; after a split the old id is gone for the whole request.
	in0, in1 := keyInRange(t, 2, 0), keyInRange(t, 2, 1)
	rep := rawBulk(t, s, "c1", "AAAAAA==,0", []wire.BatchOperation{upsertOp("k0", in0), upsertOp("k1", in1)}, nil)
	if rep.status != http.StatusMultiStatus || rep.results[0].StatusCode != http.StatusCreated ||
		rep.results[1].StatusCode != http.StatusGone || rep.results[1].SubStatusCode != 1002 {
		t.Fatalf("routing: %d %s", rep.status, rep.body)
	}
	if err := s.SplitRange("db", "c1", "0"); err != nil {
		t.Fatal(err)
	}
	rep = rawBulk(t, s, "c1", "0", []wire.BatchOperation{upsertOp("k0", in0)}, nil)
	if rep.status != http.StatusGone || rep.header.Get(wire.HeaderSubStatus) != "1002" {
		t.Fatalf("split range: %d %s", rep.status, rep.body)
	}
}

// keyInRange returns a partition key value that a container of n ranges (/pk, hash version 1,
// azcosmos's default when the definition names none) holds in range i.
func keyInRange(t *testing.T, n, i int) string {
	t.Helper()
	r := epk.Ranges(n, "Hash", 1)[i]
	for k := range 1000 {
		v := fmt.Sprint("key", k)
		if r.Contains(epk.Hash([]any{v}, "Hash", 1)) {
			return v
		}
	}
	t.Fatal("no key found")
	return ""
}

// TestBulkThrottling: with throughput limits, the operations after the range's budget is spent
// answer 429/3200 each with retryAfterMilliseconds and are not applied; the next request is
// refused whole with x-ms-retry-after-ms; a Low priority request sees the budget end at 80%.
func TestBulkThrottling(t *testing.T) {
	s, cc := limitedContainer(t, 400)
	ctx := context.Background()
	batch := func(prefix string) []wire.BatchOperation {
		ops := make([]wire.BatchOperation, 100)
		for i := range ops {
			ops[i] = upsertOp(fmt.Sprint(prefix, i), "p")
		}
		return ops
	}
	count := func(rs []wire.BatchResult, st int) int {
		n := 0
		for _, r := range rs {
			if r.StatusCode == st {
				n++
			}
		}
		return n
	}
	// 400 RU/s: operations run while less than 400 RU are spent (each charged by its size and
	// indexed terms, internal/rucharge); the rest are throttled.
	rep := rawBulk(t, s, "c", "0", batch("a"), nil)
	ran, spent := admitted(t, rep.results, 0, 400)
	if rep.status != http.StatusMultiStatus || ran == 0 || count(rep.results, 429) != 100-ran {
		t.Fatalf("status %d, %d created, %d throttled", rep.status, ran, count(rep.results, 429))
	}
	last := rep.results[99]
	if last.SubStatusCode != 3200 || last.RetryAfterMilliseconds != 750 || last.RequestCharge != 0 {
		t.Errorf("throttled result %+v, want 3200, 750 ms (the clock is 250 ms into its second), 0 RU", last)
	}
	if _, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("p"), fmt.Sprint("a", ran), nil); err == nil {
		t.Error("a throttled operation was applied")
	}
	rep = rawBulk(t, s, "c", "0", batch("b"), nil)
	if rep.status != http.StatusTooManyRequests || rep.header.Get(wire.HeaderRetryAfterMs) == "" || rep.header.Get(wire.HeaderSubStatus) != "3200" {
		t.Fatalf("spent range: %d %v", rep.status, rep.header)
	}
	s.Advance(time.Second) // a new second's budget, less the overdraft of the last operation run
	low := func(h http.Header) { h.Set(wire.HeaderPriorityLevel, wire.PriorityLow) }
	rep = rawBulk(t, s, "c", "0", batch("c"), low)
	// Low: throttled once 80% of the second's budget (320 RU) is spent.
	admitted(t, rep.results, spent-400, 320)
	if rep = rawBulk(t, s, "c", "0", batch("d"), low); rep.status != http.StatusTooManyRequests {
		t.Errorf("Low priority over 80%%: %d, want 429", rep.status)
	}
	if rep = rawBulk(t, s, "c", "0", batch("e"), nil); rep.status != http.StatusMultiStatus || count(rep.results, 201) == 0 {
		t.Errorf("High priority under 100%%: %d %s, want some admitted", rep.status, rep.body)
	}
}

// TestBulkResponseLimit: once the results reach the response limit (4 MB) the rest are not run
// and answer 413.
func TestBulkResponseLimit(t *testing.T) {
	s, cc := setup(t)
	ctx := context.Background()
	pad := strings.Repeat("x", 1500*1024)
	var ops []wire.BatchOperation
	for i := range 4 {
		id := fmt.Sprint("big", i)
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), fmt.Appendf(nil, `{"id":%q,"pk":"p","pad":%q}`, id, pad), nil); err != nil {
			t.Fatal(err)
		}
		ops = append(ops, wire.BatchOperation{OperationType: wire.BatchRead, ID: id, PartitionKey: pkJSON("p")})
	}
	ops = append(ops, upsertOp("after", "p"))
	rep := rawBulk(t, s, "c1", "0", ops, nil)
	if got := fmt.Sprint(resultStatuses(rep.results)); rep.status != http.StatusMultiStatus || got != "[200 200 200 413 413]" {
		t.Fatalf("status %d results %s", rep.status, got)
	}
	if _, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("p"), "after", nil); err == nil {
		t.Error("an operation past the response limit was applied")
	}
}

// TestThroughputBuckets: requests naming a bucket the offer limits to 20% are throttled once
// the bucket spent 20% of the partition's second; requests naming no bucket are not.
func TestThroughputBuckets(t *testing.T) {
	s, cc := limitedContainer(t, 1000)
	ctx := context.Background()
	if err := s.SetThroughputBuckets("db", "c", map[int]int{1: 20}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetThroughputBuckets("db", "c", map[int]int{7: 20}); err == nil {
		t.Error("bucket 7 accepted")
	}
	pk := azcosmos.NewPartitionKeyString("p")
	one := int32(1)
	write := func(i int, bucket *int32) error {
		_, err := cc.UpsertItem(ctx, pk, fmt.Appendf(nil, `{"id":"i%d","pk":"p"}`, i), &azcosmos.ItemOptions{ThroughputBucket: bucket})
		return err
	}
	n, spent, last := 0, 0.0, 0.0
	for ; n < 100; n++ {
		resp, err := cc.UpsertItem(ctx, pk, fmt.Appendf(nil, `{"id":"i%d","pk":"p"}`, n), &azcosmos.ItemOptions{ThroughputBucket: &one})
		if err == nil {
			spent, last = spent+float64(resp.RequestCharge), float64(resp.RequestCharge)
			continue
		}
		if st, sub := status(t, err); st != http.StatusTooManyRequests || sub != "3200" {
			t.Fatalf("write %d: %v", n, err)
		}
		break
	}
	// 200 RU for bucket 1: writes are admitted while less than 200 RU are spent.
	if n == 0 || spent-last >= 200 || spent < 200 {
		t.Errorf("bucket 1 admitted %d writes (%.2f RU, the last %.2f), want writes while under 200 RU", n, spent, last)
	}
	if err := write(1000, nil); err != nil {
		t.Errorf("a write naming no bucket: %v", err)
	}
	s.Advance(time.Second)
	if err := write(1001, &one); err != nil {
		t.Errorf("bucket 1 in the next second: %v", err)
	}
}

// admitted checks that the operations run (201, the first results) are exactly those that started
// while less than budget RU were spent, counting from start RU, and returns how many ran and the RU
// spent after them.
func admitted(t *testing.T, rs []wire.BatchResult, start, budget float64) (ran int, spent float64) {
	t.Helper()
	spent = start
	for _, r := range rs {
		if r.StatusCode != http.StatusCreated {
			break
		}
		if spent >= budget {
			t.Errorf("operation %d ran with %.2f RU of %.0f spent", ran, spent, budget)
		}
		spent += r.RequestCharge
		ran++
	}
	if ran < len(rs) && spent < budget {
		t.Errorf("throttled after %d operations with only %.2f RU of %.0f spent", ran, spent, budget)
	}
	return ran, spent
}

// limitedContainer is a cosmostest server with throughput limits on a frozen clock, and its
// container db/c (partition key /pk) provisioned at ru RU/s, through a client that never retries.
func limitedContainer(t *testing.T, ru int32) (*cosmostest.Server, *azcosmos.ContainerClient) {
	t.Helper()
	s := cosmostest.NewServer(t, frozenClock(), cosmostest.WithThroughputLimits())
	c := newClient(t, s, noRetries)
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	tp := azcosmos.NewManualThroughputProperties(ru)
	props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
	if _, err := db.CreateContainer(ctx, props, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	return s, cc
}
