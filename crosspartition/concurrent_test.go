package crosspartition

import (
	"sync"
	"testing"
)

// TestContainerIsSharedAcrossGoroutines: one Container (routing map and plan caches) serves many
// goroutines at once, its first routing-map read included (run with -race).
func TestContainerIsSharedAcrossGoroutines(t *testing.T) {
	_, c := newContainer(t, 4, nil)
	put(t, c, docs(50)...)
	x := mustNew(t, c)
	queries := []string{
		"SELECT VALUE c.n FROM c ORDER BY c.n",
		"SELECT VALUE COUNT(1) FROM c",
		"SELECT c.s, COUNT(1) AS n FROM c GROUP BY c.s",
		"SELECT * FROM c",
	}
	want := []int{50, 1, 5, 50}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			i := g % len(queries)
			rows, err := readOnePager(t, x, queries[i], nil, 7, nil)
			if err == nil && len(rows) != want[i] {
				t.Errorf("%q: %d rows, want %d", queries[i], len(rows), want[i])
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
