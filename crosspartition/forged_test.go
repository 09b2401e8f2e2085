package crosspartition

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// slices returns n ranges cutting the hash space [0, 2^32) (as 8-digit EPK prefixes) under ids
// the container does not have.
func hashSlices(n int, start int) []tokenRange {
	out := make([]tokenRange, n)
	bound := func(i int) string {
		if i == n {
			return "FF"
		}
		if i == 0 {
			return ""
		}
		return fmt.Sprintf("%08X", uint64(i)*(1<<32)/uint64(n))
	}
	for i := range out {
		out[i] = tokenRange{ID: fmt.Sprint(start + i), Min: bound(i), Max: bound(i + 1)}
	}
	return out
}

// TestForgedTokenWorkBounded: an unkeyed token can be decoded and re-tagged by anyone. A token
// whose ranges are replaced by 2,000 slices of the hash space under unknown ids (it used to cost
// 265-771 requests for one page) is refused with nothing sent; one whose ranges are the
// container's own bounds under unknown ids costs at most one request per physical partition per
// page; one with a range outside the container or two positions in one partition is refused.
func TestForgedTokenWorkBounded(t *testing.T) {
	const partitions = 4
	s, c := newContainer(t, partitions, nil)
	put(t, c, docs(40)...)
	x := mustNew(t, c)
	// (An ORDER BY token names no ranges at all: tokencost_test.go forges its position.)
	for _, q := range []string{"SELECT c.id FROM c", "SELECT c.id FROM c WHERE c.n >= 0"} {
		tok := firstToken(t, x, q, nil)
		all, err := x.routingMap(context.Background())
		if err != nil || len(all) != partitions {
			t.Fatalf("routing map %v, %v", all, err)
		}
		refused := map[string]string{
			"2,000 slices": forge(t, x, tok, func(tk *token) { tk.Ranges = hashSlices(2000, 1000) }),
			"8 slices":     forge(t, x, tok, func(tk *token) { tk.Ranges = hashSlices(8, 1000) }),
			"two slices in one partition": forge(t, x, tok, func(tk *token) {
				r := all[0]
				mid := fmt.Sprintf("%08X", 1)
				if r.Min != "" {
					mid = r.Min + "00"
				}
				tk.Ranges = []tokenRange{{ID: "900", Min: r.Min, Max: mid}, {ID: "901", Min: mid, Max: r.Max}}
			}),
		}
		for name, forged := range refused {
			s.ResetRequests()
			p := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{ContinuationToken: &forged})
			_, err := p.NextPage(context.Background())
			var ve *cosmoserr.ValidationError
			if !errors.Is(err, cosmoserr.ErrInvalidToken) || !errors.As(err, &ve) {
				t.Errorf("%s: %v, want ErrInvalidToken", name, err)
			}
			if n := s.Requests(cosmostest.RequestFilter{}); n != 0 {
				t.Errorf("%s: %d requests sent", name, n)
			}
		}
		// The container's own ranges under unknown ids: resolved onto the current ranges.
		own := forge(t, x, tok, func(tk *token) {
			tk.Ranges = make([]tokenRange, len(all))
			for i, r := range all {
				tk.Ranges[i] = tokenRange{ID: fmt.Sprint(5000 + i), Min: r.Min, Max: r.Max}
			}
		})
		s.ResetRequests()
		p := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{ContinuationToken: &own, PageSizeHint: 3})
		if _, err := p.NextPage(context.Background()); err != nil {
			t.Fatalf("own ranges under unknown ids: %v", err)
		}
		if n := s.Requests(cosmostest.RequestFilter{ResourceType: cosmostest.ResourceDocument}); n > partitions {
			t.Fatalf("%s: one page of a forged token cost %d document requests, want at most %d (one per physical partition)", q, n, partitions)
		}
	}
}

// TestTokenBoundToDatabaseAndKey: a token of db/c is refused on otherdb/c (the binding used to
// hash only the container id), and a keyed token on another key or unkeyed.
func TestTokenBoundToDatabaseAndKey(t *testing.T) {
	s, c := newContainer(t, 2, nil)
	put(t, c, docs(20)...)
	const q = "SELECT c.id FROM c"
	ctx := context.Background()
	client, err := azcosmos.NewClientWithKey(s.Endpoint(), mustCred(t, s.Key()), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "otherdb"}, nil); err != nil {
		t.Fatal(err)
	}
	odb, _ := client.NewDatabase("otherdb")
	if _, err := odb.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}}, nil); err != nil {
		t.Fatal(err)
	}
	same, _ := odb.NewContainer("c")
	k1, k2 := []byte("0123456789abcdef0123456789abcdef"), []byte("fedcba9876543210fedcba9876543210")
	tok := firstToken(t, mustNew(t, c), q, nil)
	keyed := firstToken(t, mustNewOpts(t, c, Options{TokenSigningKey: k1}), q, nil)
	s.ResetRequests()
	for name, tc := range map[string]struct {
		x   *Container
		tok string
	}{
		"otherdb/c":   {mustNew(t, same), tok},
		"another key": {mustNewOpts(t, c, Options{TokenSigningKey: k2}), keyed},
		"unkeyed":     {mustNew(t, c), keyed},
		"keyed":       {mustNewOpts(t, c, Options{TokenSigningKey: k1}), tok},
	} {
		p := tc.x.NewQueryItemsPager(q, &azcosmos.QueryOptions{ContinuationToken: &tc.tok})
		if _, err := p.NextPage(ctx); !errors.Is(err, cosmoserr.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", name, err)
		}
	}
	if n := s.Requests(cosmostest.RequestFilter{}); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	p := mustNewOpts(t, c, Options{TokenSigningKey: k1}).NewQueryItemsPager(q, &azcosmos.QueryOptions{ContinuationToken: &keyed})
	if _, err := p.NextPage(ctx); err != nil {
		t.Fatalf("the keyed token on another instance with the same key: %v", err)
	}
}

func mustCred(t *testing.T, key string) azcosmos.KeyCredential {
	t.Helper()
	cred, err := azcosmos.NewKeyCredential(key)
	if err != nil {
		t.Fatal(err)
	}
	return cred
}
