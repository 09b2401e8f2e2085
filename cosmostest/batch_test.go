package cosmostest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

func batchStatuses(resp azcosmos.TransactionalBatchResponse) []int32 {
	out := make([]int32, len(resp.OperationResults))
	for i, r := range resp.OperationResults {
		out[i] = r.StatusCode
	}
	return out
}

func doc(id, pk string) []byte { return []byte(fmt.Sprintf(`{"id":%q,"pk":%q}`, id, pk)) }

// TestBatchLikeEmulator follows the SDK's own emulator batch test: no bodies by default, bodies
// when the batch reads, bodies for every write with EnableContentResponseOnWrite.
func TestBatchLikeEmulator(t *testing.T) {
	_, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("tBatch")

	b := cc.NewTransactionalBatch(pk)
	b.CreateItem(doc("test", "tBatch"), nil)
	b.CreateItem(doc("test2", "tBatch"), nil)
	b.CreateItem(doc("test5", "tBatch"), nil)
	resp, err := cc.ExecuteTransactionalBatch(ctx, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Success || resp.RawResponse.StatusCode != http.StatusOK || len(resp.OperationResults) != 3 {
		t.Fatalf("success %v status %d results %d", resp.Success, resp.RawResponse.StatusCode, len(resp.OperationResults))
	}
	var sum float64
	for i, r := range resp.OperationResults {
		if r.StatusCode != http.StatusCreated || r.RequestCharge <= 0 || r.ETag == "" || r.ResourceBody != nil {
			t.Errorf("op %d: %+v (want 201, charge > 0, etag, no body)", i, r)
		}
		sum += float64(r.RequestCharge)
	}
	if resp.SessionToken == "" || math.Abs(float64(resp.RequestCharge)-sum) > 0.01 {
		t.Errorf("session %q, charge %v, sum of ops %v", resp.SessionToken, resp.RequestCharge, sum)
	}
	read, err := cc.ReadItem(ctx, pk, "test2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if read.ETag != resp.OperationResults[1].ETag {
		t.Errorf("stored etag %q, batch result etag %q", read.ETag, resp.OperationResults[1].ETag)
	}

	b2 := cc.NewTransactionalBatch(pk)
	b2.CreateItem(doc("test3", "tBatch"), nil)
	b2.ReadItem("test2", nil)
	b2.DeleteItem("test", nil)
	resp2, err := cc.ExecuteTransactionalBatch(ctx, b2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(batchStatuses(resp2)); !resp2.Success || got != "[201 200 204]" {
		t.Fatalf("statuses %s success %v", got, resp2.Success)
	}
	for i, r := range resp2.OperationResults {
		if r.RequestCharge <= 0 {
			t.Errorf("op %d charge %v", i, r.RequestCharge)
		}
		if i < 2 && (r.ETag == "" || r.ResourceBody == nil) {
			t.Errorf("op %d: want etag and body, got %+v", i, r)
		}
		if i == 2 && r.ResourceBody != nil {
			t.Errorf("delete has a body: %s", r.ResourceBody)
		}
	}
	var got map[string]any
	if err := json.Unmarshal(resp2.OperationResults[1].ResourceBody, &got); err != nil || got["id"] != "test2" || got["_etag"] == nil {
		t.Errorf("read body %s (%v)", resp2.OperationResults[1].ResourceBody, err)
	}
	if _, err := cc.ReadItem(ctx, pk, "test", nil); !isStatus(err, http.StatusNotFound) {
		t.Errorf("deleted item: %v", err)
	}

	b3 := cc.NewTransactionalBatch(pk)
	b3.UpsertItem(doc("test4", "tBatch"), nil)
	b3.ReplaceItem("test3", []byte(`{"id":"test3","pk":"tBatch","v":2}`), nil)
	p := azcosmos.PatchOperations{}
	p.AppendAdd("/newField", "newValue")
	b3.PatchItem("test5", p, nil)
	resp3, err := cc.ExecuteTransactionalBatch(ctx, b3, &azcosmos.TransactionalBatchOptions{EnableContentResponseOnWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(batchStatuses(resp3)); !resp3.Success || got != "[201 200 200]" {
		t.Fatalf("statuses %s success %v", got, resp3.Success)
	}
	for i, r := range resp3.OperationResults {
		if r.RequestCharge <= 0 || r.ETag == "" || r.ResourceBody == nil {
			t.Errorf("op %d: %+v (want charge, etag and body)", i, r)
		}
	}
	patched, err := cc.ReadItem(ctx, pk, "test5", nil)
	if err != nil || !strings.Contains(string(patched.Value), `"newField":"newValue"`) {
		t.Errorf("patched item %s (%v)", patched.Value, err)
	}
}

func isStatus(err error, status int) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == status
}

// TestBatchFailureRollsBack: the failing op gets its own status, every other op 424, HTTP 207,
// and nothing the batch did before the failure is visible afterwards.
func TestBatchFailureRollsBack(t *testing.T) {
	_, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(ctx, pk, doc("test", "p"), nil); err != nil {
		t.Fatal(err)
	}
	keep, err := cc.CreateItem(ctx, pk, []byte(`{"id":"keep","pk":"p","n":1}`), nil)
	if err != nil {
		t.Fatal(err)
	}

	b := cc.NewTransactionalBatch(pk)
	b.CreateItem(doc("test2", "p"), nil)
	b.CreateItem(doc("test", "p"), nil)
	resp, err := cc.ExecuteTransactionalBatch(ctx, b, &azcosmos.TransactionalBatchOptions{EnableContentResponseOnWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(batchStatuses(resp)); resp.Success || resp.RawResponse.StatusCode != http.StatusMultiStatus || got != "[424 409]" {
		t.Fatalf("success %v status %d ops %s (want false 207 [424 409])", resp.Success, resp.RawResponse.StatusCode, got)
	}
	for i, r := range resp.OperationResults {
		if r.RequestCharge <= 0 || r.ResourceBody != nil {
			t.Errorf("op %d: %+v (want charge > 0, no body)", i, r)
		}
	}
	if _, err := cc.ReadItem(ctx, pk, "test2", nil); !isStatus(err, http.StatusNotFound) {
		t.Fatalf("test2 after a failed batch: %v (want 404)", err)
	}

	// Writes of every kind before a failing op (404 here) leave nothing behind.
	p := azcosmos.PatchOperations{}
	p.AppendIncrement("/n", 1)
	b2 := cc.NewTransactionalBatch(pk)
	b2.UpsertItem(doc("new", "p"), nil)
	b2.DeleteItem("test", nil)
	b2.PatchItem("keep", p, nil)
	b2.ReplaceItem("missing", doc("missing", "p"), nil)
	b2.CreateItem(doc("after", "p"), nil)
	resp2, err := cc.ExecuteTransactionalBatch(ctx, b2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(batchStatuses(resp2)); got != "[424 424 424 404 424]" {
		t.Fatalf("ops %s", got)
	}
	for _, id := range []string{"new", "after"} {
		if _, err := cc.ReadItem(ctx, pk, id, nil); !isStatus(err, http.StatusNotFound) {
			t.Errorf("%s after a failed batch: %v (want 404)", id, err)
		}
	}
	if _, err := cc.ReadItem(ctx, pk, "test", nil); err != nil {
		t.Errorf("deleted by a failed batch: %v", err)
	}
	got, err := cc.ReadItem(ctx, pk, "keep", nil)
	if err != nil || got.ETag != keep.ETag || !strings.Contains(string(got.Value), `"n":1`) {
		t.Errorf("patched by a failed batch: %s etag %q (want %q), %v", got.Value, got.ETag, keep.ETag, err)
	}
	// The next successful write continues the LSN sequence as if the batch never ran.
	w, err := cc.UpsertItem(ctx, pk, doc("x", "p"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if *w.SessionToken != "0:-1#3" {
		t.Errorf("session after rollback %q, want 0:-1#3", *w.SessionToken)
	}
}

func TestBatchIfMatch(t *testing.T) {
	_, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	created, err := cc.CreateItem(ctx, pk, doc("a", "p"), nil)
	if err != nil {
		t.Fatal(err)
	}
	stale := azcore.ETag(`"stale"`)

	for name, add := range map[string]func(*azcosmos.TransactionalBatch){
		"replace": func(b *azcosmos.TransactionalBatch) {
			b.ReplaceItem("a", doc("a", "p"), &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &stale})
		},
		"upsert": func(b *azcosmos.TransactionalBatch) {
			b.UpsertItem(doc("a", "p"), &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &stale})
		},
		"delete": func(b *azcosmos.TransactionalBatch) {
			b.DeleteItem("a", &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &stale})
		},
		"patch": func(b *azcosmos.TransactionalBatch) {
			p := azcosmos.PatchOperations{}
			p.AppendSet("/q", 1)
			b.PatchItem("a", p, &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &stale})
		},
	} {
		b := cc.NewTransactionalBatch(pk)
		b.CreateItem(doc("b-"+name, "p"), nil)
		add(&b)
		resp, err := cc.ExecuteTransactionalBatch(ctx, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(batchStatuses(resp)); got != "[424 412]" {
			t.Errorf("%s with a stale etag: %s (want [424 412])", name, got)
		}
	}

	b := cc.NewTransactionalBatch(pk)
	b.ReplaceItem("a", []byte(`{"id":"a","pk":"p","v":2}`), &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &created.ETag})
	resp, err := cc.ExecuteTransactionalBatch(ctx, b, nil)
	if err != nil || !resp.Success {
		t.Fatalf("replace with the current etag: %v %v", batchStatuses(resp), err)
	}
	read, err := cc.ReadItem(ctx, pk, "a", nil)
	if err != nil || read.ETag != resp.OperationResults[0].ETag || read.ETag == created.ETag {
		t.Errorf("etag after replace %q, batch said %q, before %q (%v)", read.ETag, resp.OperationResults[0].ETag, created.ETag, err)
	}
}

func TestBatchLimits(t *testing.T) {
	_, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")

	b := cc.NewTransactionalBatch(pk)
	for i := range 101 {
		b.CreateItem(doc(fmt.Sprint(i), "p"), nil)
	}
	_, err := cc.ExecuteTransactionalBatch(ctx, b, nil)
	if st, _ := status(t, err); st != http.StatusBadRequest {
		t.Fatalf("101 operations: %v (want 400)", err)
	}
	pager := cc.NewQueryItemsPager("SELECT * FROM c", pk, nil)
	page, err := pager.NextPage(ctx)
	if err != nil || len(page.Items) != 0 {
		t.Fatalf("items after a refused batch: %d (%v)", len(page.Items), err)
	}

	b = cc.NewTransactionalBatch(pk)
	for i := range 100 {
		b.CreateItem(doc(fmt.Sprint(i), "p"), nil)
	}
	resp, err := cc.ExecuteTransactionalBatch(ctx, b, nil)
	if err != nil || !resp.Success || len(resp.OperationResults) != 100 {
		t.Fatalf("100 operations: %v", err)
	}

	big := strings.Repeat("x", 700*1024)
	b = cc.NewTransactionalBatch(pk)
	for i := range 3 {
		b.UpsertItem([]byte(fmt.Sprintf(`{"id":"big%d","pk":"p","s":%q}`, i, big)), nil)
	}
	_, err = cc.ExecuteTransactionalBatch(ctx, b, nil)
	if st, _ := status(t, err); st != http.StatusRequestEntityTooLarge {
		t.Fatalf("2.1 MB batch: %v (want 413)", err)
	}

	// A document of another logical partition fails its operation with 400/1001.
	b = cc.NewTransactionalBatch(pk)
	b.CreateItem(doc("ok", "p"), nil)
	b.CreateItem(doc("other", "q"), nil)
	resp, err = cc.ExecuteTransactionalBatch(ctx, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(batchStatuses(resp)); got != "[424 400]" {
		t.Fatalf("document of another partition: %s (want [424 400])", got)
	}
	if _, err := cc.ReadItem(ctx, pk, "ok", nil); !isStatus(err, http.StatusNotFound) {
		t.Errorf("ok after a failed batch: %v", err)
	}
}

// TestBatchUniqueKeys: unique keys are checked against the items the batch itself wrote, and a
// violation rolls the batch back.
func TestBatchUniqueKeys(t *testing.T) {
	s := cosmostest.NewServer(t)
	cc := newContainer(t, newClient(t, s, nil), "uk", &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		UniqueKeyPolicy:        &azcosmos.UniqueKeyPolicy{UniqueKeys: []azcosmos.UniqueKey{{Paths: []string{"/email"}}}},
	})
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p","email":"a@x"}`), nil); err != nil {
		t.Fatal(err)
	}
	b := cc.NewTransactionalBatch(pk)
	b.CreateItem([]byte(`{"id":"b","pk":"p","email":"b@x"}`), nil)
	b.CreateItem([]byte(`{"id":"c","pk":"p","email":"b@x"}`), nil)
	resp, err := cc.ExecuteTransactionalBatch(ctx, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(batchStatuses(resp)); got != "[424 409]" {
		t.Fatalf("duplicate unique key within the batch: %s (want [424 409])", got)
	}
	b = cc.NewTransactionalBatch(pk)
	b.DeleteItem("a", nil)
	b.CreateItem([]byte(`{"id":"d","pk":"p","email":"a@x"}`), nil)
	if resp, err := cc.ExecuteTransactionalBatch(ctx, b, nil); err != nil || !resp.Success {
		t.Fatalf("reuse of a unique value deleted earlier in the batch: %v %v", batchStatuses(resp), err)
	}
	if _, err := cc.ReadItem(ctx, pk, "b", nil); !isStatus(err, http.StatusNotFound) {
		t.Errorf("b after a failed batch: %v", err)
	}
}
