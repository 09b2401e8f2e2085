package crosspartition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/epk"
)

// bigTenant starts a server with n physical partitions and a /tenant,/user container in which
// tenant "big" (users u00..u59, n = the user number) spans two physical partitions: the range
// holding it is split at the EPK of (big, u30). Other tenants hold 20 documents each.
func bigTenant(t *testing.T, n int) (*cosmostest.Server, *azcosmos.ContainerClient) {
	t.Helper()
	props := &azcosmos.ContainerProperties{PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{
		Paths: []string{"/tenant", "/user"}, Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2}}
	s, c := newContainer(t, n, props)
	ctx := context.Background()
	add := func(tenant string, users int) {
		for i := range users {
			user := fmt.Sprintf("u%02d", i)
			doc, _ := json.Marshal(map[string]any{"id": "d" + user, "tenant": tenant, "user": user, "n": i, "g": i % 4})
			if _, err := c.UpsertItem(ctx, azcosmos.NewPartitionKeyString(tenant).AppendString(user), doc, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	add("big", 60)
	add("small", 20)
	add("other", 20)
	if err := s.SplitRangeAt("db", "c", epk.Hash([]any{"big", "u30"}, "MultiHash", 2)); err != nil {
		t.Fatal(err)
	}
	return s, c
}

// TestPrefixQueriesSpanningRanges: a hierarchical key prefix held by two physical partitions.
// Sent as a single-partition query (the prefix as partition key) a query that needs a merge gets
// the gateway's 400/1004; NewPrefixQueryItemsPager runs it over the ranges holding the prefix,
// only over the prefix's documents, with ORDER BY, TOP, aggregates, DISTINCT and GROUP BY right.
func TestPrefixQueriesSpanningRanges(t *testing.T) {
	for _, n := range []int{1, 4} {
		_, c := bigTenant(t, n)
		prefix := azcosmos.NewPartitionKeyString("big")
		ctx := context.Background()
		_, err := c.NewQueryItemsPager("SELECT * FROM c ORDER BY c.n DESC", prefix, nil).NextPage(ctx)
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != http.StatusBadRequest || re.RawResponse.Header.Get("x-ms-substatus") != "1004" {
			t.Fatalf("%d partitions: ORDER BY on a prefix spanning ranges through azcosmos: %v, want 400/1004", n, err)
		}
		x := mustNew(t, c)
		var all []int
		for i := range 60 {
			all = append(all, i)
		}
		desc := slices.Clone(all)
		slices.Reverse(desc)
		for _, tc := range []struct {
			query string
			want  string
		}{
			{"SELECT VALUE c.n FROM c ORDER BY c.n DESC", js(desc)},
			{"SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n", js(all[:5])},
			{"SELECT VALUE COUNT(1) FROM c", "[60]"},
			{"SELECT VALUE c.n FROM c WHERE c.n >= 25 AND c.n < 35 ORDER BY c.user", js(all[25:35])},
			{"SELECT DISTINCT VALUE c.g FROM c ORDER BY c.g", "[0,1,2,3]"},
			{"SELECT c.g, COUNT(1) AS k FROM c GROUP BY c.g", ""},
			{"SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 28 LIMIT 4", js(all[28:32])},
		} {
			for _, size := range []int32{3, 100} {
				rows, err := readOnePagerWithin(t, x, tc.query, prefix, size)
				if err != nil {
					t.Fatalf("%d partitions, %s: %v", n, tc.query, err)
				}
				got := "[" + string(joinRaw(rows)) + "]"
				if tc.want == "" {
					if len(rows) != 4 {
						t.Errorf("%d partitions, %s: %s, want 4 groups", n, tc.query, got)
					}
					continue
				}
				if got != tc.want {
					t.Errorf("%d partitions, %s, page size %d: %s, want %s", n, tc.query, size, got, tc.want)
				}
			}
		}
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func joinRaw(rows []json.RawMessage) []byte {
	var out []byte
	for i, r := range rows {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, r...)
	}
	return out
}

// readOnePagerWithin reads every page of a prefix query through one pager.
func readOnePagerWithin(t *testing.T, x *Container, query string, prefix azcosmos.PartitionKey, size int32) ([]json.RawMessage, error) {
	t.Helper()
	var out []json.RawMessage
	p := x.NewPrefixQueryItemsPager(query, prefix, &azcosmos.QueryOptions{PageSizeHint: size})
	for p.More() {
		resp, err := p.NextPage(context.Background())
		if err != nil {
			return out, err
		}
		for _, it := range resp.Items {
			out = append(out, json.RawMessage(it))
		}
	}
	return out, nil
}
