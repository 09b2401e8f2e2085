// Command multientity shows a multi-entity container: customers and their orders stored together
// under one partition key (/customerId), told apart by the "type" discriminator the repositories
// stamp on every write. It shows
//
//   - one transactional batch across both types (a new order and the customer's order counter
//     change together, or not at all), and a batch that is rolled back;
//   - a polymorphic read of a customer's partition (repository.NewMixed) that decodes each document
//     to its own Go type, with one single-partition query;
//   - schema versioning: a customer document written by older code (schemaVersion 1, one "name"
//     field) is upgraded on read to today's version 2 (first and last name) and written back, and a
//     document newer than the code is refused instead of silently losing fields;
//   - a cross-partition count and "top orders" over every customer: ORDER BY and COUNT across
//     physical partitions, merged on the client by the crosspartition engine from the service's plan.
//
// With COSMOS_ENDPOINT (or COSMOS_CONNECTION_STRING) unset it starts the in-process cosmostest server,
// so it runs with no setup:
//
//	go run ./examples/multientity
//
// With COSMOS_ENDPOINT set it uses that account (see cosmoskit.LoadConfig for the variables);
// COSMOS_DATABASE names the database (default "multientity"). It deletes its sample items first, so
// it can run again on the same account.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, cosmoskit.ConfigFromEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "multientity:", err)
		os.Exit(1)
	}
}

// customer is today's (version 2) customer document. Version 1 had a single "name".
type customer struct {
	repository.Meta
	ID         string `json:"id"`
	CustomerID string `json:"customerId"` // the partition key: equal to ID for a customer
	First      string `json:"first"`
	Last       string `json:"last"`
	Orders     int    `json:"orders"`
}

// order is one order of a customer, stored in the customer's partition.
type order struct {
	repository.Meta
	ID         string  `json:"id"`
	CustomerID string  `json:"customerId"`
	Total      float64 `json:"total"`
}

// upgradeCustomerV1 turns a version 1 customer ({"name": "Grace Hopper"}) into version 2.
func upgradeCustomerV1(doc map[string]any) error {
	name, _ := doc["name"].(string)
	first, last, _ := strings.Cut(name, " ")
	doc["first"], doc["last"] = first, last
	delete(doc, "name")
	return nil
}

// sample lists every item the example writes, by partition key, so that a run on a real account can
// remove the previous run's items first.
var sample = map[string][]string{
	"ada":   {"ada", "o1", "o2", "o3"},
	"grace": {"grace", "g1"},
	"linus": {"linus"},
}

