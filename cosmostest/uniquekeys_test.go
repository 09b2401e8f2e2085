package cosmostest_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestUniqueKeyMissingCountsAsNull: the service documents that a missing unique-key value is
// treated as null, so a logical partition holds at most one item that lacks it or has null; a
// unique key is scoped to its logical partition, and replace and upsert are checked too.
func TestUniqueKeyMissingCountsAsNull(t *testing.T) {
	s := cosmostest.NewServer(t)
	cc := newContainer(t, newClient(t, s, nil), "uk", &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		UniqueKeyPolicy:        &azcosmos.UniqueKeyPolicy{UniqueKeys: []azcosmos.UniqueKey{{Paths: []string{"/email"}}}},
	})
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	create := func(doc string) error {
		_, err := cc.CreateItem(ctx, pk, []byte(doc), nil)
		return err
	}
	if err := create(`{"id":"1","pk":"p"}`); err != nil {
		t.Fatal(err)
	}
	if err := create(`{"id":"2","pk":"p"}`); !isStatus(err, http.StatusConflict) {
		t.Errorf("second item without the unique key: %v (want 409)", err)
	}
	if err := create(`{"id":"3","pk":"p","email":null}`); !isStatus(err, http.StatusConflict) {
		t.Errorf("null after a missing value: %v (want 409)", err)
	}
	if err := create(`{"id":"4","pk":"p","email":"a@x"}`); err != nil {
		t.Fatal(err)
	}
	// Another logical partition has its own unique values.
	if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("q"), []byte(`{"id":"5","pk":"q","email":"a@x"}`), nil); err != nil {
		t.Errorf("same unique value in another partition: %v", err)
	}
	// Replace and upsert that would duplicate a value are refused; rewriting an item's own value is not.
	if _, err := cc.ReplaceItem(ctx, pk, "1", []byte(`{"id":"1","pk":"p","email":"a@x"}`), nil); !isStatus(err, http.StatusConflict) {
		t.Errorf("replace to a taken value: %v (want 409)", err)
	}
	if _, err := cc.UpsertItem(ctx, pk, []byte(`{"id":"6","pk":"p","email":"a@x"}`), nil); !isStatus(err, http.StatusConflict) {
		t.Errorf("upsert of a new item with a taken value: %v (want 409)", err)
	}
	if _, err := cc.UpsertItem(ctx, pk, []byte(`{"id":"4","pk":"p","email":"a@x","n":1}`), nil); err != nil {
		t.Errorf("upsert keeping the item's own value: %v", err)
	}
}
