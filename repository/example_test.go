package repository_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// exampleContainer starts a cosmostest server and creates container "shop" with partition key
// path; the returned func stops everything.
func exampleContainer(path string) (*azcosmos.ContainerClient, func()) {
	s, err := cosmostest.Start()
	if err != nil {
		log.Fatal(err)
	}
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		log.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	props := azcosmos.ContainerProperties{ID: "shop", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{
		Paths: []string{path}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		log.Fatal(err)
	}
	c, _ := db.NewContainer("shop")
	return c, func() { client.Close(); s.Close() }
}

type Item struct {
	repository.Meta
	ID       string `json:"id"`
	Customer string `json:"customer"`
	Product  string `json:"product"`
	Qty      int    `json:"qty"`
}

func itemKey(i Item) (string, azcosmos.PartitionKey) {
	return i.ID, azcosmos.NewPartitionKeyString(i.Customer)
}

func Example() {
	container, stop := exampleContainer("/customer")
	defer stop()
	ctx := context.Background()

	items, err := repository.New(container, repository.Options[Item]{Type: "item", Key: itemKey})
	if err != nil {
		log.Fatal(err)
	}
	stored, err := items.Create(ctx, Item{ID: "i1", Customer: "ann", Product: "tea", Qty: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stored with an ETag:", stored.ETag != "")

	_, err = items.Create(ctx, Item{ID: "i1", Customer: "ann", Product: "tea", Qty: 1})
	fmt.Println("duplicate create is a conflict:", errors.Is(err, cosmoserr.ErrConflict))

	got, err := items.Get(ctx, azcosmos.NewPartitionKeyString("ann"), "i1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Product, got.Qty)

	_, err = items.Get(ctx, azcosmos.NewPartitionKeyString("ann"), "nope")
	fmt.Println("missing:", errors.Is(err, cosmoserr.ErrNotFound))

	_, err = items.Create(ctx, Item{ID: "a/b", Customer: "ann"})
	fmt.Println("invalid id:", errors.Is(err, cosmoserr.ErrInvalidID))
	// Output:
	// stored with an ETag: true
	// duplicate create is a conflict: true
	// tea 1
	// missing: true
	// invalid id: true
}

func ExampleRepository_Update() {
	container, stop := exampleContainer("/customer")
	defer stop()
	ctx := context.Background()
	items, _ := repository.New(container, repository.Options[Item]{Type: "item", Key: itemKey})
	if _, err := items.Create(ctx, Item{ID: "i1", Customer: "ann", Product: "tea", Qty: 1}); err != nil {
		log.Fatal(err)
	}
	// read, modify, replace with If-Match; retried on a concurrent write
	updated, err := items.Update(ctx, azcosmos.NewPartitionKeyString("ann"), "i1", func(i *Item) error {
		i.Qty += 2
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(updated.Qty)

	// a write with a stale ETag fails
	stale := updated
	if _, err := items.Upsert(ctx, updated, repository.IfMatch(updated.ETag)); err != nil {
		log.Fatal(err)
	}
	_, err = items.Replace(ctx, stale, repository.IfMatch(stale.ETag))
	fmt.Println("stale:", errors.Is(err, cosmoserr.ErrPreconditionFailed))
	// Output:
	// 3
	// stale: true
}

func ExampleRepository_Page() {
	container, stop := exampleContainer("/customer")
	defer stop()
	ctx := context.Background()
	items, _ := repository.New(container, repository.Options[Item]{Type: "item", Key: itemKey})
	for i := range 5 {
		if _, err := items.Create(ctx, Item{ID: fmt.Sprintf("i%d", i), Customer: "ann", Product: "tea", Qty: i}); err != nil {
			log.Fatal(err)
		}
	}
	q := repository.NewQuery().
		Where("product", repository.Eq, "tea"). // sent as a parameter
		OrderBy("qty", repository.Desc).
		Partition(azcosmos.NewPartitionKeyString("ann"))
	token := ""
	for {
		page, err := items.Page(ctx, q, 2, token)
		if err != nil {
			log.Fatal(err)
		}
		var qtys []int
		for _, it := range page.Items {
			qtys = append(qtys, it.Qty)
		}
		fmt.Println(qtys, "more:", page.Next != "")
		if page.Next == "" {
			break
		}
		token = page.Next // opaque and URL-safe: hand it to the next HTTP request
	}
	// Output:
	// [4 3] more: true
	// [2 1] more: true
	// [0] more: false
}

func ExamplePageOf() {
	container, stop := exampleContainer("/customer")
	defer stop()
	ctx := context.Background()
	items, _ := repository.New(container, repository.Options[Item]{Type: "item", Key: itemKey})
	for _, p := range []string{"tea", "coffee"} {
		if _, err := items.Create(ctx, Item{ID: p, Customer: "ann", Product: p, Qty: 1}); err != nil {
			log.Fatal(err)
		}
	}
	// a DTO selects only its own fields
	type Line struct {
		Product string `json:"product"`
	}
	page, err := repository.PageOf[Line](ctx, items, repository.NewQuery().OrderBy("product", repository.Asc).
		Partition(azcosmos.NewPartitionKeyString("ann")), 10, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(page.Items)
	// Output:
	// [{coffee} {tea}]
}

type Customer2 struct {
	ID       string `json:"id"`
	Customer string `json:"customer"`
	Name     string `json:"name"`
}

func ExampleNewMixed() {
	container, stop := exampleContainer("/customer")
	defer stop()
	ctx := context.Background()
	items, _ := repository.New(container, repository.Options[Item]{Type: "item", Key: itemKey})
	customers, _ := repository.New(container, repository.Options[Customer2]{Type: "customer",
		Key: func(c Customer2) (string, azcosmos.PartitionKey) {
			return c.ID, azcosmos.NewPartitionKeyString(c.Customer)
		}})
	if _, err := customers.Create(ctx, Customer2{ID: "ann", Customer: "ann", Name: "Ann"}); err != nil {
		log.Fatal(err)
	}
	if _, err := items.Create(ctx, Item{ID: "i1", Customer: "ann", Product: "tea"}); err != nil {
		log.Fatal(err)
	}
	mixed, err := repository.NewMixed(items, customers)
	if err != nil {
		log.Fatal(err)
	}
	var lines []string
	for v, err := range mixed.Partition(ctx, azcosmos.NewPartitionKeyString("ann")) {
		if err != nil {
			log.Fatal(err)
		}
		switch v := v.(type) {
		case Customer2:
			lines = append(lines, "customer "+v.Name)
		case Item:
			lines = append(lines, "item "+v.Product)
		}
	}
	fmt.Println(strings.Join(lines, ", "))
	// Output:
	// customer Ann, item tea
}

// PersonV2 split v1's "name" into first and last.
type PersonV2 struct {
	ID    string `json:"id"`
	First string `json:"first"`
	Last  string `json:"last"`
}

func ExampleOptions_upgrades() {
	container, stop := exampleContainer("/id")
	defer stop()
	ctx := context.Background()
	// a version 1 document, written before the schema changed
	doc := `{"id":"p1","type":"person","schemaVersion":1,"name":"Ada Lovelace"}`
	if _, err := container.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p1"), []byte(doc), nil); err != nil {
		log.Fatal(err)
	}
	people, _ := repository.New(container, repository.Options[PersonV2]{
		Type:          "person",
		Key:           func(p PersonV2) (string, azcosmos.PartitionKey) { return p.ID, azcosmos.NewPartitionKeyString(p.ID) },
		SchemaVersion: 2,
		Upgrades: map[int]repository.UpgradeFunc{
			1: func(d map[string]any) error {
				first, last, _ := strings.Cut(d["name"].(string), " ")
				d["first"], d["last"] = first, last
				delete(d, "name")
				return nil
			},
		},
	})
	p, err := people.Get(ctx, azcosmos.NewPartitionKeyString("p1"), "p1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.First, "/", p.Last)

	newer := `{"id":"p2","type":"person","schemaVersion":3}`
	if _, err := container.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p2"), []byte(newer), nil); err != nil {
		log.Fatal(err)
	}
	_, err = people.Get(ctx, azcosmos.NewPartitionKeyString("p2"), "p2")
	fmt.Println(errors.Is(err, cosmoserr.ErrUnknownSchemaVersion))
	// Output:
	// Ada / Lovelace
	// true
}

func ExampleRepository_Patch() {
	container, stop := exampleContainer("/customer")
	defer stop()
	ctx := context.Background()
	items, _ := repository.New(container, repository.Options[Item]{Type: "item", Key: itemKey})
	if _, err := items.Create(ctx, Item{ID: "i1", Customer: "ann", Product: "tea", Qty: 1}); err != nil {
		log.Fatal(err)
	}
	ann := azcosmos.NewPartitionKeyString("ann")
	patched, err := items.Patch(ctx, ann, "i1", repository.NewPatch().Increment("/qty", 2).Set("/product", "green tea"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(patched.Product, patched.Qty)

	// conditional: only while the quantity is below 3
	_, err = items.Patch(ctx, ann, "i1", repository.NewPatch().Increment("/qty", 1).When("c.qty < 3"))
	fmt.Println("condition failed:", errors.Is(err, cosmoserr.ErrPreconditionFailed))

	// checked before sending: the repository owns "type"
	_, err = items.Patch(ctx, ann, "i1", repository.NewPatch().Set("/type", "other"))
	fmt.Println("invalid:", errors.Is(err, cosmoserr.ErrInvalidPatch))
	// Output:
	// green tea 3
	// condition failed: true
	// invalid: true
}

// Documents a service wrote before it adopted the repository have no "type": ReadUntyped reads
// them as the repository's type, and Migrate stamps them, after which the option can go.
func ExampleOptions_readUntyped() {
	container, stop := exampleContainer("/customer")
	defer stop()
	ctx := context.Background()
	ann := azcosmos.NewPartitionKeyString("ann")
	// Written by the code before the repository, with the plain azcosmos client.
	for _, doc := range []string{
		`{"id":"i1","customer":"ann","product":"tea","qty":1}`,
		`{"id":"i2","customer":"ann","product":"cups","qty":6}`,
	} {
		if _, err := container.CreateItem(ctx, ann, []byte(doc), nil); err != nil {
			log.Fatal(err)
		}
	}

	strict, err := repository.New(container, repository.Options[Item]{Type: "item", Key: itemKey})
	if err != nil {
		log.Fatal(err)
	}
	_, err = strict.Get(ctx, ann, "i1")
	fmt.Println("strict by default:", errors.Is(err, cosmoserr.ErrTypeMismatch))

	items, err := repository.New(container, repository.Options[Item]{
		Type: "item", Key: itemKey,
		ReadUntyped:   true, // the container's untyped documents are all items
		UnversionedAs: 1,    // and have no schemaVersion either
	})
	if err != nil {
		log.Fatal(err)
	}
	got, err := items.Get(ctx, ann, "i1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("read untyped:", got.Product, got.Qty)

	res, err := items.Migrate(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("migrated: %d of %d\n", res.Upgraded, res.Found)
	got, err = strict.Get(ctx, ann, "i2")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("then read strictly:", got.Product, got.Qty)
	// Output:
	// strict by default: true
	// read untyped: tea 1
	// migrated: 2 of 2
	// then read strictly: cups 6
}
