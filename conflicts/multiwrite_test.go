package conflicts_test

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/conflicts"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// lag is the replication lag of the two-region servers below; the server clock (Advance) drives
// it, so no test sleeps.
const lag = time.Minute

// twoRegions starts a multi-write server with West US and East US and a replication lag, provisions
// db/c with spec's conflict resolution through a cosmoskit client, and returns the server, that
// client and one azcosmos container client per region (writes and reads go to its region).
func twoRegions(t *testing.T, crs cosmoskit.ConflictResolutionSpec) (*cosmostest.Server, *cosmoskit.Client, *azcosmos.ContainerClient, *azcosmos.ContainerClient) {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"), cosmostest.WithMultiWrite(), cosmostest.WithReplicationLag(lag))
	kc, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kc.Close)
	spec := cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}, ConflictResolution: crs}
	if _, err := kc.EnsureContainer(context.Background(), "db", spec); err != nil {
		t.Fatal(err)
	}
	cred, err := azcosmos.NewKeyCredential(s.Key())
	if err != nil {
		t.Fatal(err)
	}
	regional := func(region string) *azcosmos.ContainerClient {
		o := s.ClientOptions()
		o.PreferredRegions = []string{region}
		c, err := azcosmos.NewClientWithKey(s.Endpoint(), cred, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		cc, err := c.NewContainer("db", "c")
		if err != nil {
			t.Fatal(err)
		}
		return cc
	}
	return s, kc, regional("West US"), regional("East US")
}

type doc struct {
	ID      string  `json:"id"`
	PK      string  `json:"pk"`
	Version float64 `json:"version"`
	By      string  `json:"by"`
}

func write(t *testing.T, c *azcosmos.ContainerClient, d doc, create bool) {
	t.Helper()
	b, _ := json.Marshal(d)
	var err error
	if create {
		_, err = c.CreateItem(context.Background(), azcosmos.NewPartitionKeyString(d.PK), b, nil)
	} else {
		_, err = c.ReplaceItem(context.Background(), azcosmos.NewPartitionKeyString(d.PK), d.ID, b, nil)
	}
	if err != nil {
		t.Fatalf("write %+v: %v", d, err)
	}
}

func read(t *testing.T, c *azcosmos.ContainerClient, pk, id string) (doc, string) {
	t.Helper()
	r, err := c.ReadItem(context.Background(), azcosmos.NewPartitionKeyString(pk), id, nil)
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	var d doc
	var sys struct {
		Rid string `json:"_rid"`
	}
	_ = json.Unmarshal(r.Value, &d)
	_ = json.Unmarshal(r.Value, &sys)
	return d, sys.Rid
}

// TestCustomModeLosersAreListed: in Custom mode, concurrent updates of items in both regions keep
// one version everywhere and the reader lists each loser once (from any number of goroutines);
// deleting them empties the feed.
func TestCustomModeLosersAreListed(t *testing.T) {
	s, kc, west, east := twoRegions(t, cosmoskit.ConflictResolutionSpec{Mode: azcosmos.ConflictResolutionModeCustom})
	const items = 3
	id := func(i int) string { return "item" + strconv.Itoa(i) }
	for i := range items {
		write(t, west, doc{ID: id(i), PK: "p", Version: 1, By: "west"}, true)
	}
	s.Advance(lag) // the creates reach East US
	for i := range items {
		if d, _ := read(t, east, "p", id(i)); d.Version != 1 {
			t.Fatalf("East US has %+v before the updates", d)
		}
	}
	for i := range items { // West US first, East US a second later: East's write is the /_ts winner
		write(t, west, doc{ID: id(i), PK: "p", Version: 2, By: "west"}, false)
	}
	s.Advance(time.Second)
	for i := range items {
		write(t, east, doc{ID: id(i), PK: "p", Version: 2, By: "east"}, false)
	}
	s.Advance(lag)

	r, err := conflicts.New(kc, "db", "c", conflicts.Options{PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	// The feed is read before any item: reading it applies the writes that are due, in every region.
	var wg sync.WaitGroup
	lists := make([][]conflicts.Conflict, 4)
	for g := range lists {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := collect(t, r)
			if err != nil {
				t.Error(err)
			}
			lists[g] = got
		}()
	}
	wg.Wait()
	for g, got := range lists {
		if len(got) != items {
			t.Fatalf("reader %d listed %d conflicts, want %d: %+v", g, len(got), items, got)
		}
	}
	rids := map[string]string{}
	for i := range items {
		dw, rid := read(t, west, "p", id(i))
		de, _ := read(t, east, "p", id(i))
		if dw != de || de.By != "east" {
			t.Fatalf("%s: West US %+v, East US %+v; want both East's version", id(i), dw, de)
		}
		rids[rid] = id(i)
	}
	for _, c := range lists[0] {
		var lost doc
		if err := json.Unmarshal(c.Content, &lost); err != nil {
			t.Fatalf("content %s: %v", c.Content, err)
		}
		if c.Operation != conflicts.OperationReplace || c.ResourceType != "document" || lost.By != "west" || lost.Version != 2 ||
			rids[c.ResourceID] != lost.ID || c.LSN == 0 || c.Time.IsZero() || c.ETag == "" {
			t.Fatalf("conflict %+v (content %s), want West's losing replace of %s", c, c.Content, lost.ID)
		}
		got, err := r.Read(context.Background(), c.ID)
		if err != nil || got.ID != c.ID || string(got.Content) != string(c.Content) {
			t.Fatalf("Read(%s) = %+v, %v", c.ID, got, err)
		}
	}
	for _, c := range lists[0] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.Delete(context.Background(), c); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if left, err := collect(t, r); err != nil || len(left) != 0 {
		t.Fatalf("after deleting every conflict: %+v, %v", left, err)
	}
}

// TestVersionPathConverges: last writer wins on /version keeps the higher version in both regions,
// even when the region with the lower version wrote last, and puts nothing in the conflicts feed.
func TestVersionPathConverges(t *testing.T) {
	s, kc, west, east := twoRegions(t, cosmoskit.ConflictResolutionSpec{Path: "/version"})
	write(t, west, doc{ID: "cart", PK: "u1", Version: 1, By: "west"}, true)
	s.Advance(lag)
	if d, _ := read(t, east, "u1", "cart"); d.Version != 1 {
		t.Fatalf("East US has %+v before the updates", d)
	}
	write(t, west, doc{ID: "cart", PK: "u1", Version: 3, By: "west"}, false)
	s.Advance(time.Second)
	write(t, east, doc{ID: "cart", PK: "u1", Version: 2, By: "east"}, false) // later by _ts, lower version
	s.Advance(lag)
	for region, c := range map[string]*azcosmos.ContainerClient{"West US": west, "East US": east} {
		if d, _ := read(t, c, "u1", "cart"); d.Version != 3 || d.By != "west" {
			t.Errorf("%s converged to %+v, want West's version 3", region, d)
		}
	}
	r, err := conflicts.New(kc, "db", "c", conflicts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := collect(t, r); err != nil || len(got) != 0 {
		t.Fatalf("last writer wins listed conflicts %+v, %v", got, err)
	}
}
