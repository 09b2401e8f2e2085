package cosmostest_test

import (
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestQueryOrderByTimestampPages: ORDER BY c._ts (a system property, many documents sharing one
// second) pages through every document exactly once in both directions, in one logical
// partition through plain azcosmos, as other ORDER BY paths do.
func TestQueryOrderByTimestampPages(t *testing.T) {
	t.Parallel()
	_, cc := setup(t)
	createN(t, cc, "p", "a", 60)
	pk := azcosmos.NewPartitionKeyString("p")
	for _, q := range []string{
		"SELECT * FROM c ORDER BY c._ts",
		"SELECT * FROM c ORDER BY c._ts DESC",
		"SELECT c.id, c._ts FROM c ORDER BY c._ts ASC",
		"SELECT * FROM c WHERE c.n >= 0 ORDER BY c._ts DESC",
		"SELECT * FROM c WHERE c._ts > 0",
	} {
		for _, size := range []int32{1, 7, 60} {
			ids := pageThrough(t, cc, pk, q, size, nil)
			sorted := slices.Sorted(slices.Values(ids))
			if len(ids) != 60 || len(slices.Compact(sorted)) != 60 {
				t.Errorf("%s, page size %d: %d items, %d distinct, want 60", q, size, len(ids), len(slices.Compact(sorted)))
			}
		}
	}
}
