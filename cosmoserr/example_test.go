package cosmoserr_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// FromError turns what a plain azcosmos client returns into an *Error that matches the
// sentinels and says whether to retry, here against an in-process cosmostest server.
func ExampleFromError() {
	s, err := cosmostest.Start()
	if err != nil {
		panic(err)
	}
	defer s.Close()
	client, _ := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil); err != nil {
		panic(err)
	}
	db, _ := client.NewDatabase("shop")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "orders",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customer"}}}, nil); err != nil {
		panic(err)
	}
	orders, _ := db.NewContainer("orders")
	pk := azcosmos.NewPartitionKeyString("alice")

	_, err = orders.ReadItem(ctx, pk, "o1", nil)
	err = cosmoserr.FromError("", err)
	var e *cosmoserr.Error
	if errors.As(err, &e) {
		fmt.Println(e.Operation, e.Database, e.Container, e.ID, e.StatusCode)
	}
	fmt.Println(errors.Is(err, cosmoserr.ErrNotFound), cosmoserr.IsRetryable(err))

	// A throttled request, past azcosmos's own retries, is worth retrying later.
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: http.StatusTooManyRequests, RetryAfter: time.Hour})
	_, err = orders.ReadItem(ctx, pk, "o1", nil)
	err = cosmoserr.FromError("", err)
	fmt.Println(errors.Is(err, cosmoserr.ErrThrottled), cosmoserr.IsRetryable(err), errors.As(err, &e) && e.RetryAfter == time.Hour)
	// Output:
	// read_item shop orders o1 404
	// true false
	// true true true
}

// Every input refused before a request is sent is a *ValidationError, whichever package
// refused it: one errors.As catches them all, and errors.Is tells the rule broken. The message
// names the field, never the value.
func ExampleValidationError() {
	_, err := consistency.WithSessionToken(context.Background(), "shop", "orders", "<script>")

	var ve *cosmoserr.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(ve.Field)
	}
	fmt.Println(errors.Is(err, cosmoserr.ErrValidation), errors.Is(err, cosmoserr.ErrInvalidSessionToken))
	// Output:
	// token
	// true true
}
