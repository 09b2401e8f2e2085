package epk

import (
	"math"
	"strings"
	"testing"
)

// FuzzHash feeds arbitrary components through every kind and version: no panics, the length is one
// block per component (one block in all for V2 Hash), V2 blocks are masked, V1 blocks start with 24
// zeros, and the EPK falls in exactly one of the ranges Ranges returns.
func FuzzHash(f *testing.F) {
	f.Add("asdf", 1.5, true, uint8(0), uint8(3))
	f.Add("", math.Inf(-1), false, uint8(7), uint8(1))
	f.Add("日本", math.NaN(), true, uint8(255), uint8(2))
	f.Fuzz(func(t *testing.T, s string, x float64, bit bool, shape, n uint8) {
		all := []any{s, x, bit, nil, Undefined, int64(x), struct{}{}}
		comps := make([]any, 0, 3)
		for i := range int(n % 4) {
			comps = append(comps, all[(int(shape)+i*3)%len(all)])
		}
		for _, version := range []int{0, 1, 2} {
			for _, kind := range []string{KindHash, KindMultiHash} {
				e := Hash(comps, kind, version)
				blocks := max(len(comps), 1)
				if version == 2 && kind == KindHash {
					blocks = 1
				}
				if len(e) != blocks*blockLen {
					t.Fatalf("Hash(%v, %s, %d) = %q: length %d, want %d", comps, kind, version, e, len(e), blocks*blockLen)
				}
				for i := 0; i < len(e); i += blockLen {
					if version == 2 && e[i] > '3' {
						t.Fatalf("V2 block %d of %q not masked", i/blockLen, e)
					}
					if version < 2 && !strings.HasPrefix(e[i:], v1Zeros) {
						t.Fatalf("V1 block %d of %q lacks the 24 zeros", i/blockLen, e)
					}
				}
				hits := 0
				for _, r := range Ranges(int(n%9)+1, kind, version) {
					if r.Contains(e) {
						hits++
					}
				}
				if hits != 1 {
					t.Fatalf("%q is in %d ranges", e, hits)
				}
			}
		}
	})
}

// FuzzSplit: splitting any range, even one with malformed boundaries, never panics, and the halves
// meet at one boundary inside the original.
func FuzzSplit(f *testing.F) {
	f.Add("", "FF", uint8(2))
	f.Add("20", "30", uint8(1))
	f.Add("zz", "-1", uint8(2))
	f.Add("000000000000000000000000FFFFFFFF", "", uint8(1))
	f.Fuzz(func(t *testing.T, lo, hi string, version uint8) {
		r := Range{MinInclusive: lo, MaxExclusive: hi}
		a, b := r.Split(KindHash, int(version%3))
		if a.MinInclusive != r.MinInclusive || b.MaxExclusive != r.MaxExclusive || a.MaxExclusive != b.MinInclusive {
			t.Fatalf("Split(%+v) = %+v, %+v: not two adjacent halves of r", r, a, b)
		}
	})
}
