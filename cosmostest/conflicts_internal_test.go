package cosmostest

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestCustomConflictRecorded: in custom mode without a merge procedure, a conflict keeps the
// same winner in both regions and records the loser once (recordConflict, the conflicts feed).
func TestCustomConflictRecorded(t *testing.T) {
	s := NewServer(t, WithRegions("West US", "East US"), WithMultiWrite(), WithReplicationLag(time.Minute))
	var recs []conflictRecord
	s.s.mu.Lock()
	s.s.onConflict = func(_ *container, rec conflictRecord) { recs = append(recs, rec) }
	s.s.mu.Unlock()
	cred, err := azcosmos.NewKeyCredential(s.Key())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	clients := map[string]*azcosmos.ContainerClient{}
	for _, region := range []string{"West US", "East US"} {
		o := s.ClientOptions()
		o.PreferredRegions = []string{region}
		client, err := azcosmos.NewClientWithKey(s.Endpoint(), cred, o)
		if err != nil {
			t.Fatal(err)
		}
		if region == "West US" {
			if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
				t.Fatal(err)
			}
			db, _ := client.NewDatabase("db")
			props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
				ConflictResolutionPolicy: &azcosmos.ConflictResolutionPolicy{Mode: azcosmos.ConflictResolutionModeCustom}}
			if _, err := db.CreateContainer(ctx, props, nil); err != nil {
				t.Fatal(err)
			}
		}
		clients[region], _ = client.NewContainer("db", "c")
	}
	w, e := clients["West US"], clients["East US"]
	if _, err := w.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p","v":1}`), nil); err != nil {
		t.Fatal(err)
	}
	s.Advance(time.Second)
	if _, err := e.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p","v":2}`), nil); err != nil {
		t.Fatal(err)
	}
	s.Advance(time.Minute)
	rw, err := w.ReadItem(ctx, pk, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	re, err := e.ReadItem(ctx, pk, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(rw.Value) != string(re.Value) {
		t.Fatalf("regions disagree: West %s, East %s", rw.Value, re.Value)
	}
	s.s.mu.Lock()
	defer s.s.mu.Unlock()
	if len(recs) != 1 {
		t.Fatalf("%d conflicts recorded, want 1: %+v", len(recs), recs)
	}
	rec := recs[0]
	if rec.op != "create" || rec.id != "a" || rec.loser == nil || rec.loser.doc["v"] != float64(1) || rec.lsn == 0 || rec.key != itemKey([]any{"p"}, "a") {
		t.Fatalf("conflict record %+v (loser %v), want the earlier create of v=1", rec, rec.loser.doc)
	}
}
