package conflicts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/conflicts"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// Two regions of a multi-write account update one item concurrently; in Custom mode the losing
// version is in the conflicts feed until the application merges and deletes it.
func Example() {
	srv, err := cosmostest.Start(cosmostest.WithRegions("West US", "East US"), cosmostest.WithMultiWrite(), cosmostest.WithReplicationLag(time.Minute))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	client, err := cosmoskit.New(cosmoskit.Config{Endpoint: srv.Endpoint(), Key: srv.Key(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	if _, err := client.EnsureContainer(ctx, "shop", cosmoskit.ContainerSpec{
		ID: "orders", PartitionKeyPaths: []string{"/customerId"},
		ConflictResolution: cosmoskit.ConflictResolutionSpec{Mode: azcosmos.ConflictResolutionModeCustom},
	}); err != nil {
		panic(err)
	}
	// One azcosmos client per region, standing for an instance of the service in each.
	cred, _ := azcosmos.NewKeyCredential(srv.Key())
	inRegion := func(region string) *azcosmos.ContainerClient {
		o := srv.ClientOptions()
		o.PreferredRegions = []string{region}
		c, err := azcosmos.NewClientWithKey(srv.Endpoint(), cred, o)
		if err != nil {
			panic(err)
		}
		cc, _ := c.NewContainer("shop", "orders")
		return cc
	}
	west, east := inRegion("West US"), inRegion("East US")
	pk := azcosmos.NewPartitionKeyString("c1")
	must := func(_ azcosmos.ItemResponse, err error) {
		if err != nil {
			panic(err)
		}
	}
	must(west.CreateItem(ctx, pk, []byte(`{"id":"o1","customerId":"c1","status":"new"}`), nil))
	srv.Advance(time.Minute) // replicated
	must(west.ReplaceItem(ctx, pk, "o1", []byte(`{"id":"o1","customerId":"c1","status":"paid"}`), nil))
	srv.Advance(time.Second)
	must(east.ReplaceItem(ctx, pk, "o1", []byte(`{"id":"o1","customerId":"c1","status":"cancelled"}`), nil))
	srv.Advance(time.Minute) // both writes replicated: a conflict

	r, err := conflicts.New(client, "shop", "orders", conflicts.Options{})
	if err != nil {
		panic(err)
	}
	for c, err := range r.All(ctx) {
		if err != nil {
			panic(err)
		}
		var lost struct {
			ID       string `json:"id"`
			Customer string `json:"customerId"`
			Status   string `json:"status"`
		}
		_ = json.Unmarshal(c.Content, &lost) // nil Content: the loser was a delete
		// Merge lost into the current version (here: just look at both), then delete the conflict.
		cur, err := west.ReadItem(ctx, azcosmos.NewPartitionKeyString(lost.Customer), lost.ID, nil)
		if err != nil {
			panic(err)
		}
		var won struct {
			Status string `json:"status"`
		}
		_ = json.Unmarshal(cur.Value, &won)
		fmt.Println(c.Operation, "lost:", lost.Status, "current:", won.Status)
		if err := r.Delete(ctx, c); err != nil {
			panic(err)
		}
	}
	// Output:
	// replace lost: paid current: cancelled
}
