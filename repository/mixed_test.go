package repository_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

func TestPolymorphicContainer(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	customers, err := repository.New(e.container, repository.Options[Customer]{Type: "customer", Key: customerKey})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := customers.Create(ctx, Customer{ID: "c1", CustomerID: "c1", Name: "Ann"}); err != nil {
		t.Fatal(err)
	}
	seedOrders(t, orders, "c1", 3)
	seedOrders(t, orders, "c2", 2)
	rawPut(t, e.container, "c1", `{"id":"stray","customerId":"c1","type":"invoice","schemaVersion":1}`)

	// each repository sees only its own type
	if got := collect(t, orders.All(ctx, repository.NewQuery().Partition(pk("c1")))); len(got) != 3 {
		t.Fatalf("orders in c1 = %d", len(got))
	}
	if got := collect(t, customers.All(ctx, repository.NewQuery().Partition(pk("c1")))); len(got) != 1 || got[0].Name != "Ann" {
		t.Fatalf("customers in c1 = %+v", got)
	}
	// and refuses the other's documents
	if _, err := orders.Get(ctx, pk("c1"), "c1"); !errors.Is(err, cosmoserr.ErrTypeMismatch) {
		t.Fatalf("orders.Get(customer) = %v", err)
	}

	mixed, err := repository.NewMixed(orders, customers)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for v, err := range mixed.Partition(ctx, pk("c1")) {
		if err != nil {
			t.Fatal(err)
		}
		switch v := v.(type) {
		case Order:
			kinds = append(kinds, "order:"+v.ID)
		case Customer:
			kinds = append(kinds, "customer:"+v.Name)
		default:
			t.Fatalf("unexpected %T", v)
		}
	}
	sort.Strings(kinds)
	if fmt.Sprint(kinds) != "[customer:Ann order:c1-0000 order:c1-0001 order:c1-0002]" {
		t.Fatalf("partition = %v", kinds)
	}
	v, err := mixed.Get(ctx, pk("c1"), "c1")
	if c, ok := v.(Customer); err != nil || !ok || c.Name != "Ann" {
		t.Fatalf("mixed.Get = %#v, %v", v, err)
	}
	if _, err := mixed.Get(ctx, pk("c1"), "stray"); !errors.Is(err, cosmoserr.ErrTypeMismatch) {
		t.Fatalf("mixed.Get(unregistered type) = %v", err)
	}

	// registration errors
	if _, err := repository.NewMixed(orders, orders); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("duplicate type: %v", err)
	}
	other := createContainer(t, e.client, "other")
	if _, err := repository.NewMixed(orders, newOrders(t, other, func(o *repository.Options[Order]) { o.Type = "order2" })); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("different containers: %v", err)
	}
}

func TestReadManyAndBatch(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	seedOrders(t, orders, "c1", 3)
	seedOrders(t, orders, "c2", 2)
	got, err := orders.ReadMany(ctx, []repository.Ref{
		{ID: "c2-0001", PartitionKey: pk("c2")},
		{ID: "c1-0000", PartitionKey: pk("c1")},
		{ID: "missing", PartitionKey: pk("c1")},
		{ID: "c1-0002", PartitionKey: pk("c1")},
	})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, o := range got {
		ids = append(ids, o.ID)
	}
	if fmt.Sprint(ids) != "[c2-0001 c1-0000 c1-0002]" {
		t.Fatalf("ReadMany = %v", ids)
	}
	if _, err := orders.ReadMany(ctx, []repository.Ref{{ID: "a/b", PartitionKey: pk("c1")}}); !errors.Is(err, cosmoserr.ErrInvalidID) {
		t.Fatalf("ReadMany with a bad id: %v", err)
	}

	first, err := orders.Get(ctx, pk("c1"), "c1-0000")
	if err != nil {
		t.Fatal(err)
	}
	first.Status = "batched"
	tx := repository.NewTx(orders.Container(), pk("c1"))
	orders.CreateIn(tx, Order{ID: "b1", CustomerID: "c1", Total: 1})
	orders.ReplaceIn(tx, first, repository.IfMatch(first.ETag))
	orders.PatchIn(tx, "c1-0001", new(repository.Patch).Increment("/total", 100))
	orders.ReadIn(tx, "c1-0002")
	orders.DeleteIn(tx, "c1-0002")
	res, err := tx.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	item := func(i int) Order { o, _ := res[i].Item.(Order); return o }
	if len(res) != 5 || res[0].StatusCode != 201 || item(0).ID != "b1" || item(1).Status != "batched" ||
		item(2).Total != 101 || item(3).ID != "c1-0002" || res[4].StatusCode != 204 || res[4].Item != nil {
		t.Fatalf("batch results = %+v", res)
	}
	if raw := rawGet(t, e.container, "c1", "b1"); raw["type"] != "order" || raw["schemaVersion"] != float64(1) {
		t.Fatalf("batch create not stamped: %v", raw)
	}

	// atomic: a conflict rolls everything back
	tx = repository.NewTx(orders.Container(), pk("c1"))
	orders.CreateIn(tx, Order{ID: "b2", CustomerID: "c1"})
	orders.CreateIn(tx, Order{ID: "b1", CustomerID: "c1"})
	_, err = tx.Execute(ctx)
	var be *repository.BatchError
	if !errors.Is(err, cosmoserr.ErrConflict) || !errors.As(err, &be) || be.Index != 1 {
		t.Fatalf("conflicting batch = %v", err)
	}
	if ok, _ := orders.Exists(ctx, pk("c1"), "b2"); ok {
		t.Fatal("b2 was written by a failed batch")
	}
	// every item must be in the batch's partition, checked before sending
	if _, err := orders.CreateIn(repository.NewTx(orders.Container(), pk("c1")), Order{ID: "x", CustomerID: "c2"}).Execute(ctx); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("item of another partition: %v", err)
	}
	if _, err := repository.NewTx(orders.Container(), pk("c1")).Execute(ctx); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("empty batch: %v", err)
	}
	var _ azcosmos.PartitionKey
}

