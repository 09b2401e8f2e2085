package diagnostics_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// exampleContainer starts a cosmostest server and returns db1/c1 (partition key /pk) through a
// client with the diagnostics policies installed.
func exampleContainer(opts diagnostics.Options) (*azcosmos.ContainerClient, func()) {
	srv, err := cosmostest.Start()
	if err != nil {
		log.Fatal(err)
	}
	p, err := diagnostics.NewPolicy(opts)
	if err != nil {
		log.Fatal(err)
	}
	copts := srv.ClientOptions()
	copts.PerCallPolicies = append(copts.PerCallPolicies, p)
	copts.PerRetryPolicies = append(copts.PerRetryPolicies, diagnostics.NewAttemptPolicy())
	cred, err := azcosmos.NewKeyCredential(srv.Key())
	if err != nil {
		log.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(srv.Endpoint(), cred, copts)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db1"}, nil); err != nil {
		log.Fatal(err)
	}
	db, _ := client.NewDatabase("db1")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c1",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		log.Fatal(err)
	}
	c, _ := client.NewContainer("db1", "c1")
	return c, srv.Close
}

// A unit of work, such as one HTTP request of a service, learns what its Cosmos DB calls cost.
func ExampleWithMeter() {
	container, stop := exampleContainer(diagnostics.Options{})
	defer stop()

	ctx, meter := diagnostics.WithMeter(context.Background())
	pk := azcosmos.NewPartitionKeyString("alice")
	var charged float32
	for _, id := range []string{"order-1", "order-2"} {
		resp, err := container.UpsertItem(ctx, pk, []byte(`{"id":"`+id+`","pk":"alice"}`), nil)
		if err != nil {
			log.Fatal(err)
		}
		charged += resp.RequestCharge
	}
	resp, err := container.ReadItem(ctx, pk, "order-1", nil)
	if err != nil {
		log.Fatal(err)
	}
	charged += resp.RequestCharge

	fmt.Println("calls:", meter.Requests())
	fmt.Println("RU as the responses say:", math.Abs(meter.RequestCharge()-float64(charged)) < 0.001)
	// Output:
	// calls: 3
	// RU as the responses say: true
}

// The error model is package cosmoserr's: cosmoserr.FromError turns what azcosmos returns into a
// *cosmoserr.Error that matches the sentinels (diagnostics has no FromError of its own).
func Example_fromError() {
	container, stop := exampleContainer(diagnostics.Options{})
	defer stop()

	_, err := container.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("alice"), "nope", nil)
	err = cosmoserr.FromError("", err)

	fmt.Println(errors.Is(err, cosmoserr.ErrNotFound))
	var e *cosmoserr.Error
	if errors.As(err, &e) {
		fmt.Println(e.Operation, e.Database, e.Container, e.StatusCode, e.SubStatus, e.ActivityID != "")
	}
	// Output:
	// true
	// read_item db1 c1 404 0 true
}
