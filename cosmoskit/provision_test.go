package cosmoskit_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

var quiet = slog.New(slog.DiscardHandler)

// newKit starts a cosmostest server and returns a cosmoskit Client for it, using cosmoskit's own
// loopback TLS handling (no ClientOptions from the server).
func newKit(t *testing.T, opts ...cosmostest.Option) (*cosmostest.Server, *cosmoskit.Client) {
	t.Helper()
	s := cosmostest.NewServer(t, opts...)
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return s, c
}

func TestEnsureContainerCreatesDatabaseThenContainer(t *testing.T) {
	ctx := context.Background()
	s, c := newKit(t)
	spec := cosmoskit.ContainerSpec{ID: "orders", PartitionKeyPaths: []string{"/customerId"}}

	ccRes, err := c.EnsureContainer(ctx, "shop", spec)
	if err != nil {
		t.Fatal(err)
	}
	cc := ccRes.Container
	if n := s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpCreateDatabase}); n != 1 {
		t.Errorf("database creates = %d, want 1", n)
	}
	if n := s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpCreateContainer}); n != 1 {
		t.Errorf("container creates = %d, want 1", n)
	}

	// The container works: write and point-read an item through the returned handle.
	pk := azcosmos.NewPartitionKeyString("c1")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"o1","customerId":"c1","type":"order"}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.ReadItem(ctx, pk, "o1", nil); err != nil {
		t.Fatal(err)
	}

	// Partition key metadata as stored: Kind and Version always set.
	resp, err := cc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	pkd := resp.ContainerProperties.PartitionKeyDefinition
	if pkd.Kind != azcosmos.PartitionKeyKindHash || pkd.Version != 2 || !slices.Equal(pkd.Paths, []string{"/customerId"}) {
		t.Errorf("stored partition key = %+v, want Hash v2 [/customerId]", pkd)
	}

	// A second call is a no-op that returns the existing container (409 is not an error).
	againRes, err := c.EnsureContainer(ctx, "shop", spec)
	if err != nil {
		t.Fatalf("second EnsureContainer: %v", err)
	}
	again := againRes.Container
	if _, err := again.ReadItem(ctx, pk, "o1", nil); err != nil {
		t.Fatalf("existing container lost its item: %v", err)
	}
}

