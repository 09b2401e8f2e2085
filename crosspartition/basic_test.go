package crosspartition

import (
	"context"
	"fmt"
	"testing"
)

func docs(n int) []map[string]any {
	var out []map[string]any
	for i := range n {
		out = append(out, map[string]any{"id": fmt.Sprint("d", i), "pk": fmt.Sprint("p", i%13), "n": i % 17, "s": fmt.Sprint("s", i%5)})
	}
	return out
}

func TestOrderByTopAcrossPartitions(t *testing.T) {
	_, c := newContainer(t, 4, nil)
	put(t, c, docs(60)...)
	x := mustNew(t, c)
	got, err := readAll(t, x, "SELECT c.id, c.n FROM c ORDER BY c.n DESC", nil, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 60 {
		t.Fatalf("got %d rows", len(got))
	}
	t.Log(string(got[0]), string(got[59]))
	_ = context.Background()
}