func TestTxAcrossRepositories(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	customers, err := repository.New(e.container, repository.Options[Customer]{Type: "customer", Key: customerKey})
	if err != nil {
		t.Fatal(err)
	}
	cust, err := customers.Create(ctx, Customer{ID: "c1", CustomerID: "c1", Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	// a new order and the customer's updated record commit together
	cust.Name = "Ann (1 order)"
	tx := repository.NewTx(e.container, pk("c1"))
	orders.CreateIn(tx, Order{ID: "o1", CustomerID: "c1", Total: 5})
	customers.ReplaceIn(tx, cust, repository.IfMatch(cust.ETag))
	customers.ReadIn(tx, "c1")
	res, err := tx.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := res[0].Item.(Order); !ok || o.Total != 5 {
		t.Fatalf("result 0 = %#v", res[0].Item)
	}
	if c, ok := res[2].Item.(Customer); !ok || c.Name != "Ann (1 order)" || res[1].ETag == "" {
		t.Fatalf("results = %+v", res)
	}
	// a stale customer ETag rolls the new order back too
	tx = repository.NewTx(e.container, pk("c1"))
	orders.CreateIn(tx, Order{ID: "o2", CustomerID: "c1"})
	customers.ReplaceIn(tx, cust, repository.IfMatch(cust.ETag))
	_, err = tx.Execute(ctx)
	var be *repository.BatchError
	if !errors.Is(err, cosmoserr.ErrPreconditionFailed) || !errors.As(err, &be) || be.Index != 1 || be.Type != "customer" {
		t.Fatalf("stale tx = %v", err)
	}
	if ok, _ := orders.Exists(ctx, pk("c1"), "o2"); ok {
		t.Fatal("o2 was written by a rolled-back tx")
	}
	// a repository of another container cannot join
	other := newOrders(t, createContainer(t, e.client, "other"))
	tx = repository.NewTx(e.container, pk("c1"))
	if _, err := other.CreateIn(tx, Order{ID: "x", CustomerID: "c1"}).Execute(ctx); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("other container: %v", err)
	}
}

// TestReadManySameIDInTwoPartitions: refs naming one id in two partitions with azcosmos.PartitionKey
// values get each its own partition's item, whatever order the SDK returns them in.
func TestReadManySameIDInTwoPartitions(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	for _, o := range []Order{{ID: "same", CustomerID: "c1", Total: 1}, {ID: "same", CustomerID: "c2", Total: 2}} {
		if _, err := orders.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	for _, order := range [][]string{{"c1", "c2"}, {"c2", "c1"}} {
		refs := []repository.Ref{
			{ID: "same", PartitionKey: azcosmos.NewPartitionKeyString(order[0])},
			{ID: "same", PartitionKey: azcosmos.NewPartitionKeyString(order[1])},
		}
		got, err := orders.ReadMany(ctx, refs)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].CustomerID != order[0] || got[1].CustomerID != order[1] {
			t.Fatalf("ReadMany(%v) = %+v", order, got)
		}
	}
}
