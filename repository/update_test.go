package repository_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

func TestUpdateConcurrentIncrements(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container, func(o *repository.Options[Order]) {
		o.UpdatePolicy = retry.Backoff{MaxAttempts: 1000, InitialBackoff: 50 * time.Millisecond, MaxBackoff: 2 * time.Second, Jitter: 1}
	})
	if _, err := orders.Create(ctx, Order{ID: "counter", CustomerID: "c1"}); err != nil {
		t.Fatal(err)
	}
	const workers, each = 50, 20
	var calls atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for range workers {
		wg.Go(func() {
			for range each {
				if _, err := orders.Update(ctx, pk("c1"), "counter", func(o *Order) error {
					o.N++
					calls.Add(1)
					return nil
				}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := orders.Get(ctx, pk("c1"), "counter")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d increments in %v with %d calls of fn", got.N, time.Since(start), calls.Load())
	if got.N != workers*each {
		t.Fatalf("counter = %d, want %d", got.N, workers*each)
	}
}

func TestUpdateGivesUpAfterBoundedAttempts(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container, func(o *repository.Options[Order]) {
		o.UpdatePolicy = retry.Backoff{MaxAttempts: 3, InitialBackoff: time.Millisecond}
	})
	if _, err := orders.Create(ctx, Order{ID: "hot", CustomerID: "c1"}); err != nil {
		t.Fatal(err)
	}
	calls := 0
	e.srv.ResetRequests()
	_, err := orders.Update(ctx, pk("c1"), "hot", func(o *Order) error {
		calls++
		// another writer gets in between every read and replace
		rawPut(t, e.container, "c1", fmt.Sprintf(`{"id":"hot","customerId":"c1","type":"order","schemaVersion":1,"total":%d}`, calls))
		o.N++
		return nil
	})
	if !errors.Is(err, cosmoserr.ErrTooManyAttempts) || !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
		t.Fatalf("Update = %v, want ErrTooManyAttempts and ErrPreconditionFailed", err)
	}
	if calls != 3 {
		t.Fatalf("fn called %d times, want 3", calls)
	}
	reads := e.srv.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReadItem})
	replaces := e.srv.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReplaceItem})
	if reads != 3 || replaces != 3 {
		t.Fatalf("%d reads and %d replaces, want 3 and 3", reads, replaces)
	}
	t.Log(err)

	// an error from fn stops at once and is returned as is
	stop := errors.New("stop")
	if _, err := orders.Update(ctx, pk("c1"), "hot", func(*Order) error { return stop }); !errors.Is(err, stop) || err.Error() != "stop" {
		t.Fatalf("Update = %v, want fn's error", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := orders.Update(cancelled, pk("c1"), "hot", func(*Order) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("Update with a cancelled context = %v", err)
	}
	if _, err := orders.Update(ctx, pk("c1"), "missing", func(*Order) error { return nil }); !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Fatalf("Update(missing) = %v", err)
	}
	if _, err := orders.Update(ctx, pk("c1"), "hot", func(o *Order) error { o.ID = "other"; return nil }); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("Update changing the id = %v", err)
	}
}

func TestPatch(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	o, err := orders.Create(ctx, Order{ID: "p", CustomerID: "c1", Status: "open", Total: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := orders.Patch(ctx, pk("c1"), "p", new(repository.Patch).Set("/status", "paid").Increment("/total", 4))
	if err != nil || got.Status != "paid" || got.Total != 5 {
		t.Fatalf("Patch = %+v, %v", got, err)
	}
	// conditional patch
	if _, err := orders.Patch(ctx, pk("c1"), "p", new(repository.Patch).Set("/status", "x").When("c.status = 'open'")); !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
		t.Fatalf("failed condition: %v", err)
	}
	if _, err := orders.Patch(ctx, pk("c1"), "p", new(repository.Patch).Set("/status", "x"), repository.IfMatch(o.ETag)); !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
		t.Fatalf("stale IfMatch: %v", err)
	}
	// a document of another type is never patched
	rawPut(t, e.container, "c1", `{"id":"cust","customerId":"c1","type":"customer","schemaVersion":1}`)
	if _, err := orders.Patch(ctx, pk("c1"), "cust", new(repository.Patch).Set("/status", "x")); !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
		t.Fatalf("patch of another type: %v", err)
	}
	if raw := rawGet(t, e.container, "c1", "cust"); raw["status"] != nil {
		t.Fatalf("another type's document was patched: %v", raw)
	}

	// checked before sending
	eleven := new(repository.Patch)
	for i := range 11 {
		eleven.Set(fmt.Sprintf("/f%d", i), i)
	}
	for name, p := range map[string]*repository.Patch{
		"11 ops":        eleven,
		"id":            new(repository.Patch).Set("/id", "x"),
		"type":          new(repository.Patch).Set("/type", "x"),
		"schemaVersion": new(repository.Patch).Remove("/schemaVersion"),
		"system":        new(repository.Patch).Set("/_etag", "x"),
		"relative":      new(repository.Patch).Set("status", "x"),
		"empty":         new(repository.Patch),
		"quote":         new(repository.Patch).Set("/a", 1).When(`c.a = "x"`),
	} {
		e.srv.ResetRequests()
		if _, err := orders.Patch(ctx, pk("c1"), "p", p); !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("%s: %v, want ErrValidation", name, err)
		}
		if n := e.srv.Requests(cosmostestDocs()); n != 0 {
			t.Errorf("%s: %d requests sent", name, n)
		}
	}
}
