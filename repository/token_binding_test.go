package repository_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestTokenBoundToPartitionKey: a shared query scoped per tenant gives tokens that only that
// tenant's scope accepts; tenant A's token on tenant B's scope is ErrInvalidToken before any
// request, while A's own token keeps working.
func TestTokenBoundToPartitionKey(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	seedOrders(t, orders, "A", 6)
	seedOrders(t, orders, "B", 6)
	for name, base := range map[string]*repository.Query{
		"built": repository.NewQuery().OrderBy("total", repository.Asc),
		"sql":   repository.SQL("SELECT * FROM c WHERE c.type = @type"),
	} {
		t.Run(name, func(t *testing.T) {
			p, err := orders.Page(ctx, base.Partition(pk("A")), 2, "")
			if err != nil || p.Next == "" {
				t.Fatalf("first page of A = %+v, %v", p, err)
			}
			e.srv.ResetRequests()
			for _, other := range []repository.PartitionKey{pk("B"), partitionkey.Of(""), partitionkey.Of(nil)} {
				if _, err := orders.Page(ctx, base.Partition(other), 2, p.Next); !errors.Is(err, cosmoserr.ErrInvalidToken) {
					t.Fatalf("A's token on %v = %v, want ErrInvalidToken", other.(partitionkey.Key).Values(), err)
				}
			}
			if _, err := orders.Page(ctx, base.CrossPartition(), 2, p.Next); !errors.Is(err, cosmoserr.ErrInvalidToken) {
				t.Fatalf("A's token across partitions = %v, want ErrInvalidToken", err)
			}
			if n := e.srv.Requests(cosmostestDocs()); n != 0 {
				t.Fatalf("%d requests sent for refused tokens", n)
			}
			p2, err := orders.Page(ctx, base.Partition(pk("A")), 2, p.Next)
			if err != nil || len(p2.Items) == 0 {
				t.Fatalf("A's second page = %+v, %v", p2, err)
			}
			for _, it := range p2.Items {
				if it.CustomerID != "A" {
					t.Fatalf("A's second page holds %+v", it)
				}
			}
		})
	}
}

// TestTokenBoundToParameterValues: a token of the same query text with other parameter values is
// ErrInvalidToken before any request (not the service's 400).
func TestTokenBoundToParameterValues(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	seedOrders(t, orders, "c1", 10)
	cases := []struct {
		name        string
		first, next *repository.Query
	}{
		{"where", repository.NewQuery().Partition(pk("c1")).Where("status", repository.Eq, "open").OrderBy("total", repository.Asc),
			repository.NewQuery().Partition(pk("c1")).Where("status", repository.Eq, "paid").OrderBy("total", repository.Asc)},
		{"where type", repository.NewQuery().Partition(pk("c1")).Where("total", repository.Ge, 1),
			repository.NewQuery().Partition(pk("c1")).Where("total", repository.Ge, "1")},
		{"sql", repository.SQL("SELECT * FROM c WHERE c.type = @type AND c.status = @s", repository.Param("@s", "open")).Partition(pk("c1")),
			repository.SQL("SELECT * FROM c WHERE c.type = @type AND c.status = @s", repository.Param("@s", "paid")).Partition(pk("c1"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := orders.Page(ctx, tc.first, 2, "")
			if err != nil || p.Next == "" {
				t.Fatalf("first page = %+v, %v", p, err)
			}
			e.srv.ResetRequests()
			if _, err := orders.Page(ctx, tc.next, 2, p.Next); !errors.Is(err, cosmoserr.ErrInvalidToken) {
				t.Fatalf("token with other parameter values = %v, want ErrInvalidToken", err)
			}
			if n := e.srv.Requests(cosmostestDocs()); n != 0 {
				t.Fatalf("%d requests sent for a refused token", n)
			}
			if p2, err := orders.Page(ctx, tc.first, 2, p.Next); err != nil || len(p2.Items) == 0 {
				t.Fatalf("second page = %+v, %v", p2, err)
			}
		})
	}
	// The order of a template's parameters does not change the query.
	a := repository.SQL("SELECT * FROM c WHERE c.type = @type AND c.status = @s AND c.total >= @t",
		repository.Param("@s", "open"), repository.Param("@t", 0)).Partition(pk("c1"))
	b := repository.SQL("SELECT * FROM c WHERE c.type = @type AND c.status = @s AND c.total >= @t",
		repository.Param("@t", 0), repository.Param("@s", "open")).Partition(pk("c1"))
	p, err := orders.Page(ctx, a, 2, "")
	if err != nil || p.Next == "" {
		t.Fatalf("first page = %+v, %v", p, err)
	}
	if _, err := orders.Page(ctx, b, 2, p.Next); err != nil {
		t.Fatalf("same parameters in another order: %v", err)
	}
}
