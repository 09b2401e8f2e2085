package repository_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// Encode stamps and checks an item as Upsert does, and sends nothing.
func TestEncode(t *testing.T) {
	e := newEnv(t)
	r, err := repository.New(e.container, repository.Options[Order]{
		Type: "order", SchemaVersion: 3, Key: orderKey, PartitionKeyPaths: []string{"/customerId"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o := Order{ID: "o1", CustomerID: "c1", Total: 5}
	o.ETag = "etag-1"
	enc, err := r.Encode(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if enc.ID != "o1" || !enc.PartitionKey.Equal(partitionkey.Of("c1")) || enc.ETag != "etag-1" ||
		!strings.HasSuffix(string(enc.Body), `,"type":"order","schemaVersion":3}`) {
		t.Fatalf("Encode: %+v %s", enc, enc.Body)
	}
	// The body is the caller's: a second Encode does not reuse it.
	before := string(enc.Body)
	if _, err := r.Encode(ctx, Order{ID: "o2", CustomerID: "c2-longer"}); err != nil || string(enc.Body) != before {
		t.Fatalf("body changed by a later Encode: %v", err)
	}
	back, err := r.Decode(enc.Body)
	if err != nil || back.Total != 5 {
		t.Fatalf("Decode(Encode): %+v %v", back, err)
	}

	for name, tc := range map[string]struct {
		item  Order
		kind  error
		field string
	}{
		"bad id":        {Order{ID: "a?b", CustomerID: "c1"}, cosmoserr.ErrInvalidID, "id"},
		"key too long":  {Order{ID: "x", CustomerID: strings.Repeat("k", 2049)}, cosmoserr.ErrInvalidPartitionKey, "/customerId"},
		"unsafe number": {Order{ID: "x", CustomerID: "c1", Total: 1 << 60}, cosmoserr.ErrUnsafeNumber, "/total"},
	} {
		enc, err := r.Encode(ctx, tc.item)
		var ve *cosmoserr.ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, tc.kind) || ve.Field != tc.field {
			t.Errorf("%s: %v (field %v), want %v naming %s", name, err, ve, tc.kind, tc.field)
		}
		if enc.ID != tc.item.ID || enc.Body != nil {
			t.Errorf("%s: refused Encoded %+v, want only the id", name, enc)
		}
	}
	// A KeyFunc whose key differs from the item's own value.
	moved, _ := repository.New(e.container, repository.Options[Order]{
		Type: "order", PartitionKeyPaths: []string{"/customerId"},
		Key: func(o Order) (string, azcosmos.PartitionKey) { return o.ID, azcosmos.NewPartitionKeyString("other") },
	})
	if _, err := moved.Encode(ctx, o); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Errorf("key differing from the item's: %v", err)
	}
	if n, _ := e.srv.Dump("db", "c"); len(n) != 0 {
		t.Errorf("Encode sent %d documents", len(n))
	}
}