func TestEnsureContainerHierarchicalKey(t *testing.T) {
	ctx := context.Background()
	_, c := newKit(t)
	ccRes, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "sessions", PartitionKeyPaths: []string{"/tenantId", "/userId", "/sessionId"}})
	if err != nil {
		t.Fatal(err)
	}
	cc := ccRes.Container
	resp, err := cc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	pkd := resp.ContainerProperties.PartitionKeyDefinition
	if pkd.Kind != azcosmos.PartitionKeyKindMultiHash || pkd.Version != 2 || len(pkd.Paths) != 3 {
		t.Errorf("stored partition key = %+v, want MultiHash v2 with 3 paths", pkd)
	}
	pk := azcosmos.NewPartitionKeyString("t1").AppendString("u1").AppendString("s1")
	if _, err := cc.UpsertItem(ctx, pk, []byte(`{"id":"x","tenantId":"t1","userId":"u1","sessionId":"s1"}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.ReadItem(ctx, pk, "x", nil); err != nil {
		t.Fatal(err)
	}
}

func TestEnsureContainerRefusesAnExistingContainerWithAnotherPartitionKey(t *testing.T) {
	ctx := context.Background()
	_, c := newKit(t)
	if _, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "items", PartitionKeyPaths: []string{"/a"}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "items", PartitionKeyPaths: []string{"/b"}})
	if !errors.Is(err, cosmoserr.ErrContainerMismatch) {
		t.Fatalf("EnsureContainer = %v, want ErrContainerMismatch", err)
	}
}

func TestEnsureContainerConflictResolution(t *testing.T) {
	ctx := context.Background()
	_, c := newKit(t)
	spec := cosmoskit.ContainerSpec{ID: "items", PartitionKeyPaths: []string{"/pk"}, ConflictResolution: cosmoskit.ConflictResolutionSpec{Path: "/version"}}
	ccRes, err := c.EnsureContainer(ctx, "db", spec)
	if err != nil {
		t.Fatal(err)
	}
	cc := ccRes.Container
	resp, err := cc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := azcosmos.ConflictResolutionPolicy{Mode: azcosmos.ConflictResolutionModeLastWriteWins, ResolutionPath: "/version"}
	if got := resp.ContainerProperties.ConflictResolutionPolicy; got == nil || *got != want {
		t.Fatalf("read back %+v, want %+v", got, want)
	}
	if _, err := c.EnsureContainer(ctx, "db", spec); err != nil {
		t.Fatalf("same spec again: %v", err)
	}
	undeclared := spec
	undeclared.ConflictResolution = cosmoskit.ConflictResolutionSpec{}
	if _, err := c.EnsureContainer(ctx, "db", undeclared); err != nil {
		t.Fatalf("a spec that does not declare a policy must accept the existing /version one: %v", err)
	}
	spec.ConflictResolution = cosmoskit.ConflictResolutionSpec{Mode: azcosmos.ConflictResolutionModeCustom}
	if _, err := c.EnsureContainer(ctx, "db", spec); !errors.Is(err, cosmoserr.ErrContainerMismatch) || !strings.Contains(err.Error(), "ConflictResolution (want ") {
		t.Fatalf("another policy: %v, want ErrContainerMismatch naming the policy", err)
	}
	custom := cosmoskit.ContainerSpec{ID: "custom", PartitionKeyPaths: []string{"/pk"}, ConflictResolution: cosmoskit.ConflictResolutionSpec{Mode: azcosmos.ConflictResolutionModeCustom}}
	if _, err := c.EnsureContainer(ctx, "db", custom); err != nil {
		t.Fatal(err)
	}
	if _, err := c.EnsureContainer(ctx, "db", custom); err != nil {
		t.Fatalf("custom spec again: %v", err)
	}
}

func TestEnsureContainerInvalidSpecSendsNothing(t *testing.T) {
	ctx := context.Background()
	s, c := newKit(t)
	for name, spec := range map[string]cosmoskit.ContainerSpec{
		"four key paths": {ID: "c", PartitionKeyPaths: []string{"/a", "/b", "/c", "/d"}},
		"empty path":     {ID: "c", PartitionKeyPaths: []string{""}},
		"no slash":       {ID: "c", PartitionKeyPaths: []string{"tenantId"}},
		"bad dims":       {ID: "c", PartitionKeyPaths: []string{"/pk"}, Vectors: []cosmoskit.VectorSpec{{Path: "/v", Dimensions: 0}}},
		"nested lww":     {ID: "c", PartitionKeyPaths: []string{"/pk"}, ConflictResolution: cosmoskit.ConflictResolutionSpec{Path: "/a/b"}},
	} {
		t.Run(name, func(t *testing.T) {
			s.ResetRequests()
			_, err := c.EnsureContainer(ctx, "db", spec)
			if !errors.Is(err, cosmoserr.ErrInvalidSpec) {
				t.Fatalf("EnsureContainer = %v, want ErrInvalidSpec", err)
			}
			if n := s.Requests(cosmostest.RequestFilter{}); n != 0 {
				t.Errorf("%d requests sent for an invalid spec", n)
			}
		})
	}
}

func TestEnsureContainerPolicies(t *testing.T) {
	ctx := context.Background()
	_, c := newKit(t)
	spec := cosmoskit.ContainerSpec{
		ID:                     "docs",
		PartitionKeyPaths:      []string{"/tenantId"},
		SortPaths:              []string{"/createdAt"},
		Vectors:                []cosmoskit.VectorSpec{{Path: "/embedding", Dimensions: 8}},
		UniqueKeys:             [][]string{{"/email"}},
		EnableItemTTL:          true,
		AutoscaleMaxThroughput: 4000,
	}
	ccRes, err := c.EnsureContainer(ctx, "db", spec)
	if err != nil {
		t.Fatal(err)
	}
	cc := ccRes.Container
	resp, err := cc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := resp.ContainerProperties
	if p.IndexingPolicy == nil || !slices.ContainsFunc(p.IndexingPolicy.ExcludedPaths, func(e azcosmos.ExcludedPath) bool { return e.Path == "/embedding/*" }) {
		t.Errorf("stored indexing policy %+v does not exclude /embedding/*", p.IndexingPolicy)
	}
	if p.VectorEmbeddingPolicy == nil || len(p.VectorEmbeddingPolicy.VectorEmbeddings) != 1 || p.VectorEmbeddingPolicy.VectorEmbeddings[0].Dimensions != 8 {
		t.Errorf("stored vector policy = %+v", p.VectorEmbeddingPolicy)
	}
	if p.DefaultTimeToLive == nil || *p.DefaultTimeToLive != -1 {
		t.Errorf("DefaultTimeToLive = %v, want -1", p.DefaultTimeToLive)
	}
	tp, err := cc.ReadThroughput(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if max, ok := tp.ThroughputProperties.AutoscaleMaxThroughput(); !ok || max != 4000 {
		t.Errorf("autoscale max = %d, %v; want 4000", max, ok)
	}
}

func TestEnsureDatabaseSharedThroughput(t *testing.T) {
	ctx := context.Background()
	_, c := newKit(t)
	db, err := c.EnsureDatabase(ctx, "shared", cosmoskit.DatabaseOptions{ManualThroughput: 400})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := db.ReadThroughput(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ru, ok := tp.ThroughputProperties.ManualThroughput(); !ok || ru != 400 {
		t.Errorf("manual throughput = %d, %v; want 400", ru, ok)
	}
	if _, err := c.EnsureDatabase(ctx, "shared", cosmoskit.DatabaseOptions{}); err != nil {
		t.Fatalf("second EnsureDatabase: %v", err)
	}
	if _, err := c.EnsureDatabase(ctx, "x", cosmoskit.DatabaseOptions{ManualThroughput: 450}); !errors.Is(err, cosmoserr.ErrInvalidSpec) {
		t.Errorf("450 RU/s: %v, want ErrInvalidSpec", err)
	}
}

func TestDisableEndpointDiscoveryPinsTheHost(t *testing.T) {
	// The server advertises an address nobody listens on, as an emulator behind port mapping does.
	s := cosmostest.NewServer(t, cosmostest.WithAdvertisedHost("127.0.0.1:1"))
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), DisableEndpointDiscovery: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.EnsureContainer(context.Background(), "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}}); err != nil {
		t.Fatal(err)
	}

	_, err = cosmoskit.New(cosmoskit.Config{Endpoint: "https://myaccount.documents.azure.com/", Key: "a2V5", DisableEndpointDiscovery: true, Logger: quiet})
	if !errors.Is(err, cosmoserr.ErrInvalidConfig) {
		t.Fatalf("DisableEndpointDiscovery on a real account: %v, want ErrInvalidConfig", err)
	}
}

func TestEnsureContainerRefusesAnExistingContainerWithOtherVectors(t *testing.T) {
	ctx := context.Background()
	_, c := newKit(t)
	spec := cosmoskit.ContainerSpec{ID: "v", PartitionKeyPaths: []string{"/pk"}, Vectors: []cosmoskit.VectorSpec{{Path: "/embedding", Dimensions: 8}}}
	if _, err := c.EnsureContainer(ctx, "db", spec); err != nil {
		t.Fatal(err)
	}
	if _, err := c.EnsureContainer(ctx, "db", spec); err != nil {
		t.Fatalf("same spec again: %v", err)
	}
	spec.Vectors[0].Dimensions = 16
	if _, err := c.EnsureContainer(ctx, "db", spec); !errors.Is(err, cosmoserr.ErrContainerMismatch) {
		t.Fatalf("other dimensions: %v, want ErrContainerMismatch", err)
	}
}

// TestEnsureContainerErrorNamesEachThingOnce: a failed create names the operation, the database and
// the container (whose id travels in the body) once, with the status and activity id.
func TestEnsureContainerErrorNamesEachThingOnce(t *testing.T) {
	ctx := context.Background()
	s, c := newKit(t)
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpCreateContainer, Status: 400, Times: 1})
	_, err := c.EnsureContainer(ctx, "shop", cosmoskit.ContainerSpec{ID: "orders", PartitionKeyPaths: []string{"/customerId"}})
	var e *cosmoserr.Error
	if !errors.As(err, &e) || e.ActivityID == "" {
		t.Fatalf("EnsureContainer = %v", err)
	}
	want := "cosmoskit: create_container shop/orders: 400 Bad Request (sub-status 0, activity id " + e.ActivityID + ", 0 RU): " + e.Message
	if err.Error() != want {
		t.Errorf("Error()\n got %s\nwant %s", err.Error(), want)
	}
	if !errors.Is(err, cosmoserr.ErrBadRequest) {
		t.Error("not ErrBadRequest")
	}
}
