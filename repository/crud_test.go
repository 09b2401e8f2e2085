package repository_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

var jsonUnmarshal = json.Unmarshal

func TestCRUD(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)

	created, err := orders.Create(ctx, Order{ID: "o1", CustomerID: "c1", Total: 10})
	if err != nil {
		t.Fatal(err)
	}
	if created.ETag == "" || created.TS == 0 || created.Modified().IsZero() {
		t.Fatalf("Create returned no ETag/timestamp: %+v", created)
	}
	raw := rawGet(t, e.container, "c1", "o1")
	if raw["type"] != "order" || raw["schemaVersion"] != float64(1) {
		t.Fatalf("stored document lacks type/schemaVersion: %v", raw)
	}

	// Create never upserts.
	_, err = orders.Create(ctx, Order{ID: "o1", CustomerID: "c1", Total: 99})
	if !errors.Is(err, cosmoserr.ErrConflict) {
		t.Fatalf("duplicate Create: %v, want ErrConflict", err)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusConflict {
		t.Fatalf("errors.As to *azcore.ResponseError failed: %v", err)
	}
	var de *cosmoserr.Error
	if !errors.As(err, &de) || de.StatusCode != http.StatusConflict {
		t.Fatalf("errors.As to *cosmoserr.Error failed: %v", err)
	}

	e.srv.ResetRequests()
	got, err := orders.Get(ctx, pk("c1"), "o1")
	if err != nil || got.Total != 10 || got.ETag != created.ETag {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	// a point read, never a query
	if r, q := e.srv.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReadItem}),
		e.srv.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpQueryItems}); r != 1 || q != 0 {
		t.Fatalf("Get made %d reads and %d queries", r, q)
	}

	// Replace with a stale ETag fails; with the current one it succeeds.
	got.Total = 20
	replaced, err := orders.Replace(ctx, got, repository.IfMatch(created.ETag))
	if err != nil || replaced.Total != 20 || replaced.ETag == created.ETag {
		t.Fatalf("Replace = %+v, %v", replaced, err)
	}
	got.Total = 30
	if _, err := orders.Replace(ctx, got, repository.IfMatch(created.ETag)); !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
		t.Fatalf("stale Replace: %v, want ErrPreconditionFailed", err)
	}
	if _, err := orders.Upsert(ctx, got, repository.IfMatch(created.ETag)); !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
		t.Fatalf("stale Upsert: %v, want ErrPreconditionFailed", err)
	}
	if _, err := orders.Replace(ctx, Order{ID: "nope", CustomerID: "c1"}); !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Fatalf("Replace of a missing item: %v, want ErrNotFound", err)
	}
	up, err := orders.Upsert(ctx, Order{ID: "o2", CustomerID: "c1", Total: 5})
	if err != nil || up.ETag == "" {
		t.Fatalf("Upsert = %+v, %v", up, err)
	}

	if ok, err := orders.Exists(ctx, pk("c1"), "o2"); !ok || err != nil {
		t.Fatalf("Exists(o2) = %v, %v", ok, err)
	}
	if err := orders.Delete(ctx, pk("c1"), "o2", repository.IfMatch(created.ETag)); !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
		t.Fatalf("stale Delete: %v", err)
	}
	if err := orders.Delete(ctx, pk("c1"), "o2", repository.IfMatch(up.ETag)); err != nil {
		t.Fatal(err)
	}
	if ok, err := orders.Exists(ctx, pk("c1"), "o2"); ok || err != nil {
		t.Fatalf("Exists(deleted) = %v, %v", ok, err)
	}
	_, err = orders.Get(ctx, pk("c1"), "o2")
	if !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Fatalf("Get(deleted) = %v, want ErrNotFound", err)
	}
	if err := orders.Delete(ctx, pk("c1"), "o2"); !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Fatalf("Delete(deleted) = %v", err)
	}
}

