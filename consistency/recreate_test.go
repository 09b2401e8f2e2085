package consistency_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestRecreatedContainerReadableOnFirstRead: after another process deletes and re-creates a
// container, the client's session tokens for it name LSNs the new container has not reached, so
// every region answers 404/1002. The policy clears the container's tokens once and retries, as
// .NET's ClearingSessionContainerClientRetryPolicy does, so the first read succeeds. (Before, reads
// failed with ErrSessionNotAvailable until the new container's LSNs passed the old tokens.)
func TestRecreatedContainerReadableOnFirstRead(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"))
	ctx := context.Background()
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: quiet,
		PreferredRegions: []string{"West US", "East US"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	spec := cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}}
	ccRes, err := c.EnsureContainer(ctx, "db", spec)
	if err != nil {
		t.Fatal(err)
	}
	cc := ccRes.Container
	for _, id := range []string{"1", "2", "3", "4", "5"} {
		if _, err := cc.UpsertItem(ctx, pk, []byte(`{"id":"`+id+`","pk":"p","v":1}`), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cc.ReadItem(ctx, pk, "1", nil); err != nil {
		t.Fatal(err)
	}

	// Another process (a plain azcosmos client: no shared session container) re-creates it.
	other, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	oc, _ := other.NewContainer("db", "c")
	if _, err := oc.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := other.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	oc, _ = other.NewContainer("db", "c")
	if _, err := oc.UpsertItem(ctx, pk, []byte(`{"id":"new","pk":"p","v":2}`), nil); err != nil {
		t.Fatal(err)
	}

	s.ResetRequests()
	if v, err := readNew(ctx, cc); err != nil || v != 2 {
		t.Fatalf("first read of the re-created container: v%d, %v; want v2", v, err)
	}
	// Once per request: the retry cleared the tokens, so the next read needs none.
	if v, err := readNew(ctx, cc); err != nil || v != 2 {
		t.Fatalf("second read: v%d, %v", v, err)
	}
}

func readNew(ctx context.Context, cc *azcosmos.ContainerClient) (int, error) {
	r, err := cc.ReadItem(ctx, pk, "new", nil)
	if err != nil {
		return 0, err
	}
	var it item
	err = json.Unmarshal(r.Value, &it)
	return it.V, err
}
