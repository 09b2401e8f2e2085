package changefeed_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// MigrateHandler upgrades every document below the current schema version, once, through the
// change feed; documents of other types and current ones are left alone.
func TestMigrateHandler(t *testing.T) {
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
	put := func(raw string) {
		var m map[string]any
		_ = json.Unmarshal([]byte(raw), &m)
		if _, err := e.monitored.UpsertItem(ctx, azcosmos.NewPartitionKeyString(m["pk"].(string)), []byte(raw), nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		put(fmt.Sprintf(`{"id":"o%d","pk":"c%d","type":"order","schemaVersion":1,"amount":%d}`, i, i%5, i))
	}
	put(`{"id":"n1","pk":"c1","type":"note","schemaVersion":1}`)
	if _, err := orders.Create(ctx, order{ID: "new", PK: "c1", Total: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := changefeed.MigrateHandler(orders, changefeed.DispatchOptions{}); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Errorf("MigrateHandler without partition key paths: %v", err)
	}
	h, err := changefeed.MigrateHandler(orders, changefeed.DispatchOptions{PartitionKeyPaths: []string{"/pk"}})
	if err != nil {
		t.Fatal(err)
	}
	p := newProc(t, e, "migrator", h, fast())
	count := func(q string) int {
		pager := e.monitored.NewQueryItemsPager(q, azcosmos.NewPartitionKey(), nil)
		n := 0
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			n += len(page.Items)
		}
		return n
	}
	waitFor(t, "every order at version 2", 10*time.Second, func() bool {
		return count(`SELECT c.id FROM c WHERE c.type = "order" AND c.schemaVersion = 1`) == 0
	})
	est := p.Estimator()
	waitFor(t, "lag 0", 10*time.Second, func() bool { n, err := est.Total(ctx); return err == nil && n == 0 })
	stop(t, p)
	if n := count(`SELECT c.id FROM c WHERE c.type = "order" AND c.schemaVersion = 2 AND IS_DEFINED(c.total) AND NOT IS_DEFINED(c.amount)`); n != 31 {
		t.Errorf("%d orders upgraded, want 31", n)
	}
	if n := count(`SELECT c.id FROM c WHERE c.type = "note" AND c.schemaVersion = 1`); n != 1 {
		t.Errorf("the note was touched")
	}
	o, err := orders.Get(ctx, azcosmos.NewPartitionKeyString("c2"), "o7")
	if err != nil || o.Total != 7 {
		t.Errorf("o7 = %+v, %v", o, err)
	}
}
