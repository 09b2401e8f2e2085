package cosmoskit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// New against an in-process cosmostest server: provision a container, write an item, read it back.
func ExampleNew() {
	srv, err := cosmostest.Start()
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	client, err := cosmoskit.New(cosmoskit.Config{
		Endpoint: srv.Endpoint(), // loopback: the emulator key and relaxed TLS are allowed
		Key:      srv.Key(),
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	defer client.Close()

	ctx := context.Background()
	res, err := client.EnsureContainer(ctx, "shop", cosmoskit.ContainerSpec{
		ID:                "orders",
		PartitionKeyPaths: []string{"/customerId"},
	})
	if err != nil {
		panic(err)
	}
	orders := res.Container
	pk := azcosmos.NewPartitionKeyString("c-1")
	if _, err := orders.CreateItem(ctx, pk, []byte(`{"id":"o-1","customerId":"c-1","type":"order","total":42}`), nil); err != nil {
		panic(err)
	}
	resp, err := orders.ReadItem(ctx, pk, "o-1", nil)
	if err != nil {
		panic(err)
	}
	var order struct {
		ID    string  `json:"id"`
		Total float64 `json:"total"`
	}
	if err := json.Unmarshal(resp.Value, &order); err != nil {
		panic(err)
	}
	fmt.Println(order.ID, order.Total)
	// Output: o-1 42
}

// Every New for the same account and identity shares one azcosmos client until the last Close.
func ExampleNew_sharedClient() {
	srv, err := cosmostest.Start()
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	cfg := cosmoskit.Config{Endpoint: srv.Endpoint(), Key: srv.Key(), Logger: slog.New(slog.DiscardHandler)}
	a, err := cosmoskit.New(cfg)
	if err != nil {
		panic(err)
	}
	defer a.Close()
	b, err := cosmoskit.New(cfg)
	if err != nil {
		panic(err)
	}
	defer b.Close()
	fmt.Println(a.Cosmos() == b.Cosmos())
	// Output: true
}

// A Config prints without its key, whatever the verb.
func ExampleConfig_String() {
	cfg := cosmoskit.Config{
		Endpoint:         "https://myaccount.documents.azure.com:443/",
		Key:              "c2VjcmV0LWtleS1ub3QtZm9yLXByaW50aW5n",
		PreferredRegions: []string{"West US 3", "East US 2"},
	}
	fmt.Printf("%+v\n", cfg)
	// Output: cosmoskit.Config{Endpoint: "https://myaccount.documents.azure.com:443/", Key: REDACTED, PreferredRegions: ["West US 3" "East US 2"]}
}

// Properties shows what EnsureContainer would send, without any I/O.
func ExampleContainerSpec_Properties() {
	spec := cosmoskit.ContainerSpec{
		ID:                "chunks",
		PartitionKeyPaths: []string{"/tenantId", "/documentId"},
		Vectors:           []cosmoskit.VectorSpec{{Path: "/embedding", Dimensions: 1536}},
	}
	props, err := spec.Properties()
	if err != nil {
		panic(err)
	}
	pk, _ := json.Marshal(props.PartitionKeyDefinition)
	fmt.Println(string(pk))
	for _, ex := range props.IndexingPolicy.ExcludedPaths {
		fmt.Println("excluded:", ex.Path)
	}
	for _, ci := range props.IndexingPolicy.CompositeIndexes {
		fmt.Println("composite:", ci[0].Path, ci[0].Order, ci[1].Path, ci[1].Order)
	}
	for _, vi := range props.IndexingPolicy.VectorIndexes {
		fmt.Println("vector index:", vi.Path, vi.Type)
	}

	_, err = cosmoskit.ContainerSpec{ID: "bad", PartitionKeyPaths: []string{"/a", "/b", "/c", "/d"}}.Properties()
	fmt.Println(err)
	// Output:
	// {"kind":"MultiHash","paths":["/tenantId","/documentId"],"version":2}
	// excluded: /"_etag"/?
	// excluded: /embedding/*
	// composite: /type ascending /_ts ascending
	// composite: /type ascending /_ts descending
	// vector index: /embedding quantizedFlat
	// cosmoskit: invalid container spec: ContainerSpec.PartitionKeyPaths: has 4 paths; a hierarchical partition key has at most 3 levels
}

// Values set in code win; the environment fills only what code leaves empty.
func ExampleLoadConfig() {
	restore := setenv(map[string]string{
		cosmoskit.EnvEndpoint:         "https://prod.documents.azure.com:443/",
		cosmoskit.EnvPreferredRegions: "West US 3, East US 2",
	})
	defer restore()

	cfg := cosmoskit.LoadConfig(cosmoskit.Config{Endpoint: cosmoskit.EmulatorEndpoint})
	fmt.Println(cfg.Endpoint)
	fmt.Printf("%q\n", cfg.PreferredRegions)
	// Output:
	// https://localhost:8081/
	// ["West US 3" "East US 2"]
}

// setenv sets variables and returns a function restoring their previous values.
func setenv(vars map[string]string) (restore func()) {
	type prev struct {
		v  string
		ok bool
	}
	old := map[string]prev{}
	for k, v := range vars {
		pv, ok := os.LookupEnv(k)
		old[k] = prev{pv, ok}
		_ = os.Setenv(k, v)
	}
	return func() {
		for k, p := range old {
			if p.ok {
				_ = os.Setenv(k, p.v)
			} else {
				_ = os.Unsetenv(k)
			}
		}
	}
}

// A multi-write container resolved by last writer wins on the application's version number: the
// policy is checked before anything is sent and written out in full.
func ExampleConflictResolutionSpec() {
	props, err := cosmoskit.ContainerSpec{
		ID:                 "carts",
		PartitionKeyPaths:  []string{"/userId"},
		ConflictResolution: cosmoskit.ConflictResolutionSpec{Path: "/version"},
	}.Properties()
	if err != nil {
		panic(err)
	}
	policy, _ := json.Marshal(props.ConflictResolutionPolicy)
	fmt.Println(string(policy))

	_, err = cosmoskit.ContainerSpec{
		ID:                 "carts",
		PartitionKeyPaths:  []string{"/userId"},
		ConflictResolution: cosmoskit.ConflictResolutionSpec{Path: "/meta/version"},
	}.Properties()
	fmt.Println(err)
	// Output:
	// {"mode":"LastWriterWins","conflictResolutionPath":"/version"}
	// cosmoskit: invalid container spec: ContainerSpec.ConflictResolution.Path: "/meta/version" is not one top-level property such as /version (the service refuses nested paths and paths without a leading /)
}

// EnsureContainer on an existing container whose indexing policy differs from the spec: the
// difference is a value in the result (the error is nil and the handle usable); DriftApply
// replaces the policy, DriftRefuse turns a difference into an error.
func ExampleClient_EnsureContainer() {
	srv, err := cosmostest.Start()
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

	spec := cosmoskit.ContainerSpec{ID: "orders", PartitionKeyPaths: []string{"/customerId"}}
	res, err := client.EnsureContainer(ctx, "shop", spec)
	if err != nil {
		panic(err)
	}
	fmt.Println("created:", res.Created)

	spec.ExcludedPaths = []string{"/payload/*"} // the code now asks for another indexing policy
	res, err = client.EnsureContainer(ctx, "shop", spec)
	if err != nil {
		panic(err)
	}
	for _, d := range res.Drift {
		fmt.Println("drift:", d)
	}

	spec.OnDrift = cosmoskit.DriftApply
	res, err = client.EnsureContainer(ctx, "shop", spec)
	if err != nil {
		panic(err)
	}
	fmt.Println("applied:", len(res.Applied), "drift left:", len(res.Drift))
	// Output:
	// created: true
	// drift: IndexingPolicy.ExcludedPaths (want /payload/*, have none)
	// applied: 1 drift left: 0
}
