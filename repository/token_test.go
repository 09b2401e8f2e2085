package repository_test

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/repository"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// forgeToken builds a page token the way Page does, with any continuation bytes: what an end user
// of a paged API can send. It keeps the binding of good, a token Page returned (its first 16
// bytes: the query, values and scope it belongs to), and replaces the service's continuation.
func forgeToken(t *testing.T, good, cont string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(good)
	if err != nil || len(b) <= 16 {
		t.Fatalf("page token %q: %v", good, err)
	}
	return base64.RawURLEncoding.EncodeToString(append(b[:16:16], cont...))
}

// TestBadTokensNeverOpenTheBreaker sends many page tokens whose bytes cannot travel in an HTTP
// header through a cosmoskit client with a single region: each is refused with ErrInvalidToken
// before anything is sent, no breaker opens, and reads and writes keep working.
func TestBadTokensNeverOpenTheBreaker(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	client, err := cosmoskit.New(cosmoskit.Config{ConnectionString: e.srv.ConnectionString(), ClientOptions: e.srv.ClientOptions(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	cc, err := client.Container("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	orders := newOrders(t, cc)
	seedOrders(t, orders, "c1", 4)
	const text = "SELECT * FROM c WHERE c.type = @type"
	q := repository.SQL(text).Partition(pk("c1"))
	first, err := orders.Page(ctx, q, 2, "")
	if err != nil || first.Next == "" {
		t.Fatalf("first page = %+v, %v", first, err)
	}
	otherQuery, err := orders.Page(ctx, repository.SQL(text+" AND c.total >= 0").Partition(pk("c1")), 2, "")
	if err != nil || otherQuery.Next == "" {
		t.Fatalf("first page of another query = %+v, %v", otherQuery, err)
	}
	good := first.Next
	bad := []string{
		forgeToken(t, good, "\n"),
		forgeToken(t, good, "a\r\nx-ms-documentdb-partitionkey: [\"c2\"]"),
		forgeToken(t, good, "\x00\x01"),
		forgeToken(t, good, "\x7f"),
		forgeToken(t, good, "ok\xff\xfe"),
		"not base64 !",
		forgeToken(t, otherQuery.Next, `{"token":"x"}`),
		forgeToken(t, good, ""), // the binding alone
	}
	for range 5 {
		for _, tok := range bad {
			if _, err := orders.Page(ctx, q, 2, tok); !errors.Is(err, cosmoserr.ErrInvalidToken) {
				t.Fatalf("Page(%q) = %v, want ErrInvalidToken", tok, err)
			}
		}
	}
	for _, b := range client.Retry().Breakers() {
		if b.State != retry.StateClosed || b.ConsecutiveFailures != 0 {
			t.Fatalf("breaker %s is %v with %d failures after bad tokens", b.Name, b.State, b.ConsecutiveFailures)
		}
	}
	if _, err := orders.Get(ctx, pk("c1"), "c1-0000"); err != nil {
		t.Fatalf("read after bad tokens: %v", err)
	}
	if _, err := orders.Upsert(ctx, Order{ID: "after", CustomerID: "c1"}); err != nil {
		t.Fatalf("write after bad tokens: %v", err)
	}
	p, err := orders.Page(ctx, q, 2, "")
	if err != nil || p.Next == "" {
		t.Fatalf("first page = %+v, %v", p, err)
	}
	if p2, err := orders.Page(ctx, q, 2, p.Next); err != nil || len(p2.Items) == 0 {
		t.Fatalf("second page = %+v, %v", p2, err)
	}
}
