package cosmoskit_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestNewIndependent: NewIndependent builds a client outside the registry with New's policies:
// it may differ from the open client of the account without a conflict, has its own azcosmos
// client and session container, is never shared by a later New, closes alone, and hands its own
// logger to what is built on its containers. A bad config is refused as by New.
func TestNewIndependent(t *testing.T) {
	ctx := context.Background()
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"))
	base := cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: quiet, PreferredRegions: []string{"West US", "East US"}}
	shared, err := cosmoskit.New(base)
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()

	otherLog := slog.New(slog.DiscardHandler.WithAttrs([]slog.Attr{slog.String("instance", "b")}))
	cfgB := base
	cfgB.PreferredRegions = []string{"East US", "West US"}
	cfgB.Logger = otherLog
	if _, err := cosmoskit.New(cfgB); !errors.Is(err, cosmoserr.ErrConfigConflict) {
		t.Fatalf("New with other regions = %v, want the conflict NewIndependent avoids", err)
	}
	b, err := cosmoskit.NewIndependent(cfgB)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := cosmoskit.NewIndependent(cfgB)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if b.Cosmos() == shared.Cosmos() || b.Cosmos() == b2.Cosmos() || b.Session() == nil || b.Session() == shared.Session() ||
		b.Session() == b2.Session() || b.Retry() == nil || b.Diagnostics() == nil {
		t.Fatal("an independent client shares its azcosmos client or policies, or lacks New's policies")
	}
	if got := b.PreferredRegions(); len(got) != 2 || got[0] != "East US" {
		t.Errorf("PreferredRegions = %q", got)
	}
	// A later New of the base config shares the registry's client, not an independent one.
	again, err := cosmoskit.New(base)
	if err != nil {
		t.Fatal(err)
	}
	if again.Cosmos() != shared.Cosmos() {
		t.Error("New did not share the registry's client")
	}
	again.Close()

	if _, err := b.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}}); err != nil {
		t.Fatal(err)
	}
	type doc struct {
		ID string `json:"id"`
		PK string `json:"pk"`
	}
	repo, err := repository.NewFromClient(b, "db", "c", repository.Options[doc]{Type: "doc", Key: func(d doc) (string, azcosmos.PartitionKey) {
		return d.ID, azcosmos.NewPartitionKeyString(d.PK)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if repo.Options().Logger != otherLog || repo.Options().Diagnostics != b.Diagnostics() {
		t.Error("a repository made from an independent client does not take its logger and diagnostics")
	}
	if _, err := repo.Upsert(ctx, doc{ID: "1", PK: "a"}); err != nil {
		t.Fatal(err)
	}

	b.Close()
	if _, err := b.Container("db", "c"); !errors.Is(err, cosmoserr.ErrClosed) {
		t.Errorf("closed independent client: %v", err)
	}
	// The registry's client and the other independent one still work.
	for _, c := range []*cosmoskit.Client{shared, b2} {
		sc, err := c.Container("db", "c")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sc.ReadItem(ctx, azcosmos.NewPartitionKeyString("a"), "1", nil); err != nil {
			t.Fatalf("read after closing the independent client: %v", err)
		}
	}

	bad := base
	bad.PreferredRegions = []string{"West US", "west us"}
	if _, err := cosmoskit.NewIndependent(bad); !errors.Is(err, cosmoserr.ErrInvalidConfig) {
		t.Errorf("NewIndependent(bad) = %v, want ErrInvalidConfig", err)
	}
}
