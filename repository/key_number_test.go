package repository_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestKeyOfRefusesUnrepresentableNumbers: NaN, ±Inf and integers beyond ±2^53 (which a JSON
// number, a float64, would round) are cosmoserr.ErrInvalidPartitionKey naming the component, before any
// request; ±2^53 itself is exact and accepted.
func TestKeyOfRefusesUnrepresentableNumbers(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	bad := []any{
		math.NaN(), math.Inf(1), math.Inf(-1), float32(math.Inf(1)), float32(math.NaN()),
		int64(1<<53 + 1), int64(-(1 << 53) - 1), int64(math.MaxInt64), int64(math.MinInt64),
		uint64(1<<53 + 1), uint64(math.MaxUint64), int(1<<53 + 1), uint(1<<53 + 1),
	}
	e.srv.ResetRequests()
	for _, v := range bad {
		key := partitionkey.Of(v)
		name := fmt.Sprintf("%T(%v)", v, v)
		check := func(op string, err error) {
			t.Helper()
			var ve *cosmoserr.ValidationError
			if !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) || !errors.As(err, &ve) || ve.Field != "partitionKey[0]" {
				t.Errorf("%s with %s = %v, want ErrInvalidPartitionKey naming partitionKey[0]", op, name, err)
			}
		}
		_, err := orders.Get(ctx, key, "x")
		check("Get", err)
		_, err = orders.UpsertIn(repository.NewTx(orders.Container(), key), Order{ID: "x", CustomerID: "t"}).Execute(ctx)
		check("batch Upsert", err)
		check("Delete", orders.Delete(ctx, key, "x"))
		_, err = orders.Update(ctx, key, "x", func(*Order) error { return nil })
		check("Update", err)
		_, err = orders.Page(ctx, repository.NewQuery().Partition(key), 10, "")
		check("Page", err)
	}
	if n := e.srv.Requests(cosmostestDocs()); n != 0 {
		t.Fatalf("%d requests sent for refused keys", n)
	}
	for _, v := range []any{int64(1 << 53), int64(-(1 << 53)), uint64(1 << 53), 1e300, -0.5, float32(1.5), math.MaxFloat64} {
		if got := partitionkey.Of(v); got.Len() != 1 {
			t.Errorf("partitionkey.Of(%T(%v)) refused", v, v)
		}
		if _, err := orders.Get(ctx, partitionkey.Of(v), "x"); !errors.Is(err, cosmoserr.ErrNotFound) {
			t.Errorf("Get with key %T(%v) = %v, want ErrNotFound", v, v, err)
		}
	}
}
