package vector_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// TestTextNeedsOnlyAFullTextPolicy: Text works on a container with a full-text policy and index
// and no vector embedding policy (Hybrid and Search then report ErrNoPolicy); a path outside the
// full-text policy (/title) and a path in the policy without a full-text index (/notes) are sent
// and served as the service serves them, with the same ranking.
func TestTextNeedsOnlyAFullTextPolicy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	policy := &azcosmos.FullTextPolicy{DefaultLanguage: "en-US", FullTextPaths: []azcosmos.FullTextPath{
		{Path: "/text", Language: "en-US"}, {Path: "/notes", Language: "en-US"}}}
	props := azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2},
		FullTextPolicy:         policy,
		IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, FullTextIndexes: []azcosmos.FullTextIndex{{Path: "/text"}}},
	}
	for _, n := range []int{1, 4} {
		c := newContainer(t, n, props)
		for i, text := range []string{"river stone", "stone stone cloud", "cloud", "ember river river river"} {
			b, _ := json.Marshal(map[string]any{"id": string(rune('a' + i)), "pk": string(rune('p' + i)), "text": text, "notes": text, "title": text})
			if _, err := c.UpsertItem(ctx, azcosmos.NewPartitionKeyString(string(rune('p'+i))), b, nil); err != nil {
				t.Fatal(err)
			}
		}
		s := newSearcher(t, c, vector.Options{})
		res, err := s.Text(ctx, vector.Query{K: 2}, vector.TextRank{Path: "/text", Terms: []string{"river"}})
		if err != nil {
			t.Fatalf("%d partitions: Text without a vector policy: %v", n, err)
		}
		ids := hitIDs(t, res.Hits)
		if len(ids) != 2 || ids[0] != "d" || ids[1] != "a" {
			t.Fatalf("%d partitions: Text hits %v, want [d a]", n, ids)
		}
		_, err = s.Hybrid(ctx, vector.Query{K: 2, Vector: []float32{1, 0}}, vector.TextRank{Path: "/text", Terms: []string{"river"}})
		if !errors.Is(err, cosmoserr.ErrNoPolicy) {
			t.Fatalf("Hybrid without a vector policy: %v, want ErrNoPolicy", err)
		}
		if _, err := s.Index(ctx); !errors.Is(err, cosmoserr.ErrNoPolicy) {
			t.Fatalf("Index without a vector policy: %v, want ErrNoPolicy", err)
		}
		for _, path := range []string{"/title", "/notes"} {
			res, err := s.Text(ctx, vector.Query{K: 2}, vector.TextRank{Path: path, Terms: []string{"river"}})
			if err != nil {
				t.Fatalf("%d partitions: Text on %s (no full-text index): %v", n, path, err)
			}
			if got := hitIDs(t, res.Hits); strings.Join(got, " ") != "d a" {
				t.Fatalf("%d partitions: Text on %s hits %v, want [d a]", n, path, got)
			}
		}
	}
}

func hitIDs(t *testing.T, hits []vector.Hit[json.RawMessage]) []string {
	t.Helper()
	var ids []string
	for _, h := range hits {
		var it struct{ ID string }
		if err := json.Unmarshal(h.Item, &it); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, it.ID)
	}
	return ids
}
