package cosmoskit_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// userAgents records the User-Agent of every attempt.
type userAgents struct {
	mu  sync.Mutex
	all []string
}

func (u *userAgents) Do(req *policy.Request) (*http.Response, error) {
	u.mu.Lock()
	u.all = append(u.all, req.Raw().Header.Get("User-Agent"))
	u.mu.Unlock()
	return req.Next()
}

func TestApplicationNameAndPolicySeam(t *testing.T) {
	for _, tc := range []struct{ name, want string }{{"", "cosmoskit "}, {"orders-api", "orders-api "}} {
		s := cosmostest.NewServer(t)
		ua := &userAgents{}
		c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), ApplicationName: tc.name, PerRetryPolicies: []policy.Policy{ua}, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.EnsureDatabase(context.Background(), "db", cosmoskit.DatabaseOptions{}); err != nil {
			t.Fatal(err)
		}
		c.Close()
		if len(ua.all) == 0 {
			t.Fatal("the per-retry policy saw no requests")
		}
		for _, got := range ua.all {
			if !strings.HasPrefix(got, tc.want) || !strings.Contains(got, "azcosmos") {
				t.Errorf("ApplicationName %q: User-Agent %q, want it to start with %q", tc.name, got, tc.want)
			}
		}
	}
}

func TestPreferredRegionsRouteReadsInOrder(t *testing.T) {
	ctx := context.Background()
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"))
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), PreferredRegions: []string{"East US", "West US"}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ccRes, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}})
	if err != nil {
		t.Fatal(err)
	}
	cc := ccRes.Container
	pk := azcosmos.NewPartitionKeyString("a")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"1","pk":"a"}`), nil); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	for range 3 {
		if _, err := cc.ReadItem(ctx, pk, "1", nil); err != nil {
			t.Fatal(err)
		}
	}
	east := s.Requests(cosmostest.RequestFilter{Region: "East US", Operation: cosmostest.OpReadItem})
	west := s.Requests(cosmostest.RequestFilter{Region: "West US", Operation: cosmostest.OpReadItem})
	if east != 3 || west != 0 {
		t.Errorf("item reads: East US %d, West US %d; want 3 and 0 (the first preferred region)", east, west)
	}
}

func TestNewWithServerClientOptions(t *testing.T) {
	s := cosmostest.NewServer(t)
	c, err := cosmoskit.New(cosmoskit.Config{ConnectionString: s.ConnectionString(), ClientOptions: s.ClientOptions(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.EnsureContainer(context.Background(), "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}}); err != nil {
		t.Fatal(err)
	}
}

func TestNewFromClient(t *testing.T) {
	ctx := context.Background()
	s := cosmostest.NewServer(t)
	own, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()

	c := cosmoskit.NewFromClient(own)
	if c.Cosmos() != own || c.Endpoint() != s.Endpoint() {
		t.Fatalf("Cosmos() = %p, Endpoint() = %q", c.Cosmos(), c.Endpoint())
	}
	ccRes, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}})
	if err != nil {
		t.Fatal(err)
	}
	cc := ccRes.Container
	again, err := c.Container("db", "c")
	if err != nil || again != cc {
		t.Fatalf("Container: %p, %v; want the cached handle %p", again, err, cc)
	}
	c.Close()
	if _, err := c.Container("db", "c"); !errors.Is(err, cosmoserr.ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
	// The caller's client is still open.
	if _, err := own.NewDatabase("db"); err != nil {
		t.Fatal(err)
	}
	db, _ := own.NewDatabase("db")
	if _, err := db.Read(ctx, nil); err != nil {
		t.Fatalf("the wrapped client was closed by Client.Close: %v", err)
	}

	if _, err := cosmoskit.NewFromClient(nil).Database("db"); !errors.Is(err, cosmoserr.ErrClosed) {
		t.Fatalf("NewFromClient(nil): %v, want ErrClosed", err)
	}
}
