package repository_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

const b64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// TestPageTokenCoversEveryByte: every truncation of a page token and every token with one
// character changed is ErrInvalidToken with nothing sent (the binding used to cover the query and
// scope but not the continuation bytes: 199 of 379 variants reached the service).
func TestPageTokenCoversEveryByte(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	seedOrders(t, orders, "A", 6)
	for name, q := range map[string]*repository.Query{
		"partition": repository.NewQuery().Partition(pk("A")),
		"cross":     repository.NewQuery().CrossPartition().OrderBy("total", repository.Asc),
	} {
		t.Run(name, func(t *testing.T) {
			p, err := orders.Page(ctx, q, 2, "")
			if err != nil || p.Next == "" {
				t.Fatalf("first page = %+v, %v", p, err)
			}
			tok := p.Next
			var variants []string
			for i := range len(tok) {
				if i > 0 { // "" is no token: the first page
					variants = append(variants, tok[:i])
				}
				for _, c := range []byte{b64url[(strings.IndexByte(b64url, tok[i])+1)%64], b64url[(strings.IndexByte(b64url, tok[i])+33)%64]} {
					variants = append(variants, tok[:i]+string(c)+tok[i+1:])
				}
			}
			e.srv.ResetRequests()
			for _, v := range variants {
				if _, err := orders.Page(ctx, q, 2, v); !errors.Is(err, cosmoserr.ErrInvalidToken) {
					t.Fatalf("a variant of the token = %v, want ErrInvalidToken", err)
				}
			}
			if n := e.srv.Requests(cosmostestDocs()); n != 0 {
				t.Fatalf("%d requests sent for %d altered tokens", n, len(variants))
			}
			if _, err := orders.Page(ctx, q, 2, tok); err != nil {
				t.Fatalf("the token itself: %v", err)
			}
		})
	}
}

// TestPageTokenBoundToContainer: a token of container "c" is refused on "c-tenant2" and on a
// container "c" of another database, before anything is sent.
func TestPageTokenBoundToContainer(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	other := createContainer(t, e.client, "c-tenant2")
	if _, err := e.client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "otherdb"}, nil); err != nil {
		t.Fatal(err)
	}
	odb, _ := e.client.NewDatabase("otherdb")
	if _, err := odb.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customerId"}}}, nil); err != nil {
		t.Fatal(err)
	}
	sameName, _ := odb.NewContainer("c")
	orders := newOrders(t, e.container)
	seedOrders(t, orders, "A", 6)
	for _, q := range []*repository.Query{repository.NewQuery().Partition(pk("A")), repository.NewQuery().CrossPartition()} {
		p, err := orders.Page(ctx, q, 2, "")
		if err != nil || p.Next == "" {
			t.Fatalf("first page = %+v, %v", p, err)
		}
		e.srv.ResetRequests()
		for name, c := range map[string]*azcosmos.ContainerClient{"c-tenant2": other, "otherdb/c": sameName} {
			r := newOrders(t, c)
			if _, err := r.Page(ctx, q, 2, p.Next); !errors.Is(err, cosmoserr.ErrInvalidToken) {
				t.Fatalf("token of db/c on %s = %v, want ErrInvalidToken", name, err)
			}
		}
		if n := e.srv.Requests(cosmostestDocs()); n != 0 {
			t.Fatalf("%d requests sent", n)
		}
	}
}

// TestPageTokenSigningKey: with a signing key, tokens of another key (or unkeyed) are refused,
// and a short key is refused by New.
func TestPageTokenSigningKey(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	k1, k2 := []byte(strings.Repeat("1", 32)), []byte(strings.Repeat("2", 32))
	keyed := newOrders(t, e.container, func(o *repository.Options[Order]) { o.TokenSigningKey = k1 })
	sameKey := newOrders(t, e.container, func(o *repository.Options[Order]) { o.TokenSigningKey = k1 })
	otherKey := newOrders(t, e.container, func(o *repository.Options[Order]) { o.TokenSigningKey = k2 })
	unkeyed := newOrders(t, e.container)
	seedOrders(t, keyed, "A", 6)
	for _, q := range []*repository.Query{repository.NewQuery().Partition(pk("A")), repository.NewQuery().CrossPartition()} {
		p, err := keyed.Page(ctx, q, 2, "")
		if err != nil || p.Next == "" {
			t.Fatalf("first page = %+v, %v", p, err)
		}
		if _, err := sameKey.Page(ctx, q, 2, p.Next); err != nil {
			t.Fatalf("another instance with the same key: %v", err)
		}
		for name, r := range map[string]*repository.Repository[Order]{"other key": otherKey, "unkeyed": unkeyed} {
			if _, err := r.Page(ctx, q, 2, p.Next); !errors.Is(err, cosmoserr.ErrInvalidToken) {
				t.Fatalf("%s = %v, want ErrInvalidToken", name, err)
			}
		}
	}
	_, err := repository.New(e.container, repository.Options[Order]{Type: "order", Key: orderKey, TokenSigningKey: []byte("short")})
	var ve *cosmoserr.ValidationError
	if !errors.As(err, &ve) || ve.Field != "Options.TokenSigningKey" || strings.Contains(err.Error(), "short") {
		t.Fatalf("short key = %v", err)
	}
}
