package epk

import (
	"strings"
	"testing"
)

// padCompare is a reference for hex strings: pad the shorter with '0' and compare bytewise.
func padCompare(a, b string) int {
	n := max(len(a), len(b))
	return strings.Compare(a+strings.Repeat("0", n-len(a)), b+strings.Repeat("0", n-len(b)))
}

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		// The SDK's own CompareEPK cases.
		{"06AB34CFE4E48223", "06AB34CFE4E48223", 0},
		{"06AB34CFE4E48223", "06AB34CFE4E48224", -1},
		{"06AB34CFE4E48224", "06AB34CFE4E48223", 1},
		{"06AB34CFE4E482236BCACBBF50E234AB", "06AB34CFE4E482236BCACBBF50E234AB00000000000000000000000000000000", 0},
		{"06AB34CFE4E482236BCACBBF50E234AB00000000000000000000000000000000", "06AB34CFE4E482236BCACBBF50E234AB", 0},
		{"06AB34CFE4E482236BCACBBF50E234AB", "06AB34CFE4E482236BCACBBF50E234AB00000000000000000000000000000001", -1},
		{"06AB34CFE4E482236BCACBBF50E234AB00000000000000000000000000000001", "06AB34CFE4E482236BCACBBF50E234AB", 1},
		{"", "", 0},
		{"", "00000", 0},
		{"", "00001", -1},
		{"FF", "3FFFFFFFFFFFFFFF", 1},
		{"3FFFFFFFFFFFFFFF", "FF", -1},
		// Short boundaries against full EPKs.
		{"20", "1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", 1},
		{"20", "20AB", -1},
		{"20", "2000000000000000", 0},
		// Bytewise, not numeric or case-folded: the SDK does not normalise.
		{"a0", "B0", 1},
	}
	for _, tc := range tests {
		if got := Compare(tc.a, tc.b); got != tc.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestCompareMatchesPaddedOrderOnHashes(t *testing.T) {
	var prev string
	for i := range 3000 {
		e := Hash(randomKey(i, 3), KindMultiHash, 2)
		if i%3 == 0 {
			e = e[:len(e)-len(e)%7] // mixed lengths, as partially specified boundaries are
		}
		if got, want := Compare(prev, e), padCompare(prev, e); got != want {
			t.Fatalf("Compare(%q, %q) = %d, padded order says %d", prev, e, got, want)
		}
		prev = e
	}
}

func FuzzCompare(f *testing.F) {
	f.Add("", "")
	f.Add("20", "20AB")
	f.Add("FF", "3F")
	f.Add("0", "00")
	f.Add("\x00", "0")
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, ba := Compare(a, b), Compare(b, a)
		if ab != -ba || ab < -1 || ab > 1 {
			t.Fatalf("Compare(%q, %q) = %d but Compare(b, a) = %d", a, b, ab, ba)
		}
		if Compare(a, a) != 0 {
			t.Fatalf("Compare(%q, itself) != 0", a)
		}
		if isHex(a) && isHex(b) && ab != padCompare(a, b) {
			t.Fatalf("Compare(%q, %q) = %d, padded order says %d", a, b, ab, padCompare(a, b))
		}
	})
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(hexDigits, rune(s[i])) {
			return false
		}
	}
	return true
}

func BenchmarkCompare(b *testing.B) {
	x := Hash([]any{"a"}, KindHash, 2)
	y := Hash([]any{"b"}, KindHash, 2)
	b.ReportAllocs()
	for b.Loop() {
		_ = Compare(x, y)
	}
}
