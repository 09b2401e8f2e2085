package repository_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestSessionTokensOnAPlainClient: a repository over a plain azcosmos client (no cosmoskit) with
// consistency.Policy in its per-call policies exposes the token of a write (Capture), and a
// second instance's repository sends it (WithSessionToken) with a relaxed level where asked.
func TestSessionTokensOnAPlainClient(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithHTTP())
	var mu sync.Mutex
	var tokens, levels []string
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Match: func(r *http.Request) bool {
		mu.Lock()
		tokens, levels = append(tokens, r.Header.Get("X-Ms-Session-Token")), append(levels, r.Header.Get("X-Ms-Consistency-Level"))
		mu.Unlock()
		return false
	}})
	created := false
	instance := func() *repository.Repository[Order] {
		co := s.ClientOptions()
		session, err := consistency.NewPolicy(consistency.Options{})
		if err != nil {
			t.Fatal(err)
		}
		co.PerCallPolicies = append(co.PerCallPolicies, session)
		client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), co)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(client.Close)
		var cc *azcosmos.ContainerClient
		if !created {
			cc, created = createContainer(t, client, "c"), true
		} else if cc, err = client.NewContainer("db", "c"); err != nil {
			t.Fatal(err)
		}
		r, err := repository.New(cc, repository.Options[Order]{Type: "order", Key: orderKey})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one, two := instance(), instance()

	ctx, session := consistency.Capture(context.Background())
	if _, err := one.Create(ctx, Order{ID: "o1", CustomerID: "c1", Total: 3}); err != nil {
		t.Fatal(err)
	}
	token := session.Token("db", "c")
	if token == "" {
		t.Fatal("Capture recorded no token for the write")
	}

	rctx, err := consistency.WithSessionToken(context.Background(), "db", "c", token)
	if err != nil {
		t.Fatal(err)
	}
	if o, err := two.Get(rctx, partitionkey.Of("c1"), "o1"); err != nil || o.Total != 3 {
		t.Fatalf("Get = %+v, %v", o, err)
	}
	mu.Lock()
	last := tokens[len(tokens)-1]
	mu.Unlock()
	if last != token {
		t.Errorf("the second instance sent %q, want the handed %q", last, token)
	}

	ectx, err := consistency.WithLevel(context.Background(), azcosmos.ConsistencyLevelEventual)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := two.Get(ectx, partitionkey.Of("c1"), "o1"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if levels[len(levels)-1] != "Eventual" || tokens[len(tokens)-1] != "" {
		t.Errorf("an Eventual Get sent level %q and token %q", levels[len(levels)-1], tokens[len(tokens)-1])
	}
}
