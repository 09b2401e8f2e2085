package cosmostest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// ExampleServer_Seed seeds documents without HTTP, reads one back and dumps the container.
func ExampleServer_Seed() {
	s, err := cosmostest.Start(cosmostest.WithHTTP())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	if err := s.CreateContainer("shop", "orders", "/customer"); err != nil {
		fmt.Println(err)
		return
	}
	type order struct {
		ID       string `json:"id"`
		Customer string `json:"customer"`
		Total    int    `json:"total"`
	}
	err = s.Seed("shop", "orders",
		order{ID: "o1", Customer: "ada", Total: 12},
		[]byte(`{"id":"o2","customer":"bob","total":30}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	raw, err := s.Document("shop", "orders", "ada", "o1")
	if err != nil {
		fmt.Println(err)
		return
	}
	var o order
	_ = json.Unmarshal(raw, &o)
	fmt.Println(o.ID, o.Customer, o.Total)

	_, err = s.Document("shop", "orders", "ada", "o9")
	fmt.Println(errors.Is(err, fs.ErrNotExist))

	docs, _ := s.Dump("shop", "orders")
	for _, d := range docs {
		var m map[string]any
		_ = json.Unmarshal(d, &m)
		fmt.Println(m["id"], m["_etag"] != nil, m["_ts"] != nil)
	}
	// Output:
	// o1 ada 12
	// true
	// o1 true true
	// o2 true true
}

// TestSeedThroughTheStore: seeded documents are what a client reads, queries and sees in the
// change feed, on several physical partitions, and with hierarchical keys.
func TestSeedThroughTheStore(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(4))
	ctx := context.Background()
	if err := s.CreateContainer("db", "c", "/pk"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateContainer("db", "c", "/pk"); err != nil {
		t.Fatalf("again, same paths: %v", err)
	}
	if err := s.CreateContainer("db", "c", "/other"); err == nil {
		t.Fatal("same container, other paths: want an error")
	}
	var docs []any
	for i := range 20 {
		docs = append(docs, map[string]any{"id": fmt.Sprint("d", i), "pk": fmt.Sprint("p", i%7), "n": i})
	}
	if err := s.Seed("db", "c", docs...); err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, s, nil)
	cc, err := cl.NewContainer("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	got, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("p3"), "d10", nil)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(got.Value, &m); err != nil || m["n"] != float64(10) || m["_etag"] != string(got.ETag) {
		t.Fatalf("read %s (etag %s): %v", got.Value, got.ETag, err)
	}
	direct, err := s.Document("db", "c", "p3", "d10")
	if err != nil || string(direct) != string(got.Value) {
		t.Fatalf("Document = %s, %v; the client read %s", direct, err, got.Value)
	}
	// A client write then a Seed of the same id: the seed is an upsert with a new etag.
	if err := s.Seed("db", "c", `ignored`); err == nil || !strings.Contains(err.Error(), "document 0") {
		t.Fatalf("a JSON string: %v", err)
	}
	if err := s.Seed("db", "c", map[string]any{"id": "d10", "pk": "p3", "n": 100}); err != nil {
		t.Fatal(err)
	}
	again, _ := s.Document("db", "c", "p3", "d10")
	var m2 map[string]any
	_ = json.Unmarshal(again, &m2)
	if m2["n"] != float64(100) || m2["_etag"] == m["_etag"] || m2["_rid"] != m["_rid"] {
		t.Fatalf("after upsert: %s (before %s)", again, direct)
	}
	dump, err := s.Dump("db", "c")
	if err != nil || len(dump) != 20 {
		t.Fatalf("Dump: %d docs, %v", len(dump), err)
	}
	// The change feed of every range lists the seeded documents.
	pager := cc.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c", azcosmos.NewPartitionKeyString("p3"), nil)
	page, err := pager.NextPage(ctx)
	if err != nil || len(page.Items) != 1 || string(page.Items[0]) != "3" {
		t.Fatalf("count in p3: %v %v", page, err)
	}

	// Hierarchical keys: pk is a []any.
	if err := s.CreateContainer("db", "h", "/tenant", "/user"); err != nil {
		t.Fatal(err)
	}
	if err := s.Seed("db", "h", map[string]any{"id": "x", "tenant": "t1", "user": "u1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Document("db", "h", []any{"t1", "u1"}, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Document("db", "h", []any{"t1", "u2"}, "x"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("other partition: %v", err)
	}
}

// TestSeedErrors: bad arguments are errors, never panics.
func TestSeedErrors(t *testing.T) {
	s := cosmostest.NewServer(t)
	if err := s.Seed("nodb", "c", map[string]any{"id": "a"}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Seed into a missing container: %v", err)
	}
	if _, err := s.Dump("nodb", "c"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Dump of a missing container: %v", err)
	}
	if _, err := s.Document("nodb", "c", "p", "a"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Document of a missing container: %v", err)
	}
	if err := s.CreateContainer("db", "c"); err == nil {
		t.Fatal("CreateContainer without paths: want an error")
	}
	if err := s.CreateContainer("db", "c", "/pk"); err != nil {
		t.Fatal(err)
	}
	if err := s.Seed("db", "c", map[string]any{"pk": "x"}); err == nil || !strings.Contains(err.Error(), "id") {
		t.Fatalf("no id: %v", err)
	}
	if err := s.Seed("db", "c", make(chan int)); err == nil {
		t.Fatal("unmarshalable doc: want an error")
	}
}

// TestUnknownRegionIsAnError: every call naming a region returns an error for an unknown one,
// as SplitRange does for an unknown range (they used to panic).
func TestUnknownRegionIsAnError(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"))
	checks := map[string]error{
		"SetRegionDown":       s.SetRegionDown("Mars", true),
		"FailoverWriteRegion": s.FailoverWriteRegion("Mars"),
		"SetReplicationLag":   s.SetReplicationLag("Mars", 0),
	}
	_, err := s.ReplicationLag("Mars")
	checks["ReplicationLag"] = err
	for name, err := range checks {
		if !errors.Is(err, cosmostest.ErrUnknownRegion) || !strings.Contains(err.Error(), `"East US"`) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := s.SetRegionDown("east us", true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRegionDown("East US", false); err != nil {
		t.Fatal(err)
	}
}
