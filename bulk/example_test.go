package bulk_test

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/cosmoskit/cosmoskit-go/bulk"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// Load items in bulk: one result per operation, a bad one refused on its own.
func ExampleExecutor_Execute() {
	s, err := cosmostest.Start(cosmostest.WithPartitionCount(4))
	if err != nil {
		panic(err)
	}
	defer s.Close()
	client, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: quiet})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	if err := s.CreateContainer("shop", "orders", "/customer"); err != nil {
		panic(err)
	}

	x, err := bulk.New(client, "shop", "orders", bulk.Options{})
	if err != nil {
		panic(err)
	}
	orders := func(yield func(bulk.Operation) bool) {
		for i := range 1000 {
			customer := fmt.Sprintf("c%d", i%50)
			doc := fmt.Appendf(nil, `{"id":"o%d","customer":%q,"total":%d}`, i, customer, i)
			if !yield(bulk.UpsertOp(partitionkey.Of(customer), doc)) {
				return
			}
		}
		// A key that does not match the document: refused before sending.
		yield(bulk.UpsertOp(partitionkey.Of("someone-else"), []byte(`{"id":"x","customer":"c1"}`)))
	}
	var ok, refused int
	var ru float64
	for r, err := range x.Execute(ctx, iter.Seq[bulk.Operation](orders)) {
		var ve *cosmoserr.ValidationError
		switch {
		case err == nil:
			ok++
			ru += r.RequestCharge
		case errors.As(err, &ve):
			refused++
			fmt.Println("refused:", ve.Field)
		default:
			fmt.Println("failed:", err)
		}
	}
	fmt.Printf("%d upserted (%.0f RU), %d refused\n", ok, ru, refused)
	// Output:
	// refused: Operation.PartitionKey
	// 1000 upserted (5150 RU), 1 refused
}
