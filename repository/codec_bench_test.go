package repository

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

type benchItem struct {
	ID       string   `json:"id"`
	Customer string   `json:"customerId"`
	Status   string   `json:"status"`
	Total    int      `json:"total"`
	Tags     []string `json:"tags"`
}

// BenchmarkCodec isolates the repository's own CPU work per item (no network): encode with the
// stamp and validation, and decode with the type/version check, against plain encoding/json.
func BenchmarkCodec(b *testing.B) {
	item := benchItem{ID: "o1", Customer: "c1", Status: "open", Total: 42, Tags: []string{"a", "b"}}
	r, err := New(&azcosmos.ContainerClient{}, Options[benchItem]{Type: "order",
		Key: func(i benchItem) (string, azcosmos.PartitionKey) {
			return i.ID, azcosmos.NewPartitionKeyString(i.Customer)
		}})
	if err != nil {
		b.Fatal(err)
	}
	doc := []byte(`{"id":"o1","customerId":"c1","status":"open","total":42,"tags":["a","b"],"type":"order","schemaVersion":1,"_rid":"AAAAAAAAAAABAAAAAAAAAA==","_self":"dbs/x/colls/y/docs/z/","_etag":"\"00000000-0000-0000-0000-000000000001\"","_attachments":"attachments/","_ts":1700000000}`)
	ctx := context.Background()
	b.Run("encode/repo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			id, pk := r.key(item)
			if _, err := r.checkPoint(pk, id); err != nil {
				b.Fatal(err)
			}
			e, err := r.encodeFor(ctx, item, id, pk)
			if err != nil {
				b.Fatal(err)
			}
			e.release()
		}
	})
	b.Run("encode/raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(item); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/repo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := decode[benchItem](&r.core, doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v benchItem
			if err := json.Unmarshal(doc, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
