package repository_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/repository"
)

// rawOrder is what the raw benchmarks write: the same document the repository writes.
type rawOrder struct {
	Order
	Type          string `json:"type"`
	SchemaVersion int    `json:"schemaVersion"`
}

func benchEnv(b *testing.B) (*env, *repository.Repository[Order]) {
	b.Helper()
	e := newEnv(b)
	orders := newOrders(b, e.container)
	for i := range 100 {
		status := "open"
		if i%2 == 1 {
			status = "paid"
		}
		if _, err := orders.Create(context.Background(), Order{ID: fmt.Sprintf("o%03d", i), CustomerID: "c1", Status: status, Total: i}); err != nil {
			b.Fatal(err)
		}
	}
	return e, orders
}

func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	e, orders := benchEnv(b)
	key := pk("c1")
	b.Run("repo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := orders.Get(ctx, key, "o001"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resp, err := e.container.ReadItem(ctx, key.SDK(), "o001", nil)
			if err != nil {
				b.Fatal(err)
			}
			var o Order
			if err := json.Unmarshal(resp.Value, &o); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkUpsert(b *testing.B) {
	ctx := context.Background()
	e, orders := benchEnv(b)
	o := Order{ID: "u1", CustomerID: "c1", Status: "open", Total: 42}
	b.Run("repo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := orders.Upsert(ctx, o); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		key := pk("c1")
		for b.Loop() {
			body, err := json.Marshal(rawOrder{Order: o, Type: "order", SchemaVersion: 1})
			if err != nil {
				b.Fatal(err)
			}
			resp, err := e.container.UpsertItem(ctx, key.SDK(), body, &azcosmos.ItemOptions{EnableContentResponseOnWrite: true})
			if err != nil {
				b.Fatal(err)
			}
			var out Order
			if err := json.Unmarshal(resp.Value, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkUpdate(b *testing.B) {
	ctx := context.Background()
	e, orders := benchEnv(b)
	key := pk("c1")
	b.Run("repo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := orders.Update(ctx, key, "o002", func(o *Order) error { o.N++; return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resp, err := e.container.ReadItem(ctx, key.SDK(), "o002", nil)
			if err != nil {
				b.Fatal(err)
			}
			var o rawOrder
			if err := json.Unmarshal(resp.Value, &o); err != nil {
				b.Fatal(err)
			}
			o.N++
			body, err := json.Marshal(o)
			if err != nil {
				b.Fatal(err)
			}
			etag := resp.ETag
			wr, err := e.container.ReplaceItem(ctx, key.SDK(), "o002", body, &azcosmos.ItemOptions{EnableContentResponseOnWrite: true, IfMatchEtag: &etag})
			if err != nil {
				b.Fatal(err)
			}
			var out Order
			if err := json.Unmarshal(wr.Value, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkQueryPage(b *testing.B) {
	ctx := context.Background()
	e, orders := benchEnv(b)
	key := pk("c1")
	q := repository.NewQuery().Where("status", repository.Eq, "open").Partition(key)
	b.Run("repo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := orders.Page(ctx, q, 20, "")
			if err != nil || len(p.Items) != 20 {
				b.Fatal(len(p.Items), err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		text := `SELECT * FROM c WHERE c.type = @type AND c["status"] = @p0`
		cross := false
		for b.Loop() {
			pager := e.container.NewQueryItemsPager(text, key.SDK(), &azcosmos.QueryOptions{
				PageSizeHint:              20,
				EnableCrossPartitionQuery: &cross,
				QueryParameters:           []azcosmos.QueryParameter{{Name: "@type", Value: "order"}, {Name: "@p0", Value: "open"}},
			})
			resp, err := pager.NextPage(ctx)
			if err != nil {
				b.Fatal(err)
			}
			items := make([]Order, 0, len(resp.Items))
			for _, doc := range resp.Items {
				var o Order
				if err := json.Unmarshal(doc, &o); err != nil {
					b.Fatal(err)
				}
				items = append(items, o)
			}
			if len(items) != 20 {
				b.Fatal(len(items))
			}
		}
	})
}
