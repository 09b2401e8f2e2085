package repository_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestProjectionUpgradesOldDocuments: PageOf and AllOf project documents below the current schema
// version from their upgraded form, and refuse newer ones, like Get.
func TestProjectionUpgradesOldDocuments(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/tenant")
	people := newPeople(t, e.container)
	rawPut(t, e.container, "t1", `{"id":"p1","tenant":"t1","type":"person","schemaVersion":1,"name":"Ada Lovelace"}`)
	rawPut(t, e.container, "t1", `{"id":"p2","tenant":"t1","type":"person","schemaVersion":2,"first":"Alan","last":"Turing"}`)
	rawPut(t, e.container, "t1", `{"id":"p3","tenant":"t1","type":"person","schemaVersion":3,"first":"Grace","family":"Hopper","country":"US"}`)

	type Name struct {
		Family  string `json:"family"`
		Country string `json:"country"`
	}
	q := repository.NewQuery().OrderBy("id", repository.Asc).Partition(pk("t1"))
	page, err := repository.PageOf[Name](ctx, people, q, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(page.Items); got != "[{Lovelace unknown} {Turing unknown} {Hopper US}]" || page.Next != "" {
		t.Fatalf("projection = %s (next %q)", got, page.Next)
	}
	// an explicit Select too, through AllOf
	var got []string
	for n, err := range repository.AllOf[Name](ctx, people, repository.NewQuery().Select("family").OrderBy("id", repository.Asc).Partition(pk("t1"))) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, n.Family+"/"+n.Country)
	}
	if fmt.Sprint(got) != "[Lovelace/ Turing/ Hopper/]" {
		t.Fatalf("AllOf with Select = %v", got)
	}

	// a document newer than the code is an error, never silently projected
	rawPut(t, e.container, "t1", `{"id":"p4","tenant":"t1","type":"person","schemaVersion":4,"family":"Future"}`)
	_, err = repository.PageOf[Name](ctx, people, q, 10, "")
	if !errors.Is(err, cosmoserr.ErrUnknownSchemaVersion) {
		t.Fatalf("projection of a v4 document = %v, want ErrUnknownSchemaVersion", err)
	}

	// Page decodes whole items: a Select is refused before any request
	if _, err := people.Page(ctx, repository.NewQuery().Select("family").Partition(pk("t1")), 10, ""); !errors.Is(err, cosmoserr.ErrInvalidQuery) {
		t.Fatalf("Page with Select = %v, want ErrInvalidQuery", err)
	}
}

// TestProjectionIntoMapUpgrades: a DTO without struct fields gets whole documents, upgraded.
func TestProjectionIntoMapUpgrades(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/tenant")
	people := newPeople(t, e.container)
	rawPut(t, e.container, "t1", `{"id":"p1","tenant":"t1","type":"person","schemaVersion":1,"name":"Ada Lovelace"}`)
	page, err := repository.PageOf[map[string]any](ctx, people, repository.NewQuery().Partition(pk("t1")), 10, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Items[0]["family"] != "Lovelace" || page.Items[0]["schemaVersion"] != float64(3) {
		t.Fatalf("map projection = %v", page.Items)
	}
}
