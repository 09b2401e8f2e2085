package repository_test

import (
	"errors"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestCondition: a builder query's filters render as a WHERE condition with parameters (values
// never in the text); anything but Where is refused.
func TestCondition(t *testing.T) {
	r, err := repository.New(&azcosmos.ContainerClient{}, repository.Options[struct{ ID string }]{Type: "thing",
		Key: func(x struct{ ID string }) (string, azcosmos.PartitionKey) {
			return x.ID, azcosmos.NewPartitionKeyString(x.ID)
		}})
	if err != nil {
		t.Fatal(err)
	}
	text, params, err := r.Condition(repository.NewQuery().Where("status", repository.Eq, "o'pen").Where("tags", repository.In, []string{"a"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `c.type = @type AND c["status"] = @p0 AND ARRAY_CONTAINS(@p1, c["tags"])`; text != want {
		t.Fatalf("%s, want %s", text, want)
	}
	if len(params) != 3 || params[0].Value != "thing" || params[1].Name != "@p0" || params[1].Value != "o'pen" {
		t.Fatalf("%v", params)
	}
	for _, q := range []*repository.Query{nil, repository.SQL("SELECT * FROM c"), repository.NewQuery().Top(3), repository.NewQuery().OrderBy("a", repository.Asc), repository.NewQuery().Where("a b", repository.Eq, 1)} {
		if _, _, err := r.Condition(q); !errors.Is(err, cosmoserr.ErrInvalidQuery) {
			t.Errorf("%v", err)
		}
	}
	if _, err := r.Decode([]byte(`{"id":"x","type":"other","schemaVersion":1}`)); !errors.Is(err, cosmoserr.ErrTypeMismatch) {
		t.Fatalf("Decode of another type: %v", err)
	}
	if v, err := r.Decode([]byte(`{"ID":"x","type":"thing","schemaVersion":1}`)); err != nil || v.ID != "x" {
		t.Fatalf("Decode: %v %v", v, err)
	}
}
