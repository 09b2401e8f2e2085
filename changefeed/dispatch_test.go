package changefeed_test

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// order is at schema version 2: version 1 called the total "amount".
type order struct {
	repository.Meta
	ID    string `json:"id"`
	PK    string `json:"pk"`
	Total int    `json:"total"`
}

type customer struct {
	ID   string `json:"id"`
	PK   string `json:"pk"`
	Name string `json:"name"`
}

func TestDispatchByType(t *testing.T) {
	e := newEnv(t, 2)
	ctx := context.Background()
	orders, err := repository.New(e.monitored, repository.Options[order]{
		Type: "order", SchemaVersion: 2,
		Key: func(o order) (string, azcosmos.PartitionKey) { return o.ID, azcosmos.NewPartitionKeyString(o.PK) },
		Upgrades: map[int]repository.UpgradeFunc{1: func(m map[string]any) error {
			m["total"] = m["amount"]
			delete(m, "amount")
			return nil
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	customers, err := repository.New(e.monitored, repository.Options[customer]{
		Type: "customer", Key: func(c customer) (string, azcosmos.PartitionKey) { return c.ID, azcosmos.NewPartitionKeyString(c.PK) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := orders.Create(ctx, order{ID: "o1", PK: "c1", Total: 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := customers.Create(ctx, customer{ID: "c1", PK: "c1", Name: "Ada"}); err != nil {
		t.Fatal(err)
	}
	// An order written before version 2, and a document of a type no repository knows.
	for _, raw := range []string{
		`{"id":"o0","pk":"c2","type":"order","schemaVersion":1,"amount":7}`,
		`{"id":"n1","pk":"c1","type":"note","text":"hi"}`,
	} {
		var m map[string]any
		_ = json.Unmarshal([]byte(raw), &m)
		if _, err := e.monitored.UpsertItem(ctx, azcosmos.NewPartitionKeyString(m["pk"].(string)), []byte(raw), nil); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var got []string
	add := func(s string) {
		mu.Lock()
		got = append(got, s)
		mu.Unlock()
	}
	d, err := changefeed.NewDispatcher(changefeed.DispatchOptions{
		PartitionKeyPaths: []string{"/pk"},
		Raw: func(_ context.Context, doc []byte) error {
			var m map[string]any
			_ = json.Unmarshal(doc, &m)
			add("raw " + m["id"].(string))
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Options().PartitionKeyPaths; len(got) != 1 || got[0] != "/pk" {
		t.Fatalf("Options().PartitionKeyPaths = %q", got)
	}
	for _, paths := range [][]string{{"pk"}, {"/a", "/b", "/c", "/d"}, {"/a/"}} {
		var ve *cosmoserr.ValidationError
		if _, err := changefeed.NewDispatcher(changefeed.DispatchOptions{PartitionKeyPaths: paths}); !errors.As(err, &ve) || ve.Field != "Options.PartitionKeyPaths" {
			t.Errorf("NewDispatcher(%q) = %v, want a ValidationError for Options.PartitionKeyPaths", paths, err)
		}
	}
	changefeed.On(d, orders, func(_ context.Context, o order) error {
		add("order " + o.ID + " total " + itoa(o.Total))
		return nil
	})
	changefeed.On(d, customers, func(_ context.Context, c customer) error {
		add("customer " + c.Name)
		return nil
	})
	h, err := d.Handler()
	if err != nil {
		t.Fatal(err)
	}
	empty, err := changefeed.NewDispatcher(changefeed.DispatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := changefeed.On(empty, orders, nil).Handler(); err == nil {
		t.Error("a nil function was accepted")
	}
	p := newProc(t, e, "a", h, fast())
	waitFor(t, "four changes", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == 4
	})
	stop(t, p)
	sort.Strings(got)
	want := []string{"customer Ada", "order o0 total 7", "order o1 total 10", "raw n1"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("dispatched %q, want %q", got, want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
