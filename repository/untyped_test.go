package repository_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// seedUntyped writes, through the plain azcosmos client, the documents a service stored before it
// adopted the repository (no "type", no "schemaVersion"), and one document of another type.
func seedUntyped(t *testing.T, e *env) {
	t.Helper()
	for i := range 6 {
		c := fmt.Sprintf("c%d", i%3)
		rawPut(t, e.container, c, fmt.Sprintf(`{"id":"o%d","customerId":%q,"status":"open","total":%d}`, i, c, 10*i))
	}
	rawPut(t, e.container, "c0", `{"id":"cust","customerId":"c0","type":"customer","schemaVersion":1,"name":"Ada"}`)
}

// TestUntypedDocumentsStrictByDefault: by default a document without "type" is not this
// repository's: ErrTypeMismatch on a point read, absent from queries, untouched by Migrate.
func TestUntypedDocumentsStrictByDefault(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	seedUntyped(t, e)
	orders := newOrders(t, e.container, func(o *repository.Options[Order]) { o.UnversionedAs = 1 })
	if orders.Options().ReadUntyped {
		t.Fatal("Options().ReadUntyped is true by default")
	}
	var de *repository.DocumentError
	if _, err := orders.Get(ctx, pk("c0"), "o0"); !errors.Is(err, cosmoserr.ErrTypeMismatch) || !errors.As(err, &de) || de.Found != "" {
		t.Fatalf("Get of an untyped document: %v, want ErrTypeMismatch with Found \"\"", err)
	}
	if n, err := orders.Count(ctx, repository.NewQuery().CrossPartition()); err != nil || n != 0 {
		t.Fatalf("Count = %d, %v; want 0 (untyped documents are not orders by default)", n, err)
	}
	if res, err := orders.Migrate(ctx); err != nil || res.Found != 0 {
		t.Fatalf("Migrate = %+v, %v; want nothing found", res, err)
	}
	if raw := rawGet(t, e.container, "c0", "o0"); raw["type"] != nil {
		t.Fatalf("a strict Migrate stamped an untyped document: %v", raw)
	}
}

// TestReadUntypedDocuments: with Options.ReadUntyped, documents written before adoption are read
// as the repository's type by point reads, built queries and Update, and Migrate stamps them;
// documents of another type stay refused.
func TestReadUntypedDocuments(t *testing.T) {
	ctx := context.Background()
	e := newEnvWith(t, []cosmostest.Option{cosmostest.WithPartitionCount(3)})
	seedUntyped(t, e)
	orders := newOrders(t, e.container, func(o *repository.Options[Order]) {
		o.ReadUntyped = true
		o.UnversionedAs = 1
	})
	if !orders.Options().ReadUntyped {
		t.Fatal("Options().ReadUntyped = false, want true")
	}

	o, err := orders.Get(ctx, pk("c1"), "o1")
	if err != nil || o.Total != 10 || o.Status != "open" {
		t.Fatalf("Get of an untyped document = %+v, %v", o, err)
	}
	if ok, err := orders.Exists(ctx, pk("c1"), "o1"); !ok || err != nil {
		t.Fatalf("Exists = %v, %v", ok, err)
	}
	many, err := orders.ReadMany(ctx, []repository.Ref{{ID: "o0", PartitionKey: pk("c0")}, {ID: "o3", PartitionKey: pk("c0")}})
	if err != nil || len(many) != 2 {
		t.Fatalf("ReadMany = %+v, %v", many, err)
	}
	// Another type is still refused.
	if _, err := orders.Get(ctx, pk("c0"), "cust"); !errors.Is(err, cosmoserr.ErrTypeMismatch) {
		t.Fatalf("Get of a customer: %v, want ErrTypeMismatch", err)
	}
	// Built queries find them, in a partition and across partitions; the customer is not an order.
	var ids []string
	for o, err := range orders.All(ctx, repository.NewQuery().Partition(pk("c0")).OrderBy("total", repository.Asc)) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, o.ID)
	}
	if !slices.Equal(ids, []string{"o0", "o3"}) {
		t.Fatalf("query in c0 = %v, want [o0 o3]", ids)
	}
	if n, err := orders.Count(ctx, repository.NewQuery().Where("status", repository.Eq, "open").CrossPartition()); err != nil || n != 6 {
		t.Fatalf("Count = %d, %v; want 6", n, err)
	}
	// Update reads an untyped document and writes it back stamped.
	if _, err := orders.Update(ctx, pk("c2"), "o2", func(o *Order) error { o.Status = "paid"; return nil }); err != nil {
		t.Fatal(err)
	}
	if raw := rawGet(t, e.container, "c2", "o2"); raw["type"] != "order" || raw["schemaVersion"] != float64(1) || raw["status"] != "paid" {
		t.Fatalf("after Update: %v", raw)
	}

	// Migrate stamps the other five, with the ETag loop of Update; the customer is left alone.
	res, err := orders.Migrate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Found != 5 || res.Upgraded != 5 {
		t.Fatalf("Migrate = %+v, want 5 found and upgraded", res)
	}
	for i := range 6 {
		raw := rawGet(t, e.container, fmt.Sprintf("c%d", i%3), fmt.Sprintf("o%d", i))
		if raw["type"] != "order" || raw["schemaVersion"] != float64(1) {
			t.Fatalf("o%d not stamped: %v", i, raw)
		}
	}
	if raw := rawGet(t, e.container, "c0", "cust"); raw["type"] != "customer" {
		t.Fatalf("the customer was touched: %v", raw)
	}
	if res, err := orders.Migrate(ctx); err != nil || res.Found != 0 {
		t.Fatalf("second Migrate = %+v, %v; want nothing found", res, err)
	}
	// Once stamped, a strict repository reads them.
	strict := newOrders(t, e.container)
	if o, err := strict.Get(ctx, pk("c0"), "o3"); err != nil || o.Total != 30 {
		t.Fatalf("strict Get after Migrate = %+v, %v", o, err)
	}
	// Delete (which reads first to check the type) takes an untyped document only with the option.
	rawPut(t, e.container, "c0", `{"id":"late","customerId":"c0","total":1}`)
	if err := strict.Delete(ctx, pk("c0"), "late"); !errors.Is(err, cosmoserr.ErrTypeMismatch) {
		t.Fatalf("strict Delete of an untyped document: %v, want ErrTypeMismatch", err)
	}
	if err := orders.Delete(ctx, pk("c0"), "late"); err != nil {
		t.Fatalf("Delete with ReadUntyped: %v", err)
	}
}

// TestReadUntypedNeedsAVersion: an untyped document without "schemaVersion" is read at
// Options.UnversionedAs; without it the read says so.
func TestReadUntypedNeedsAVersion(t *testing.T) {
	e := newEnv(t)
	seedUntyped(t, e)
	orders := newOrders(t, e.container, func(o *repository.Options[Order]) { o.ReadUntyped = true })
	if _, err := orders.Get(context.Background(), pk("c0"), "o0"); !errors.Is(err, cosmoserr.ErrUnknownSchemaVersion) {
		t.Fatalf("Get = %v, want ErrUnknownSchemaVersion (set UnversionedAs)", err)
	}
}
