package repository

import (
	"testing"

	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// BenchmarkBindToken measures the binding Page computes once per call that takes or returns a
// token (a built query with two filters, scoped to a partitionkey.Of key).
func BenchmarkBindToken(b *testing.B) {
	q := NewQuery().Partition(partitionkey.Of("tenant-42")).Where("status", Eq, "open").Where("total", Ge, 10).OrderBy("total", Desc)
	rq, err := q.render("order", false, 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	c := &core{identity: []byte("container\x00c")}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.bindToken(q, rq)
	}
}
