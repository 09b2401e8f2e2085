package rrf

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkFuse fuses two components of 240 candidates (TOP 10 across a hybrid plan's 2 × 120).
func BenchmarkFuse(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	cols := [][]float64{make([]float64, 240), make([]float64, 240)}
	for _, c := range cols {
		for i := range c {
			c[i] = r.Float64()
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		Fuse(cols, []bool{true, false}, []float64{1, 1})
	}
}
