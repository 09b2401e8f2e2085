package crosspartition

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestPlainResumeAcrossWrites: a cross-partition query without ORDER BY, each page from the
// previous token in a new pager, while the rows already read leave the filter (updated, as a
// backfill does) or are deleted between pages: every row that matched throughout comes back
// exactly once. A resumed range re-reads the backend page it was in; skipping the rows consumed
// by their count lost as many unseen rows as consumed rows had left the page.
func TestPlainResumeAcrossWrites(t *testing.T) {
	const q = "SELECT c.id FROM c WHERE NOT IS_DEFINED(c.done)"
	for _, parts := range []int{1, 4} {
		for _, mode := range []string{"update read rows", "delete read rows"} {
			_, c := newContainer(t, parts, nil)
			for i := range 60 {
				put(t, c, map[string]any{"id": fmt.Sprintf("r%02d", i), "pk": fmt.Sprintf("p%d", i%7)})
			}
			// Pages of 6 rows: a range that runs out mid-page hands over to the next range, whose
			// backend page of 6 the user page then ends inside.
			x := mustNew(t, c)
			got, err := readAllObserved(t, x, q, 6, func(page []json.RawMessage) {
				for _, raw := range page {
					var r struct{ ID string }
					_ = json.Unmarshal(raw, &r)
					pk := fmt.Sprintf("p%s", pkOf(r.ID))
					if mode == "delete read rows" {
						if _, err := c.DeleteItem(context.Background(), azcosmos.NewPartitionKeyString(pk), r.ID, nil); err != nil {
							t.Fatal(err)
						}
					} else {
						put(t, c, map[string]any{"id": r.ID, "pk": pk, "done": true})
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, raw := range got {
				var r struct{ ID string }
				_ = json.Unmarshal(raw, &r)
				seen[r.ID]++
			}
			missing, twice := 0, 0
			for i := range 60 {
				switch n := seen[fmt.Sprintf("r%02d", i)]; {
				case n == 0:
					missing++
				case n > 1:
					twice++
				}
			}
			if missing != 0 || twice != 0 {
				t.Errorf("%d partitions, %s: %d rows never returned, %d returned twice", parts, mode, missing, twice)
			}
		}
	}
}

func pkOf(id string) string {
	var i int
	_, _ = fmt.Sscanf(id, "r%d", &i)
	return fmt.Sprint(i % 7)
}
