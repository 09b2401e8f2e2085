package rrf

import (
	"math"
	"testing"
)

func TestFuse(t *testing.T) {
	// Component 0 descending: scores 3, 1, 3 → dense ranks 1, 2, 1. Component 1 ascending with
	// weight -2 (reversed: descending, weight 2): 5, 7, 6 → ranks 3, 1, 2.
	got := Fuse([][]float64{{3, 1, 3}, {5, 7, 6}}, []bool{true, false}, []float64{1, -2})
	want := []float64{1.0/61 + 2.0/63, 1.0/62 + 2.0/61, 1.0/61 + 2.0/62}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("Fuse = %v, want %v", got, want)
		}
	}
	if Fuse(nil, nil, nil) != nil {
		t.Fatal("no components: want nil")
	}
}