func TestOtherTypeIsAnError(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	rawPut(t, e.container, "c1", `{"id":"x","customerId":"c1","type":"customer","schemaVersion":1,"name":"Ann"}`)
	rawPut(t, e.container, "c1", `{"id":"y","customerId":"c1","schemaVersion":1}`)
	for _, id := range []string{"x", "y"} {
		_, err := orders.Get(ctx, pk("c1"), id)
		var de *repository.DocumentError
		if !errors.Is(err, cosmoserr.ErrTypeMismatch) || !errors.As(err, &de) || de.ID != id {
			t.Fatalf("Get(%s) = %v, want ErrTypeMismatch", id, err)
		}
		if _, err := orders.Exists(ctx, pk("c1"), id); !errors.Is(err, cosmoserr.ErrTypeMismatch) {
			t.Fatalf("Exists(%s) = %v, want ErrTypeMismatch", id, err)
		}
	}
	// a struct that carries its own type field must agree with the repository
	type Tagged struct {
		ID   string `json:"id"`
		PK   string `json:"customerId"`
		Type string `json:"type"`
	}
	tagged, err := repository.New(e.container, repository.Options[Tagged]{Type: "tagged",
		Key: func(v Tagged) (string, azcosmos.PartitionKey) { return v.ID, pk(v.PK).SDK() }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tagged.Create(ctx, Tagged{ID: "t", PK: "c1", Type: "other"}); !errors.Is(err, cosmoserr.ErrTypeMismatch) {
		t.Fatalf("Create with a wrong type field: %v", err)
	}
	if _, err := tagged.Create(ctx, Tagged{ID: "t", PK: "c1", Type: "tagged"}); err != nil {
		t.Fatal(err)
	}
}

func TestNewOptions(t *testing.T) {
	e := newEnv(t)
	cases := map[string]repository.Options[Order]{
		"no type":       {Key: orderKey},
		"no key":        {Type: "order"},
		"bad type":      {Type: "or'der", Key: orderKey},
		"upgrade range": {Type: "order", Key: orderKey, SchemaVersion: 2, Upgrades: map[int]repository.UpgradeFunc{2: nil}},
		"4 levels":      {Type: "order", Key: orderKey, PartitionKeyPaths: []string{"/a", "/b", "/c", "/d"}},
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := repository.New(e.container, o); !errors.Is(err, cosmoserr.ErrValidation) {
				t.Fatalf("New = %v, want ErrValidation", err)
			}
		})
	}
}

func TestNewFromClient(t *testing.T) {
	e := newEnv(t)
	client := cosmoskit.NewFromClient(e.client)
	orders, err := repository.NewFromClient(client, "db", "c", repository.Options[Order]{Type: "order", Key: orderKey})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := orders.Create(context.Background(), Order{ID: "x", CustomerID: "c1"}); err != nil {
		t.Fatal(err)
	}
	if raw := rawGet(t, e.container, "c1", "x"); raw["type"] != "order" {
		t.Fatalf("raw = %v", raw)
	}
	if orders.Type() != "order" || orders.SchemaVersion() != 1 || orders.Container() == nil {
		t.Fatal("accessors")
	}
	// the sentinels are diagnostics' (and cosmoskit's) values
	if !errors.Is(cosmoserr.ErrNotFound, cosmoserr.ErrNotFound) || !errors.Is(cosmoserr.ErrPreconditionFailed, cosmoserr.ErrPreconditionFailed) {
		t.Fatal("sentinels are not shared")
	}
}

// TestThroughCosmoskitClient runs the repository over a client from cosmoskit.New, whose pipeline
// carries the diagnostics and retry policies: errors stay typed and 412 loops still work.
func TestThroughCosmoskitClient(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	client, err := cosmoskit.New(cosmoskit.Config{ConnectionString: e.srv.ConnectionString(), ClientOptions: e.srv.ClientOptions(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	orders, err := repository.NewFromClient(client, "db", "c", repository.Options[Order]{Type: "order", Key: orderKey})
	if err != nil {
		t.Fatal(err)
	}
	o, err := orders.Create(ctx, Order{ID: "k", CustomerID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := orders.Create(ctx, o); !errors.Is(err, cosmoserr.ErrConflict) {
		t.Fatalf("duplicate = %v", err)
	}
	var de *cosmoserr.Error
	_, err = orders.Get(ctx, pk("c1"), "none")
	if !errors.Is(err, cosmoserr.ErrNotFound) || !errors.As(err, &de) || de.StatusCode != http.StatusNotFound || de.ActivityID == "" {
		t.Fatalf("Get(none) = %v", err)
	}
	if got, err := orders.Update(ctx, pk("c1"), "k", func(o *Order) error { o.N = 7; return nil }); err != nil || got.N != 7 {
		t.Fatalf("Update = %+v, %v", got, err)
	}
}
