package crosspartition

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/epk"
)

// readPrefix reads every page of a prefix query, each page from the previous page's token
// through a new pager (one pager when resume is false), calling between after each page.
func readPrefix(t *testing.T, x *Container, query string, prefix azcosmos.PartitionKey, size int32, resume bool, between func(page int)) ([]json.RawMessage, error) {
	t.Helper()
	var out []json.RawMessage
	var tok *string
	p := x.NewPrefixQueryItemsPager(query, prefix, &azcosmos.QueryOptions{PageSizeHint: size})
	for page := 0; ; page++ {
		if resume {
			p = x.NewPrefixQueryItemsPager(query, prefix, &azcosmos.QueryOptions{PageSizeHint: size, ContinuationToken: tok})
		}
		resp, err := p.NextPage(context.Background())
		if err != nil {
			return out, err
		}
		for _, it := range resp.Items {
			out = append(out, json.RawMessage(it))
		}
		if resp.ContinuationToken == nil {
			return out, nil
		}
		tok = resp.ContinuationToken
		if between != nil {
			between(page)
		}
	}
}

// TestDifferentialExtras extends TestDifferential (1, 4 and 8 physical partitions, page sizes 1,
// 7 and the default, a split in the middle of a read) to ORDER BY c._ts, to prefix queries with
// ORDER BY, TOP and COUNT on a hierarchical key whose prefix spans physical partitions, and to
// MAKELIST/MAKESET (whose arrays are compared as multisets: their element order follows the ranges).
func TestDifferentialExtras(t *testing.T) {
	t.Parallel() // independent: its own servers
	sizes := []int32{1, 7, 0}

	// ORDER BY c._ts: 60 documents written over 6 seconds of the server's clock.
	for _, n := range []int{1, 4, 8} {
		for _, split := range []bool{false, true} {
			s, c := newContainer(t, n, nil)
			for i := range 60 {
				if i%10 == 0 {
					s.Advance(time.Second)
				}
				put(t, c, map[string]any{"id": fmt.Sprintf("d%02d", i), "pk": fmt.Sprint("p", i%13), "n": i})
			}
			x := mustNew(t, c)
			var allTS []int64
			for _, q := range []string{"SELECT c.id, c._ts FROM c ORDER BY c._ts", "SELECT c.id, c._ts FROM c ORDER BY c._ts DESC", "SELECT TOP 25 c.id, c._ts FROM c ORDER BY c._ts DESC"} {
				for _, size := range sizes {
					var between func(int)
					if split {
						between = func(page int) {
							if page == 0 {
								splitFirst(t, s, x)
							}
						}
					}
					rows, err := readAll(t, x, q, nil, size, between)
					if err != nil {
						t.Fatalf("%d partitions, %s, page size %d: %v", n, q, size, err)
					}
					want := 60
					if strings.Contains(q, "TOP 25") {
						want = 25
					}
					var ids []string
					var ts []int64
					for _, r := range rows {
						var v struct {
							ID string
							TS int64 `json:"_ts"`
						}
						_ = json.Unmarshal(r, &v)
						ids = append(ids, v.ID)
						ts = append(ts, v.TS)
					}
					desc := strings.HasSuffix(q, "DESC")
					sorted := slices.IsSortedFunc(ts, func(a, b int64) int {
						if desc {
							return int(b - a)
						}
						return int(a - b)
					})
					if len(ids) != want || len(slices.Compact(slices.Sorted(slices.Values(ids)))) != want || !sorted {
						t.Errorf("%d partitions (split %v), %s, page size %d: %d rows (%d distinct), _ts ordered %v", n, split, q, size, len(ids), len(slices.Compact(slices.Sorted(slices.Values(ids)))), sorted)
					}
					if want == 60 && !desc {
						allTS = ts // every document's _ts, ascending
					}
					// The 25 latest: TOP 25 DESC ends at the 25th-latest _ts of all 60 (the server's
					// clock follows the real one, so how the writes fall into seconds may vary).
					if want == 25 && len(allTS) == 60 && ts[len(ts)-1] != allTS[60-25] {
						t.Errorf("%d partitions, %s: TOP 25 DESC ends at _ts %d, want %d (the 25th latest)", n, q, ts[len(ts)-1], allTS[60-25])
					}
				}
			}
		}
	}

	// Prefix queries on a tenant held by two physical partitions; a split of the range holding
	// its upper half after the first page.
	for _, n := range []int{1, 4, 8} {
		for _, split := range []bool{false, true} {
			s, c := bigTenant(t, n)
			x := mustNew(t, c)
			prefix := azcosmos.NewPartitionKeyString("big")
			var all []int
			for i := range 60 {
				all = append(all, i)
			}
			desc := slices.Clone(all)
			slices.Reverse(desc)
			for _, tc := range []struct {
				query  string
				want   string
				resume bool
			}{
				{"SELECT VALUE c.n FROM c ORDER BY c.n DESC", js(desc), true},
				{"SELECT TOP 12 VALUE c.n FROM c ORDER BY c.n", js(all[:12]), true},
				{"SELECT VALUE c.n FROM c WHERE c.g = 1 ORDER BY c.user DESC", js([]int{57, 53, 49, 45, 41, 37, 33, 29, 25, 21, 17, 13, 9, 5, 1}), true},
				{"SELECT VALUE COUNT(1) FROM c", "[60]", false},
				{"SELECT VALUE COUNT(1) FROM c WHERE c.n >= 30", "[30]", false},
			} {
				for _, size := range sizes {
					var between func(int)
					if split {
						between = func(page int) {
							if page == 0 {
								_ = s.SplitRangeAt("db", "c", epk.Hash([]any{"big", "u45"}, "MultiHash", 2))
							}
						}
					}
					rows, err := readPrefix(t, x, tc.query, prefix, size, tc.resume, between)
					if err != nil {
						t.Fatalf("%d partitions (split %v), %s, page size %d: %v", n, split, tc.query, size, err)
					}
					if got := "[" + string(joinRaw(rows)) + "]"; got != tc.want {
						t.Errorf("%d partitions (split %v), %s, page size %d: %s, want %s", n, split, tc.query, size, got, tc.want)
					}
				}
			}
		}
	}

	// MAKELIST / MAKESET against one partition, arrays compared sorted.
	docs := diffDocs(t)
	_, ref := diffContainer(t, 1, docs)
	sortedArrays := func(rows []json.RawMessage) string {
		var out []string
		for _, r := range rows {
			v, _ := decode(r)
			out = append(out, fmt.Sprint(sortArrays(v)))
		}
		slices.Sort(out)
		return fmt.Sprint(out)
	}
	queries := []string{
		"SELECT VALUE MAKELIST(c.city) FROM c",
		"SELECT VALUE MAKESET(c.city) FROM c",
		"SELECT MAKESET(c.age) AS ages, MAKELIST(c.active) AS active, COUNT(1) AS n FROM c",
		"SELECT c.active, MAKESET(c.city) AS cities FROM c GROUP BY c.active",
		"SELECT VALUE MAKESET(c.mixed) FROM c",
	}
	for _, n := range []int{4, 8} {
		_, x := diffContainer(t, n, docs)
		for _, q := range queries {
			want, err := readOnePager(t, ref, q, nil, 0, nil)
			if err != nil {
				t.Fatalf("one partition, %s: %v", q, err)
			}
			for _, size := range sizes {
				got, err := readOnePager(t, x, q, nil, size, nil)
				if err != nil {
					t.Fatalf("%d partitions, %s: %v", n, q, err)
				}
				if g, w := sortedArrays(got), sortedArrays(want); g != w {
					t.Errorf("%d partitions, %s, page size %d:\n got %s\nwant %s", n, q, size, g, w)
				}
			}
		}
	}
}

// sortArrays orders every array in v by the JSON of its elements (and objects' keys by name, as
// fmt prints maps), so that MAKELIST/MAKESET results compare as multisets.
func sortArrays(v any) any {
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			x[i] = sortArrays(e)
		}
		slices.SortFunc(x, func(a, b any) int {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			return slices.Compare(ja, jb)
		})
	case map[string]any:
		for k, e := range x {
			x[k] = sortArrays(e)
		}
	}
	return v
}
