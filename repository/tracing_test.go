package repository_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// spanTree indexes recorded spans by name and lets a test ask for a span's children.
type spanTree []sdktrace.ReadOnlySpan

func (s spanTree) named(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, sp := range s {
		if sp.Name() == name {
			out = append(out, sp)
		}
	}
	return out
}

func (s spanTree) children(parent sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, sp := range s {
		if sp.Parent().SpanID() == parent.SpanContext().SpanID() {
			out = append(out, sp.Name())
		}
	}
	return out
}

func attr(sp sdktrace.ReadOnlySpan, key string) (attribute.Value, bool) {
	for _, kv := range sp.Attributes() {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// TestSpanPerRepositoryCall: with a client from cosmoskit.New, each repository call is one span
// whose children are the SDK calls it made (Update: a read and a replace; Migrate: its query pages
// and its updates).
func TestSpanPerRepositoryCall(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/tenant")
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() { _ = tp.Shutdown(ctx) }()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	client, err := cosmoskit.New(cosmoskit.Config{ConnectionString: e.srv.ConnectionString(), ClientOptions: e.srv.ClientOptions(),
		Logger: quiet, Diagnostics: diagnostics.Options{TracerProvider: tp}})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	people, err := repository.NewFromClient(client, "db", "c", repository.Options[PersonV3]{
		Type: "person", Key: func(p PersonV3) (string, azcosmos.PartitionKey) { return p.ID, pk(p.Tenant).SDK() },
		SchemaVersion: 3, Upgrades: personUpgrades(), Logger: quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := people.Create(ctx, PersonV3{ID: "p0", Tenant: "t1", First: "Grace"}); err != nil {
		t.Fatal(err)
	}
	if _, err := people.Update(ctx, pk("t1"), "p0", func(p *PersonV3) error { p.Country = "US"; return nil }); err != nil {
		t.Fatal(err)
	}
	rawPut(t, e.container, "t1", `{"id":"p1","tenant":"t1","type":"person","schemaVersion":1,"name":"Ada Lovelace"}`)
	if res, err := people.Migrate(ctx); err != nil || res.Upgraded != 1 {
		t.Fatalf("Migrate = %+v, %v", res, err)
	}
	if _, err := people.Get(ctx, pk("t1"), "missing"); err == nil {
		t.Fatal("Get(missing) succeeded")
	}
	spans := spanTree(rec.Ended())

	create := spans.named("repository.Create c")
	if len(create) != 1 {
		t.Fatalf("%d Create spans", len(create))
	}
	if v, ok := attr(create[0], "cosmoskit.repository.type"); !ok || v.AsString() != "person" {
		t.Fatalf("Create span type attribute = %v", v)
	}
	if v, ok := attr(create[0], "db.namespace"); !ok || v.AsString() != "db" {
		t.Fatalf("Create span db.namespace = %v", v)
	}

	updates := spans.named("repository.Update c")
	if len(updates) != 2 { // the explicit one and Migrate's
		t.Fatalf("%d Update spans, want 2", len(updates))
	}
	kids := spans.children(updates[0])
	if len(kids) != 2 || kids[0] != "read_item c" || kids[1] != "replace_item c" {
		t.Fatalf("Update span children = %v, want [read_item c replace_item c]", kids)
	}
	if v, ok := attr(updates[0], "cosmoskit.requests"); !ok || v.AsInt64() != 2 {
		t.Fatalf("Update span cosmoskit.requests = %v", v)
	}

	migrate := spans.named("repository.Migrate c")
	if len(migrate) != 1 {
		t.Fatalf("%d Migrate spans", len(migrate))
	}
	var pages, nested int
	for _, k := range spans.children(migrate[0]) {
		switch k {
		case "repository.Page c":
			pages++
		case "repository.Update c":
			nested++
		}
	}
	if pages < 1 || nested != 1 {
		t.Fatalf("Migrate children = %v", spans.children(migrate[0]))
	}
	get := spans.named("repository.Get c")
	if len(get) != 1 {
		t.Fatalf("%d Get spans", len(get))
	}
	if v, ok := attr(get[0], "db.response.status_code"); !ok || v.AsString() != "404" {
		t.Fatalf("Get(missing) span status = %v", v)
	}
}

// TestNoSpanWithoutTracer: a plain azcosmos client and a context without a span record nothing,
// and a span in the context adopts repository calls as its children.
func TestSpanFromContextProvider(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() { _ = tp.Shutdown(ctx) }()
	if _, err := orders.Create(ctx, Order{ID: "o", CustomerID: "c1"}); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Ended()); n != 0 {
		t.Fatalf("%d spans without a tracer", n)
	}
	pctx, parent := tp.Tracer("test").Start(ctx, "handler")
	if _, err := orders.Page(pctx, repository.NewQuery().Partition(pk("c1")), 10, ""); err != nil {
		t.Fatal(err)
	}
	parent.End()
	spans := spanTree(rec.Ended())
	handler := spans.named("handler")
	if len(handler) != 1 {
		t.Fatalf("spans = %d", len(spans))
	}
	if kids := spans.children(handler[0]); len(kids) != 1 || kids[0] != "repository.Page c" {
		t.Fatalf("handler children = %v", kids)
	}
}
