package capacity_test

import (
	"testing"

	"github.com/cosmoskit/cosmoskit-go/capacity"
)

func BenchmarkNew(b *testing.B) {
	w := workedExample()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := capacity.New(w); err != nil {
			b.Fatal(err)
		}
	}
}
