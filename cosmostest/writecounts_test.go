package cosmostest_test

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// TestWriteCounts: point writes, a committed transactional batch, a rolled-back one, bulk
// operations (the failed ones not counted) and deletes, each counted where it was applied.
func TestWriteCounts(t *testing.T) {
	s, cc := setup(t, cosmostest.WithWriteCounts())
	ctx := context.Background()
	pkA := azcosmos.NewPartitionKeyString("a")
	for range 2 {
		if _, err := cc.UpsertItem(ctx, pkA, doc("p", "a"), nil); err != nil {
			t.Fatal(err)
		}
	}
	var ops azcosmos.PatchOperations
	ops.AppendSet("/n", 1)
	if _, err := cc.PatchItem(ctx, pkA, "p", ops, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.CreateItem(ctx, pkA, doc("p", "a"), nil); err == nil {
		t.Fatal("create of an existing item succeeded")
	}
	// Committed batch: two creates and a delete.
	b := cc.NewTransactionalBatch(pkA)
	b.CreateItem(doc("b1", "a"), nil)
	b.CreateItem(doc("b2", "a"), nil)
	b.DeleteItem("b2", nil)
	if r, err := cc.ExecuteTransactionalBatch(ctx, b, nil); err != nil || !r.Success {
		t.Fatalf("batch: %v", err)
	}
	// Rolled back: the create of b3 succeeds inside, the create of p fails.
	b = cc.NewTransactionalBatch(pkA)
	b.CreateItem(doc("b3", "a"), nil)
	b.CreateItem(doc("p", "a"), nil)
	if r, err := cc.ExecuteTransactionalBatch(ctx, b, nil); err != nil || r.Success {
		t.Fatalf("batch: %v, want a rolled-back batch", err)
	}
	// Bulk: an upsert applied, a create refused (409).
	rep := rawBulk(t, s, "c1", "0", []wire.BatchOperation{
		upsertOp("k", "b"),
		{OperationType: wire.BatchCreate, ID: "p", PartitionKey: pkJSON("a"), ResourceBody: doc("p", "a")},
	}, nil)
	if rep.status != http.StatusMultiStatus {
		t.Fatalf("bulk %d %s", rep.status, rep.body)
	}
	if _, err := cc.DeleteItem(ctx, pkA, "p", nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.WriteCounts("db", "c1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[cosmostest.ItemRef]int{
		{PartitionKey: `["a"]`, ID: "p"}:  4, // upsert ×2, patch, delete
		{PartitionKey: `["a"]`, ID: "b1"}: 1,
		{PartitionKey: `["a"]`, ID: "b2"}: 2, // create and delete in one batch
		{PartitionKey: `["b"]`, ID: "k"}:  1,
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%v: %d writes, want %d", k, got[k], n)
		}
	}
	if _, err := s.WriteCounts("db", "nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing container: %v", err)
	}
	if _, err := cosmostest.NewServer(t).WriteCounts("db", "c1"); err == nil {
		t.Error("WriteCounts without WithWriteCounts: no error")
	}
}
