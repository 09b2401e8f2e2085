package repository_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestOptionsReadBack: Options returns the options in effect, defaults filled in, and New refuses
// negative numbers with a ValidationError naming the option instead of defaulting them.
func TestOptionsReadBack(t *testing.T) {
	e := newEnv(t)
	got := newOrders(t, e.container).Options()
	if got.Type != "order" || got.SchemaVersion != 1 || got.LargeItemThreshold != repository.DefaultLargeItemThreshold ||
		got.UpdatePolicy.MaxAttempts != repository.DefaultUpdateAttempts || got.UpdatePolicy.InitialBackoff != 5*time.Millisecond ||
		got.UpdatePolicy.MaxBackoff != 100*time.Millisecond || got.UpdatePolicy.Retryable == nil || got.Logger == nil ||
		len(got.PartitionKeyPaths) != 1 {
		t.Fatalf("Options() = %+v, want the defaults filled in", got)
	}
	l := slog.New(slog.DiscardHandler)
	got = newOrders(t, e.container, func(o *repository.Options[Order]) { o.SchemaVersion = 3; o.Logger = l }).Options()
	if got.SchemaVersion != 3 || got.Logger != l {
		t.Fatalf("Options() = %+v, want the given values", got)
	}
	for field, edit := range map[string]func(*repository.Options[Order]){
		"Options.LargeItemThreshold":       func(o *repository.Options[Order]) { o.LargeItemThreshold = -1 },
		"Options.UnversionedAs":            func(o *repository.Options[Order]) { o.UnversionedAs = -1 },
		"Options.UpdatePolicy.MaxAttempts": func(o *repository.Options[Order]) { o.UpdatePolicy.MaxAttempts = -1 },
		"Options.UpdatePolicy":             func(o *repository.Options[Order]) { o.UpdatePolicy.MaxBackoff = -time.Second },
		"Options.SchemaVersion":            func(o *repository.Options[Order]) { o.SchemaVersion = -2 },
		"Options.Type":                     func(o *repository.Options[Order]) { o.Type = "a b" },
	} {
		opts := repository.Options[Order]{Type: "order", Key: orderKey}
		edit(&opts)
		_, err := repository.New(e.container, opts)
		var ve *cosmoserr.ValidationError
		if !errors.As(err, &ve) || ve.Field != field || !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("%s: New = %v, want a ValidationError naming it", field, err)
		}
	}
}

type ctxKey struct{}

// TestBatchLargeItemHookGetsExecuteContext: OnLargeItem for an item added to a batch is called
// by Execute, with Execute's context, not when the item is added (which has no context).
func TestBatchLargeItemHookGetsExecuteContext(t *testing.T) {
	e := newEnv(t)
	var seen []any
	orders := newOrders(t, e.container, func(o *repository.Options[Order]) {
		o.LargeItemThreshold = 10
		o.OnLargeItem = func(ctx context.Context, li repository.LargeItem) { seen = append(seen, ctx.Value(ctxKey{})) }
	})
	tx := repository.NewTx(e.container, pk("c1"))
	orders.CreateIn(tx, Order{ID: "o1", CustomerID: "c1", Total: 1})
	orders.CreateIn(tx, Order{ID: "o2", CustomerID: "c1", Total: 2})
	if len(seen) != 0 {
		t.Fatalf("the hook ran %d times before Execute", len(seen))
	}
	ctx := context.WithValue(context.Background(), ctxKey{}, "caller")
	if _, err := tx.Execute(ctx); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != "caller" || seen[1] != "caller" {
		t.Fatalf("the hook saw %v, want Execute's context twice", seen)
	}
	// A single write reports with its own context, as before.
	seen = nil
	if _, err := orders.Upsert(ctx, Order{ID: "o3", CustomerID: "c1"}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != "caller" {
		t.Fatalf("Upsert: the hook saw %v", seen)
	}
}
