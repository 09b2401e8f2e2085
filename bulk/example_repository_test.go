package bulk_test

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/bulk"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

type order struct {
	ID       string `json:"id"`
	Customer string `json:"customer"`
	Total    int    `json:"total"`
}

// Load typed items through their repository: stamped with its type and schema version and
// checked as repo.Upsert checks them; an item the repository refuses gets its own result.
func ExampleUpserts() {
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
	orders, err := repository.NewFromClient(client, "shop", "orders", repository.Options[order]{
		Type: "order", PartitionKeyPaths: []string{"/customer"},
		Key: func(o order) (string, azcosmos.PartitionKey) {
			return o.ID, azcosmos.NewPartitionKeyString(o.Customer)
		},
	})
	if err != nil {
		panic(err)
	}
	x, err := bulk.New(client, "shop", "orders", bulk.Options{})
	if err != nil {
		panic(err)
	}

	items := func(yield func(order) bool) {
		for i := range 1000 {
			if !yield(order{ID: fmt.Sprintf("o%d", i), Customer: fmt.Sprintf("c%d", i%50), Total: i}) {
				return
			}
		}
		yield(order{ID: "bad/id", Customer: "c1"}) // an id the service could not address
	}
	var ok int
	for r, err := range x.Execute(ctx, bulk.Upserts(ctx, orders, iter.Seq[order](items))) {
		var ve *cosmoserr.ValidationError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &ve):
			fmt.Println("refused item", r.Index, "field", ve.Field)
		default:
			fmt.Println("failed:", err)
		}
	}
	o, err := orders.Get(ctx, azcosmos.NewPartitionKeyString("c7"), "o7")
	fmt.Println(ok, "upserted; o7:", o.Total, err)
	// Output:
	// refused item 1000 field id
	// 1000 upserted; o7: 7 <nil>
}
