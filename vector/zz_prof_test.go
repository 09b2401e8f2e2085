package vector_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/vector"
)

func TestZZVectorProfile(t *testing.T) {
	if os.Getenv("ZZPROF") == "" {
		t.Skip()
	}
	q := corpus(1, largeDims, 5)[0].Embedding
	ss := map[int]*vector.Searcher{}
	for _, parts := range []int{1, 8} {
		c := largeContainer(t, parts)
		ss[parts] = newSearcher(t, c, vector.Options{Path: "/cos"})
		if _, err := ss[parts].Search(context.Background(), vector.Query{Vector: q, K: 10}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.MemProfileRate = 1
	snap := func(name string) {
		runtime.GC()
		f, _ := os.Create(name)
		_ = pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	snap("/tmp/vz0.out")
	for _, parts := range []int{1, 8} {
		for range 100 {
			if _, err := ss[parts].Search(context.Background(), vector.Query{Vector: q, K: 10}); err != nil {
				t.Fatal(err)
			}
		}
		snap(fmt.Sprintf("/tmp/vz%d.out", parts))
	}
}
