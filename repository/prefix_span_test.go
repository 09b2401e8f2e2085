package repository_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/epk"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// Member is keyed by tenant and user (a hierarchical key).
type Member struct {
	repository.Meta
	ID     string `json:"id"`
	Tenant string `json:"tenant"`
	User   string `json:"user"`
	N      int    `json:"n"`
}

// TestPrefixQueryAcrossRanges: Partition(partitionkey.Of("big")) on a /tenant,/user container whose tenant
// "big" spans two physical partitions: ORDER BY, Top, Count and paging with tokens run through the
// cross-partition engine over the ranges holding the prefix (the gateway would answer 400/1004).
func TestPrefixQueryAcrossRanges(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/tenant", "/user")
	r, err := repository.New(e.container, repository.Options[Member]{
		Type: "member", PartitionKeyPaths: []string{"/tenant", "/user"},
		Key: func(m Member) (string, azcosmos.PartitionKey) {
			return m.ID, azcosmos.NewPartitionKeyString(m.Tenant).AppendString(m.User)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tenant := range []string{"big", "small"} {
		for i := range 40 {
			u := fmt.Sprintf("u%02d", i)
			if _, err := r.Upsert(ctx, Member{ID: "m" + u, Tenant: tenant, User: u, N: i}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := e.srv.SplitRangeAt("db", "c", epk.Hash([]any{"big", "u20"}, "MultiHash", 2)); err != nil {
		t.Fatal(err)
	}
	big := repository.NewQuery().Partition(partitionkey.Of("big"))
	n, err := r.Count(ctx, big)
	if err != nil || n != 40 {
		t.Fatalf("Count over a prefix spanning ranges: %d, %v", n, err)
	}
	var got []int
	token := ""
	for {
		p, err := r.Page(ctx, big.OrderBy("n", repository.Desc).Top(25), 7, token)
		if err != nil {
			t.Fatalf("ORDER BY over a prefix spanning ranges: %v", err)
		}
		for _, m := range p.Items {
			got = append(got, m.N)
		}
		if p.Next == "" {
			break
		}
		token = p.Next
	}
	var want []int
	for i := 39; i >= 15; i-- {
		want = append(want, i)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ORDER BY n DESC TOP 25: %v, want %v", got, want)
	}
}
