package consistency_test

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
)

// Two instances of a service behind a load balancer: the first captures the session token of its
// write and returns it to the browser (say, in a cookie); the second reads with it, so the read
// sees the write in whichever region it lands.
func Example_handOff() {
	// Instance 1, handling POST: record the tokens of the request's Cosmos DB calls.
	ctx, session := consistency.Capture(context.Background())
	_ = ctx // ... container.UpsertItem(ctx, ...) ...
	cookie := session.Token("shop", "orders")

	// Instance 2, handling the next GET: the cookie's token goes with the reads of the container.
	ctx, err := consistency.WithSessionToken(context.Background(), "shop", "orders", cookie)
	if err != nil {
		fmt.Println("bad cookie:", err) // refused before anything is sent
		return
	}
	_ = ctx // ... container.ReadItem(ctx, ...) ...

	// A dashboard may read with a weaker level.
	_, err = consistency.WithLevel(context.Background(), azcosmos.ConsistencyLevelEventual)
	fmt.Println(err)

	_, err = consistency.WithSessionToken(context.Background(), "shop", "orders", "not a token")
	fmt.Println(err)
	// Output:
	// <nil>
	// cosmoskit: invalid session token: token: is not a session token in the service's format (<range>:<version>#<lsn>[#<region>=<lsn>...], comma-separated, at most 16 KiB)
}
