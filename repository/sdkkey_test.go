package repository_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

type Row struct {
	ID     string `json:"id"`
	Tenant string `json:"tenant"`
	User   string `json:"user"`
}

// TestSDKKeyCheckedAgainstItem: a KeyFunc that returns an azcosmos.PartitionKey is checked
// before sending, as a Key is: the item's own values at PartitionKeyPaths (length), the number of
// components against the container's levels, and equality with the item, naming the path.
func TestSDKKeyCheckedAgainstItem(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/tenant", "/user")
	newRows := func(key repository.KeyFunc[Row]) *repository.Repository[Row] {
		r, err := repository.New(e.container, repository.Options[Row]{Type: "row", Key: key, PartitionKeyPaths: []string{"/tenant", "/user"}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	full := newRows(func(r Row) (string, azcosmos.PartitionKey) {
		return r.ID, azcosmos.NewPartitionKeyString(r.Tenant).AppendString(r.User)
	})
	oneLevel := newRows(func(r Row) (string, azcosmos.PartitionKey) { return r.ID, azcosmos.NewPartitionKeyString(r.Tenant) })
	wrongUser := newRows(func(r Row) (string, azcosmos.PartitionKey) {
		return r.ID, azcosmos.NewPartitionKeyString(r.Tenant).AppendString("someone else")
	})
	typedWrong := newRows(func(r Row) (string, azcosmos.PartitionKey) { return r.ID, partitionkey.Of(r.Tenant, "x").SDK() })
	for _, c := range []struct {
		name  string
		repo  *repository.Repository[Row]
		row   Row
		field string
	}{
		{"2,049-byte value", full, Row{ID: "a", Tenant: "t", User: strings.Repeat("u", 2049)}, "/user"},
		{"one component on two levels", oneLevel, Row{ID: "a", Tenant: "t", User: "u"}, "partitionKey"},
		{"KeyFunc disagrees", wrongUser, Row{ID: "a", Tenant: "t", User: "u"}, "/user"},
		{"typed KeyFunc disagrees", typedWrong, Row{ID: "a", Tenant: "t", User: "u"}, "/user"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.srv.ResetRequests()
			for op, call := range map[string]func() error{
				"create":  func() error { _, err := c.repo.Create(ctx, c.row); return err },
				"upsert":  func() error { _, err := c.repo.Upsert(ctx, c.row); return err },
				"replace": func() error { _, err := c.repo.Replace(ctx, c.row); return err },
			} {
				err := call()
				var ve *cosmoserr.ValidationError
				if !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) || !errors.As(err, &ve) || ve.Field != c.field {
					t.Fatalf("%s = %v, want ErrInvalidPartitionKey on %s", op, err, c.field)
				}
				if strings.Contains(err.Error(), "someone else") || strings.Contains(err.Error(), "uuuu") {
					t.Fatalf("%s: the error echoes a key value: %v", op, err)
				}
			}
			if n := e.srv.Requests(cosmostestDocs()); n != 0 {
				t.Fatalf("%d requests sent", n)
			}
		})
	}
	if _, err := full.Create(ctx, Row{ID: "a", Tenant: "t", User: "u"}); err != nil {
		t.Fatalf("a matching SDK key: %v", err)
	}

	// Point operations with an SDK key: the components are checked too.
	e.srv.ResetRequests()
	for name, key := range map[string]azcosmos.PartitionKey{
		"one component":    azcosmos.NewPartitionKeyString("t"),
		"2,049-byte value": azcosmos.NewPartitionKeyString("t").AppendString(strings.Repeat("u", 2049)),
		"no component":     azcosmos.NewPartitionKey(),
	} {
		if _, err := full.Get(ctx, key, "a"); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
			t.Errorf("Get with %s = %v", name, err)
		}
		if err := full.Delete(ctx, key, "a"); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
			t.Errorf("Delete with %s = %v", name, err)
		}
	}
	if n := e.srv.Requests(cosmostestDocs()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	if _, err := full.Get(ctx, azcosmos.NewPartitionKeyString("t").AppendString("u"), "a"); err != nil {
		t.Fatalf("Get with the right SDK key: %v", err)
	}
}
