package repository_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestNoLostUpdateByDefault: two writers that read the same version of an item both write it
// back; without IfMatch the second used to overwrite the first silently. The item carries its
// ETag (Meta), so the second write is conditional on it and fails with ErrPreconditionFailed.
func TestNoLostUpdateByDefault(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	if _, err := orders.Create(ctx, Order{ID: "o1", CustomerID: "c1", Total: 1}); err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(Order, ...repository.WriteOption) (Order, error){
		"replace": func(o Order, opts ...repository.WriteOption) (Order, error) { return orders.Replace(ctx, o, opts...) },
		"upsert":  func(o Order, opts ...repository.WriteOption) (Order, error) { return orders.Upsert(ctx, o, opts...) },
	} {
		t.Run(name, func(t *testing.T) {
			a, err := orders.Get(ctx, pk("c1"), "o1")
			if err != nil || a.ETag == "" {
				t.Fatalf("get: %v, etag %q", err, a.ETag)
			}
			b := a
			a.Total, b.Total = 10, 20
			if _, err := write(a); err != nil {
				t.Fatalf("first writer: %v", err)
			}
			if _, err := write(b); !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
				t.Fatalf("second writer = %v, want ErrPreconditionFailed", err)
			}
			if got, _ := orders.Get(ctx, pk("c1"), "o1"); got.Total != 10 {
				t.Fatalf("stored total %d, want the first writer's 10", got.Total)
			}
			// The explicit opt-out: the last writer wins.
			if _, err := write(b, repository.Unconditional()); err != nil {
				t.Fatalf("unconditional: %v", err)
			}
			if got, _ := orders.Get(ctx, pk("c1"), "o1"); got.Total != 20 {
				t.Fatalf("stored total %d, want 20", got.Total)
			}
		})
	}
	// An item without an ETag (never read) is written as before.
	if _, err := orders.Upsert(ctx, Order{ID: "o1", CustomerID: "c1", Total: 3}); err != nil {
		t.Fatal(err)
	}
}

// TestNoLostUpdateConcurrent: eight goroutines replace the same version; exactly one wins.
func TestNoLostUpdateConcurrent(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	base, err := orders.Create(ctx, Order{ID: "o1", CustomerID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, lost := 0, 0
	for i := range 8 {
		wg.Go(func() {
			o := base
			o.N = i + 1
			_, err := orders.Replace(ctx, o)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, cosmoserr.ErrPreconditionFailed):
				lost++
			default:
				t.Errorf("replace: %v", err)
			}
		})
	}
	wg.Wait()
	if won != 1 || lost != 7 {
		t.Fatalf("%d writers won and %d got ErrPreconditionFailed, want 1 and 7", won, lost)
	}
}