// run does the example against cfg, or against an in-process cosmostest server when cfg names no
// account, writing what it did to out.
func run(ctx context.Context, out io.Writer, cfg cosmoskit.Config) error {
	say := func(format string, args ...any) { _, _ = fmt.Fprintf(out, format, args...) }
	embedded := cfg.Endpoint == "" && cfg.ConnectionString == ""
	if embedded {
		srv, err := cosmostest.Start(cosmostest.WithPartitionCount(4)) // four physical partitions
		if err != nil {
			return fmt.Errorf("start cosmostest: %w", err)
		}
		defer srv.Close()
		cfg.Endpoint, cfg.Key = srv.Endpoint(), srv.Key()
		say("COSMOS_ENDPOINT is not set: started an in-process cosmostest server at %s\n", srv.Endpoint())
	}
	if cfg.Database == "" {
		cfg.Database = "multientity"
	}
	client, err := cosmoskit.New(cfg)
	if err != nil {
		return err
	}
	defer client.Close()
	if !embedded {
		say("using the account at %s\n", client.Endpoint())
	}

	res, err := client.EnsureContainer(ctx, cfg.Database, cosmoskit.ContainerSpec{
		ID:                "customers",
		PartitionKeyPaths: []string{"/customerId"},
	})
	if err != nil {
		return err
	}
	container := res.Container
	say("container %q is ready: customers and their orders share partition key /customerId\n", "customers")
	if !embedded {
		if err := removeSample(ctx, container); err != nil {
			return err
		}
	}

	pkPaths := []string{"/customerId"}
	customers, err := repository.NewFromClient(client, cfg.Database, "customers", repository.Options[customer]{
		Type: "customer",
		Key: func(c customer) (string, azcosmos.PartitionKey) {
			return c.ID, azcosmos.NewPartitionKeyString(c.CustomerID)
		},
		PartitionKeyPaths: pkPaths,
		SchemaVersion:     2,
		Upgrades:          map[int]repository.UpgradeFunc{1: upgradeCustomerV1},
		WriteBackUpgrades: true, // store the upgraded form (If-Match: a concurrent writer wins)
	})
	if err != nil {
		return err
	}
	orders, err := repository.NewFromClient(client, cfg.Database, "customers", repository.Options[order]{
		Type: "order",
		Key: func(o order) (string, azcosmos.PartitionKey) {
			return o.ID, azcosmos.NewPartitionKeyString(o.CustomerID)
		},
		PartitionKeyPaths: pkPaths,
	})
	if err != nil {
		return err
	}

	// 1. One transactional batch across the two types, in Ada's partition.
	ada := azcosmos.NewPartitionKeyString("ada")
	tx := repository.NewTx(container, ada)
	customers.CreateIn(tx, customer{ID: "ada", CustomerID: "ada", First: "Ada", Last: "Lovelace", Orders: 2})
	orders.CreateIn(tx, order{ID: "o1", CustomerID: "ada", Total: 30})
	orders.CreateIn(tx, order{ID: "o2", CustomerID: "ada", Total: 12.5})
	if _, err := tx.Execute(ctx); err != nil {
		return err
	}
	say("batch 1: created customer \"ada\" and orders o1, o2 in one transaction\n")

	// A new order and the customer's order counter change together.
	counter := repository.NewPatch().Increment("/orders", 1)
	tx = repository.NewTx(container, ada)
	orders.CreateIn(tx, order{ID: "o3", CustomerID: "ada", Total: 7})
	customers.PatchIn(tx, "ada", counter)
	if _, err := tx.Execute(ctx); err != nil {
		return err
	}
	say("batch 2: created order o3 and incremented the customer's order count in one transaction\n")

	// The same again fails on its first operation (o3 exists), so the increment is rolled back too.
	tx = repository.NewTx(container, ada)
	orders.CreateIn(tx, order{ID: "o3", CustomerID: "ada", Total: 7})
	customers.PatchIn(tx, "ada", counter)
	_, err = tx.Execute(ctx)
	var be *repository.BatchError
	if !errors.As(err, &be) || !errors.Is(err, cosmoserr.ErrConflict) {
		return fmt.Errorf("batch 3: got %w, want a rolled-back batch with a conflict", err)
	}
	c, err := customers.Get(ctx, ada, "ada")
	if err != nil {
		return err
	}
	say("batch 3: rolled back, operation %d (%s) failed with %d; order count still %d\n", be.Index, be.Type, be.StatusCode, c.Orders)

	// 2. A polymorphic read of the partition: one query, each document decoded to its Go type.
	mixed, err := repository.NewMixed(customers, orders)
	if err != nil {
		return err
	}
	var lines []string
	for v, err := range mixed.Partition(ctx, ada) {
		if err != nil {
			return err
		}
		switch v := v.(type) {
		case customer:
			lines = append(lines, fmt.Sprintf("customer %s: %s %s, %d orders", v.ID, v.First, v.Last, v.Orders))
		case order:
			lines = append(lines, fmt.Sprintf("order %s: %.2f", v.ID, v.Total))
		}
	}
	slices.Sort(lines)
	say("partition \"ada\" read as mixed types (%d documents):\n", len(lines))
	for _, l := range lines {
		say("  %s\n", l)
	}

	// 3. Schema versioning. Older code wrote this customer as version 1, with one "name" field.
	grace := azcosmos.NewPartitionKeyString("grace")
	v1 := `{"id":"grace","customerId":"grace","type":"customer","schemaVersion":1,"name":"Grace Hopper","orders":0}`
	if _, err := container.UpsertItem(ctx, grace, []byte(v1), nil); err != nil {
		return fmt.Errorf("write a version 1 document: %w", err)
	}
	g, err := customers.Get(ctx, grace, "grace")
	if err != nil {
		return err
	}
	version, err := storedVersion(ctx, container, grace, "grace")
	if err != nil {
		return err
	}
	say("customer \"grace\" stored at schemaVersion 1 was read as version %d: first %q, last %q; written back at schemaVersion %d\n",
		customers.SchemaVersion(), g.First, g.Last, version)

	// A document written by newer code is refused rather than decoded with fields dropped.
	linus := azcosmos.NewPartitionKeyString("linus")
	v3 := `{"id":"linus","customerId":"linus","type":"customer","schemaVersion":3,"first":"Linus","last":"Torvalds","tier":"gold"}`
	if _, err := container.UpsertItem(ctx, linus, []byte(v3), nil); err != nil {
		return fmt.Errorf("write a version 3 document: %w", err)
	}
	_, err = customers.Get(ctx, linus, "linus")
	if !errors.Is(err, cosmoserr.ErrUnknownSchemaVersion) {
		return fmt.Errorf("reading a version 3 document: got %w, want ErrUnknownSchemaVersion", err)
	}
	say("customer \"linus\" at schemaVersion 3 (newer than this code) is refused: %v\n", err)

	// Across customers: the gateway cannot count or sort across physical partitions by itself;
	// CrossPartition queries run through the crosspartition engine (the service's query plan, one
	// request per physical partition, merged here), with the same opaque page tokens.
	if _, err := orders.Create(ctx, order{ID: "g1", CustomerID: "grace", Total: 45}); err != nil {
		return err
	}
	n, err := orders.Count(ctx, repository.NewQuery().CrossPartition())
	if err != nil {
		return err
	}
	top, err := orders.Page(ctx, repository.NewQuery().CrossPartition().OrderBy("total", repository.Desc).Top(3), 3, "")
	if err != nil {
		return err
	}
	var largest []string
	for _, o := range top.Items {
		largest = append(largest, fmt.Sprintf("%s %.2f (%s)", o.ID, o.Total, o.CustomerID))
	}
	say("orders across all customers: %d; the largest: %s\n", n, strings.Join(largest, ", "))
	return nil
}

// storedVersion reads the raw document and returns its "schemaVersion".
func storedVersion(ctx context.Context, c *azcosmos.ContainerClient, pk azcosmos.PartitionKey, id string) (int, error) {
	resp, err := c.ReadItem(ctx, pk, id, nil)
	if err != nil {
		return 0, err
	}
	var doc struct {
		SchemaVersion int `json:"schemaVersion"`
	}
	if err := json.Unmarshal(resp.Value, &doc); err != nil {
		return 0, err
	}
	return doc.SchemaVersion, nil
}

// removeSample deletes the items an earlier run left on a real account.
func removeSample(ctx context.Context, c *azcosmos.ContainerClient) error {
	for pk, ids := range sample {
		for _, id := range ids {
			_, err := c.DeleteItem(ctx, azcosmos.NewPartitionKeyString(pk), id, nil)
			// Raw azcosmos calls return the SDK's errors; FromError makes them match the sentinels.
			if err != nil && !errors.Is(cosmoserr.FromError(cosmoserr.OpDeleteItem, err), cosmoserr.ErrNotFound) {
				return fmt.Errorf("remove %s/%s from an earlier run: %w", pk, id, err)
			}
		}
	}
	return nil
}
