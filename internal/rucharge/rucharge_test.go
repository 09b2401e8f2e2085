package rucharge

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 0.005 }

// The documented rows come back exactly; between them the charge grows, far slower than size.
func TestDocumentedRows(t *testing.T) {
	for _, r := range table {
		if !near(ReadRU(r.kb), r.read) || !near(TableWriteRU(r.kb), r.write) {
			t.Errorf("%v KB: read %v write %v, want %v %v", r.kb, ReadRU(r.kb), TableWriteRU(r.kb), r.read, r.write)
		}
	}
	// "Optimize request cost": a 100 KB point read is about 10 RU (not 100).
	if got := ReadRU(100); got < 7 || got > 10.5 {
		t.Errorf("100 KB read = %v, want about 10 (7.68 interpolated from the table)", got)
	}
	if ReadRU(0.2) != 1 || ReadRU(math.NaN()) != 1 {
		t.Error("below 1 KB is not the 1 KB row")
	}
	prev := 0.0
	for kb := 0.5; kb < 4096; kb *= 1.3 {
		if w := TableWriteRU(kb); w < prev {
			t.Fatalf("write RU falls at %v KB", kb)
		} else {
			prev = w
		}
	}
}

// Indexing fewer terms writes for less; the table's own figure is the default policy's.
func TestWriteByIndexedTerms(t *testing.T) {
	if !near(WriteRU(1, TableIndexedTerms), 4.95) {
		t.Errorf("1 KB, default terms: %v, want 4.95", WriteRU(1, TableIndexedTerms))
	}
	if !(WriteRU(1, 1) < WriteRU(1, 10)) || !near(WriteRU(1, -3), WriteRU(1, 0)) {
		t.Error("fewer indexed terms did not lower the write")
	}
}
