package crosspartition

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestSplitsWhileOnePagerReads: ranges split twice while one pager reads (its buffered pages and
// drop groups in memory): every row once, in order.
func TestSplitsWhileOnePagerReads(t *testing.T) {
	for _, q := range []string{"SELECT c.id, c.n FROM c ORDER BY c.n DESC", "SELECT c.id, c.n FROM c"} {
		s, c := newContainer(t, 2, nil)
		put(t, c, docs(90)...)
		x := mustNew(t, c)
		p := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{PageSizeHint: 4})
		var ids []string
		var ns []float64
		for page := 0; p.More(); page++ {
			resp, err := p.NextPage(context.Background())
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			for _, it := range resp.Items {
				var row struct {
					ID string  `json:"id"`
					N  float64 `json:"n"`
				}
				_ = json.Unmarshal(it, &row)
				ids = append(ids, row.ID)
				ns = append(ns, row.N)
			}
			if page == 1 || page == 5 {
				splitFirst(t, s, x)
			}
		}
		if len(ids) != 90 {
			t.Fatalf("%s: %d rows, want 90", q, len(ids))
		}
		slices.Sort(ids)
		if len(slices.Compact(ids)) != 90 {
			t.Fatalf("%s: a row came twice", q)
		}
		if q[len(q)-4:] == "DESC" && !slices.IsSortedFunc(ns, func(a, b float64) int { return int(b - a) }) {
			t.Fatalf("%s: not in order: %v", q, ns)
		}
	}
}
