package repository_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// Order is the test entity: partitioned by customer.
type Order struct {
	repository.Meta
	ID         string `json:"id"`
	CustomerID string `json:"customerId"`
	Status     string `json:"status,omitempty"`
	Total      int    `json:"total"`
	N          int    `json:"n,omitempty"`
}

func orderKey(o Order) (string, azcosmos.PartitionKey) {
	return o.ID, azcosmos.NewPartitionKeyString(o.CustomerID)
}

// Customer shares the orders' container and partition key.
type Customer struct {
	repository.Meta
	ID         string `json:"id"`
	CustomerID string `json:"customerId"`
	Name       string `json:"name"`
}

func customerKey(c Customer) (string, azcosmos.PartitionKey) {
	return c.ID, azcosmos.NewPartitionKeyString(c.CustomerID)
}

type env struct {
	srv       *cosmostest.Server
	client    *azcosmos.Client
	container *azcosmos.ContainerClient
}

// newEnv starts a server and creates database "db" and container "c" with the given partition key
// paths (default /customerId).
func newEnv(t testing.TB, paths ...string) *env {
	t.Helper()
	return newEnvWith(t, nil, paths...)
}

// newEnvWith is newEnv with server options.
func newEnvWith(t testing.TB, opts []cosmostest.Option, paths ...string) *env {
	t.Helper()
	s := cosmostest.NewServer(t, append([]cosmostest.Option{cosmostest.WithHTTP()}, opts...)...)
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return &env{srv: s, client: client, container: createContainer(t, client, "c", paths...)}
}

func createContainer(t testing.TB, client *azcosmos.Client, id string, paths ...string) *azcosmos.ContainerClient {
	t.Helper()
	ctx := context.Background()
	if len(paths) == 0 {
		paths = []string{"/customerId"}
	}
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != http.StatusConflict {
			t.Fatal(err)
		}
	}
	db, err := client.NewDatabase("db")
	if err != nil {
		t.Fatal(err)
	}
	kind := azcosmos.PartitionKeyKindHash
	if len(paths) > 1 {
		kind = azcosmos.PartitionKeyKindMultiHash
	}
	props := azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: paths, Kind: kind, Version: 2}}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	c, err := db.NewContainer(id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newOrders(t testing.TB, c *azcosmos.ContainerClient, edit ...func(*repository.Options[Order])) *repository.Repository[Order] {
	t.Helper()
	opts := repository.Options[Order]{Type: "order", Key: orderKey, PartitionKeyPaths: []string{"/customerId"}}
	for _, e := range edit {
		e(&opts)
	}
	r, err := repository.New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// pk returns a typed key, which the repository checks before sending.
func pk(s string) partitionkey.Key { return partitionkey.Of(s) }

// rawGet reads a document as raw JSON through the SDK.
func rawGet(t testing.TB, c *azcosmos.ContainerClient, key, id string) map[string]any {
	t.Helper()
	resp, err := c.ReadItem(context.Background(), pk(key).SDK(), id, nil)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := jsonUnmarshal(resp.Value, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// rawPut writes a raw JSON document through the SDK.
func rawPut(t testing.TB, c *azcosmos.ContainerClient, key string, doc string) {
	t.Helper()
	if _, err := c.UpsertItem(context.Background(), pk(key).SDK(), []byte(doc), nil); err != nil {
		t.Fatal(err)
	}
}

// cosmostestDocs selects every document request.
func cosmostestDocs() cosmostest.RequestFilter {
	return cosmostest.RequestFilter{ResourceType: cosmostest.ResourceDocument}
}
