package repository_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestSharedQueryPerTenant builds one query and shares it between 64 goroutines, each scoping it
// to its own tenant with Partition and reading every page: a builder that wrote into the shared
// query would race (the race detector fails the test) and could run one tenant's query with
// another's key (the tenant check fails).
func TestSharedQueryPerTenant(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	const tenants = 64
	for i := range tenants {
		c := fmt.Sprintf("t%02d", i)
		for j := range 3 {
			if _, err := orders.Create(ctx, Order{ID: fmt.Sprintf("%s-%d", c, j), CustomerID: c, Status: "open", Total: j}); err != nil {
				t.Fatal(err)
			}
		}
	}
	shared := repository.NewQuery().Where("status", repository.Eq, "open").OrderBy("total", repository.Asc)
	var wg sync.WaitGroup
	errs := make(chan error, tenants)
	for i := range tenants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := fmt.Sprintf("t%02d", i)
			q := shared.Partition(pk(c)).Top(3)
			n := 0
			token := ""
			for {
				p, err := orders.Page(ctx, q, 2, token)
				if err != nil {
					errs <- fmt.Errorf("%s: %w", c, err)
					return
				}
				for _, o := range p.Items {
					if o.CustomerID != c {
						errs <- fmt.Errorf("tenant %s got %s's item %s", c, o.CustomerID, o.ID)
						return
					}
					n++
				}
				if p.Next == "" {
					break
				}
				token = p.Next
			}
			if n != 3 {
				errs <- fmt.Errorf("%s: %d items, want 3", c, n)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The shared query itself was never scoped: running it still asks for a partition key.
	if _, err := orders.Page(ctx, shared, 10, ""); err == nil {
		t.Fatal("the shared query was changed by a builder: it runs without Partition")
	}
}

// TestBuildersReturnNewQueries checks that no builder changes its receiver.
func TestBuildersReturnNewQueries(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	seedOrders(t, orders, "c1", 6)
	base := repository.NewQuery().Where("status", repository.Eq, "open").Partition(pk("c1"))
	before := collect(t, orders.All(ctx, base))
	_ = base.Where("total", repository.Ge, 4)
	_ = base.Top(1)
	_ = base.OrderBy("total", repository.Desc)
	_ = base.Partition(pk("c2"))
	_ = base.Select("id")
	_ = base.Where("bad field!", repository.Eq, 1)
	after := collect(t, orders.All(ctx, base))
	if len(before) != 3 || len(after) != len(before) {
		t.Fatalf("before %d items, after deriving queries %d", len(before), len(after))
	}
	for i := range before {
		if before[i].ID != after[i].ID {
			t.Fatalf("results changed: %v vs %v", before, after)
		}
	}
	tpl := repository.SQL("SELECT * FROM c WHERE c.type = @type")
	_ = tpl.Partition(pk("c1"))
	if _, err := orders.Page(ctx, tpl, 10, ""); err == nil {
		t.Fatal("Partition changed a template query")
	}
}
