package repository_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

func countOp(s *cosmostest.Server, op cosmostest.Operation) int {
	return s.Requests(cosmostest.RequestFilter{Operation: op, ResourceType: cosmostest.ResourceDocument})
}

// TestDeleteChecksType: a repository never deletes a document of another type that shares the id
// and partition key.
func TestDeleteChecksType(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	customers, err := repository.New(e.container, repository.Options[Customer]{Type: "customer", Key: customerKey, PartitionKeyPaths: []string{"/customerId"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := customers.Create(ctx, Customer{ID: "x", CustomerID: "c1", Name: "Ann"}); err != nil {
		t.Fatal(err)
	}
	e.srv.ResetRequests()
	err = orders.Delete(ctx, pk("c1"), "x")
	var de *repository.DocumentError
	if !errors.Is(err, cosmoserr.ErrTypeMismatch) || !errors.As(err, &de) || de.Found != "customer" {
		t.Fatalf("orders.Delete(customer) = %v, want ErrTypeMismatch", err)
	}
	if n := countOp(e.srv, cosmostest.OpDeleteItem); n != 0 {
		t.Fatalf("%d deletes sent for a document of another type", n)
	}
	if ok, err := customers.Exists(ctx, pk("c1"), "x"); !ok || err != nil {
		t.Fatalf("the customer is gone: %v, %v", ok, err)
	}

	// an order is deleted with one read and one conditional delete
	o, err := orders.Create(ctx, Order{ID: "o", CustomerID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.ResetRequests()
	if err := orders.Delete(ctx, pk("c1"), "o"); err != nil {
		t.Fatal(err)
	}
	if r, d := countOp(e.srv, cosmostest.OpReadItem), countOp(e.srv, cosmostest.OpDeleteItem); r != 1 || d != 1 {
		t.Fatalf("Delete made %d reads and %d deletes, want 1 and 1", r, d)
	}
	// with IfMatch the read is skipped
	o, err = orders.Create(ctx, Order{ID: "o", CustomerID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.ResetRequests()
	if err := orders.Delete(ctx, pk("c1"), "o", repository.IfMatch(o.ETag)); err != nil {
		t.Fatal(err)
	}
	if r, d := countOp(e.srv, cosmostest.OpReadItem), countOp(e.srv, cosmostest.OpDeleteItem); r != 0 || d != 1 {
		t.Fatalf("Delete with IfMatch made %d reads and %d deletes, want 0 and 1", r, d)
	}
	if err := orders.Delete(ctx, pk("c1"), "o"); !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Fatalf("Delete of a missing item = %v, want ErrNotFound", err)
	}
	// the batch delete cannot read first: documented, and IfMatch guards it
}

// beforeDelete runs fn before forwarding the first DELETE it sees.
type beforeDelete struct {
	once sync.Once
	fn   func()
}

func (p *beforeDelete) Do(req *policy.Request) (*http.Response, error) {
	if req.Raw().Method == http.MethodDelete {
		p.once.Do(p.fn)
	}
	return req.Next()
}

// TestDeleteRaceWithRetype: another writer replaces the order with a customer document between
// Delete's read and its delete; the conditional delete fails, the re-read sees the new type, and
// nothing is deleted.
func TestDeleteRaceWithRetype(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	rawPut(t, e.container, "c1", `{"id":"x","customerId":"c1","type":"order","schemaVersion":1}`)
	shim := &beforeDelete{fn: func() {
		rawPut(t, e.container, "c1", `{"id":"x","customerId":"c1","type":"customer","schemaVersion":1,"name":"Ann"}`)
	}}
	opts := e.srv.ClientOptions()
	opts.PerRetryPolicies = append(opts.PerRetryPolicies, shim)
	cred, _ := azcosmos.NewKeyCredential(e.srv.Key())
	client, err := azcosmos.NewClientWithKey(e.srv.Endpoint(), cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	container, _ := client.NewContainer("db", "c")
	orders := newOrders(t, container)
	if err := orders.Delete(ctx, pk("c1"), "x"); !errors.Is(err, cosmoserr.ErrTypeMismatch) {
		t.Fatalf("Delete after a concurrent retype = %v, want ErrTypeMismatch", err)
	}
	if raw := rawGet(t, e.container, "c1", "x"); raw["type"] != "customer" {
		t.Fatalf("stored = %v", raw)
	}
}
