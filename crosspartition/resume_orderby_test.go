package crosspartition

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// orderRow is a row of the ORDER BY queries below.
type orderRow struct {
	ID string  `json:"id"`
	K  float64 `json:"k"`
	S  string  `json:"s"`
}

func orderDoc(id string, k int, s string) map[string]any {
	return map[string]any{"id": id, "pk": "p" + id, "k": k, "s": s}
}

// orderProps is a container with the composite index ORDER BY c.s, c.k DESC needs.
func orderProps() *azcosmos.ContainerProperties {
	return &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2},
		IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
			CompositeIndexes: [][]azcosmos.CompositeIndex{
				{{Path: "/s", Order: azcosmos.CompositeIndexAscending}, {Path: "/k", Order: azcosmos.CompositeIndexDescending}},
			}},
	}
}

func deleteDoc(t *testing.T, c *azcosmos.ContainerClient, id string) {
	t.Helper()
	if _, err := c.DeleteItem(context.Background(), azcosmos.NewPartitionKeyString("p"+id), id, nil); err != nil {
		t.Fatal(err)
	}
}

// checkResumed checks a read of query: every id of throughout once, no id twice, in order.
func checkResumed(t *testing.T, name string, got []json.RawMessage, throughout map[string]bool, less func(a, b orderRow) int) {
	t.Helper()
	seen := map[string]int{}
	var rows []orderRow
	for _, raw := range got {
		var r orderRow
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		seen[r.ID]++
		rows = append(rows, r)
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("%s: %s returned %d times", name, id, n)
		}
	}
	for id := range throughout {
		if seen[id] == 0 {
			t.Errorf("%s: %s existed throughout the read and never came back", name, id)
		}
	}
	for i := 1; i < len(rows); i++ {
		if less(rows[i-1], rows[i]) > 0 {
			t.Errorf("%s: out of order at %d: %+v before %+v", name, i, rows[i-1], rows[i])
		}
	}
}

// TestOrderByResumeAcrossWrites is the repro: 4 physical partitions, 40 rows, ORDER BY
// id, 6 rows per page, each page from the previous page's token in a new pager. Deleting the
// rows already read between pages used to make 8 rows that existed throughout never come back;
// inserting a row next to each row read returned 4 unchanged rows twice and 4 out of order.
func TestOrderByResumeAcrossWrites(t *testing.T) {
	const q = "SELECT c.id, c.k FROM c ORDER BY c.id"
	byID := func(a, b orderRow) int { return compareValues(a.ID, b.ID) }
	for _, mode := range []string{"delete read rows", "insert next to read rows"} {
		_, c := newContainer(t, 4, nil)
		throughout := map[string]bool{}
		for i := range 40 {
			id := fmt.Sprintf("r%02d", i)
			put(t, c, orderDoc(id, i, ""))
			throughout[id] = true
		}
		x := mustNew(t, c)
		var read []string
		got, err := readAllObserved(t, x, q, 6, func(page []json.RawMessage) {
			for _, raw := range page {
				var r orderRow
				_ = json.Unmarshal(raw, &r)
				read = append(read, r.ID)
				if mode == "delete read rows" {
					deleteDoc(t, c, r.ID)
					delete(throughout, r.ID) // deleted during the read, after it was returned
				} else {
					put(t, c, orderDoc(r.ID+"a", 0, ""))
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		checkResumed(t, mode, got, throughout, byID)
		if mode == "delete read rows" && len(got) != 40 {
			t.Errorf("%s: %d rows, want 40", mode, len(got))
		}
	}
}

// readAllObserved is readAll whose between-pages hook sees the page just read.
func readAllObserved(t *testing.T, x *Container, query string, size int32, between func(page []json.RawMessage)) ([]json.RawMessage, error) {
	t.Helper()
	var out []json.RawMessage
	var tok *string
	for range 10000 {
		p := x.NewQueryItemsPager(query, &azcosmos.QueryOptions{PageSizeHint: size, ContinuationToken: tok})
		resp, err := p.NextPage(context.Background())
		if err != nil {
			return out, err
		}
		var page []json.RawMessage
		for _, it := range resp.Items {
			page = append(page, json.RawMessage(it))
		}
		out = append(out, page...)
		if resp.ContinuationToken == nil {
			return out, nil
		}
		tok = resp.ContinuationToken
		between(page)
	}
	t.Fatal("too many pages")
	return nil, nil
}

// TestOrderByResumeProperty: paged cross-partition ORDER BY reads, each page from the previous
// token in a new pager, with random inserts and deletes between pages, on 1, 4 and 8 physical
// partitions and orders with and without ties (and DESC, whose ties the service orders by _rid),
// with splits of random ranges between some pages:
// every row that existed throughout comes back exactly once, no row twice, all in order.
func TestOrderByResumeProperty(t *testing.T) {
	t.Parallel() // independent: its own servers
	queries := []struct {
		q    string
		less func(a, b orderRow) int
	}{
		{"SELECT c.id, c.k FROM c ORDER BY c.id", func(a, b orderRow) int { return compareValues(a.ID, b.ID) }},
		{"SELECT c.id, c.k FROM c ORDER BY c.k", func(a, b orderRow) int { return compareValues(a.K, b.K) }},
		{"SELECT c.id, c.k FROM c ORDER BY c.k DESC", func(a, b orderRow) int { return compareValues(b.K, a.K) }},
		{"SELECT c.id, c.k, c.s FROM c ORDER BY c.s, c.k DESC", func(a, b orderRow) int {
			if c := compareValues(a.S, b.S); c != 0 {
				return c
			}
			return compareValues(b.K, a.K)
		}},
	}
	splits := 0
	for _, parts := range []int{1, 4, 8} {
		for qi, qc := range queries {
			for seed := range uint64(3) {
				rng := rand.New(rand.NewPCG(seed, uint64(parts*10+qi)))
				srv, c := newContainer(t, parts, orderProps())
				live := map[string]bool{}
				throughout := map[string]bool{}
				next := 0
				add := func() string {
					id := fmt.Sprintf("r%03d", next)
					next++
					put(t, c, orderDoc(id, rng.IntN(6), fmt.Sprint("s", rng.IntN(3))))
					live[id] = true
					return id
				}
				for range 40 {
					throughout[add()] = true
				}
				x := mustNew(t, c)
				size := int32(3 + rng.IntN(6))
				got, err := readAll(t, x, qc.q, nil, size, func(int) {
					if rng.IntN(5) == 0 {
						// A split between pages: the last row's range resumes on its children.
						all, err := x.routingMap(context.Background())
						if err != nil {
							t.Fatal(err)
						}
						if srv.SplitRange("db", "c", all[rng.IntN(len(all))].ID) == nil {
							splits++
						}
					}
					for range rng.IntN(5) {
						if rng.IntN(2) == 0 {
							add()
							continue
						}
						ids := make([]string, 0, len(live))
						for id := range live {
							ids = append(ids, id)
						}
						slices.Sort(ids)
						if len(ids) == 0 {
							continue
						}
						id := ids[rng.IntN(len(ids))]
						deleteDoc(t, c, id)
						delete(live, id)
						delete(throughout, id)
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				checkResumed(t, fmt.Sprintf("%d partitions, %q, seed %d, page %d", parts, qc.q, seed, size), got, throughout, qc.less)
			}
		}
	}
	if splits == 0 {
		t.Fatal("no range split between pages")
	}
	t.Logf("%d splits between pages", splits)
}
