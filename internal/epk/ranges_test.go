package epk

import (
	"fmt"
	"slices"
	"testing"
)

func TestRangesBoundaries(t *testing.T) {
	tests := []struct {
		n       int
		kind    string
		version int
		want    []string // the inner boundaries
	}{
		{1, KindHash, 2, nil},
		{0, KindHash, 2, nil},
		{-3, KindHash, 1, nil},
		{2, KindHash, 2, []string{"20"}},
		{4, KindHash, 2, []string{"10", "20", "30"}},
		{4, KindMultiHash, 2, []string{"10", "20", "30"}},
		{3, KindHash, 2, []string{"15555555555555555555555555555555", "2AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}},
		{2, KindHash, 1, []string{"00000000000000000000000080"}},
		{2, KindHash, 0, []string{"00000000000000000000000080"}},
		{4, KindMultiHash, 1, []string{"00000000000000000000000040", "00000000000000000000000080", "000000000000000000000000C0"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d/%s/v%d", tc.n, tc.kind, tc.version), func(t *testing.T) {
			rs := Ranges(tc.n, tc.kind, tc.version)
			var inner []string
			for i, r := range rs {
				if i > 0 {
					inner = append(inner, r.MinInclusive)
					if r.MinInclusive != rs[i-1].MaxExclusive {
						t.Errorf("range %d starts at %q, previous ends at %q", i, r.MinInclusive, rs[i-1].MaxExclusive)
					}
				}
			}
			if rs[0].MinInclusive != "" || rs[len(rs)-1].MaxExclusive != MaxEPK {
				t.Errorf("ranges %v do not run from \"\" to FF", rs)
			}
			if !slices.Equal(inner, tc.want) {
				t.Errorf("boundaries %q, want %q", inner, tc.want)
			}
		})
	}
}

// TestRangesEven hashes many keys and checks each lands in exactly one range and that the ranges share
// them evenly (the bounds are loose; the keys are deterministic, so this cannot flake).
func TestRangesEven(t *testing.T) {
	const keys = 8000
	for _, tc := range []struct {
		kind    string
		version int
		comps   int
	}{
		{KindHash, 2, 1}, {KindHash, 2, 2}, {KindMultiHash, 2, 3}, {KindHash, 1, 1}, {KindMultiHash, 1, 2},
	} {
		for _, n := range []int{2, 5, 16} {
			t.Run(fmt.Sprintf("%s/v%d/%dcomps/%d", tc.kind, tc.version, tc.comps, n), func(t *testing.T) {
				rs := Ranges(n, tc.kind, tc.version)
				counts := make([]int, n)
				for i := range keys {
					comps := []any{fmt.Sprintf("key-%d", i), float64(i), i%2 == 0}[:tc.comps]
					e := Hash(comps, tc.kind, tc.version)
					hit := -1
					for j, r := range rs {
						if r.Contains(e) {
							if hit >= 0 {
								t.Fatalf("%s in ranges %d and %d", e, hit, j)
							}
							hit = j
						}
					}
					if hit < 0 {
						t.Fatalf("%s in no range of %v", e, rs)
					}
					counts[hit]++
				}
				want := keys / n
				for j, c := range counts {
					if c < want*3/4 || c > want*5/4 {
						t.Errorf("range %d %v holds %d keys, want about %d (all: %v)", j, rs[j], c, want, counts)
					}
				}
			})
		}
	}
}

func TestContains(t *testing.T) {
	tests := []struct {
		r    Range
		e    string
		want bool
	}{
		{Range{"", "FF"}, "", true},
		{Range{"", "FF"}, "3FFFFFFF", true},
		{Range{"", ""}, "3F", true},
		{Range{"", "20"}, "1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", true},
		{Range{"", "20"}, "20", false},
		{Range{"", "20"}, "2000000000000000", false},
		{Range{"20", "FF"}, "2000000000000000", true},
		{Range{"20", "FF"}, "20AB", true},
		{Range{"20", "30"}, "30", false},
		{Range{"20", "30"}, "1F", false},
	}
	for _, tc := range tests {
		if got := tc.r.Contains(tc.e); got != tc.want {
			t.Errorf("%+v.Contains(%q) = %v, want %v", tc.r, tc.e, got, tc.want)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		kind    string
		version int
	}{{KindHash, 2}, {KindMultiHash, 2}, {KindHash, 1}} {
		t.Run(fmt.Sprintf("%s/v%d", tc.kind, tc.version), func(t *testing.T) {
			// Splitting the whole space twice gives the same ranges as Ranges(4).
			whole := Ranges(1, tc.kind, tc.version)[0]
			a, b := whole.Split(tc.kind, tc.version)
			a1, a2 := a.Split(tc.kind, tc.version)
			b1, b2 := b.Split(tc.kind, tc.version)
			got := []Range{a1, a2, b1, b2}
			if want := Ranges(4, tc.kind, tc.version); !slices.Equal(got, want) {
				t.Errorf("split twice = %v, want %v", got, want)
			}
			// Halves of an arbitrary range hold exactly the keys of the original.
			r := Ranges(3, tc.kind, tc.version)[1]
			lo, hi := r.Split(tc.kind, tc.version)
			nLo, nHi := 0, 0
			for i := range 4000 {
				e := Hash([]any{fmt.Sprint(i), "x"}, tc.kind, tc.version)
				in, inLo, inHi := r.Contains(e), lo.Contains(e), hi.Contains(e)
				if in != (inLo || inHi) || (inLo && inHi) {
					t.Fatalf("%s: in r %v, lo %v, hi %v", e, in, inLo, inHi)
				}
				if inLo {
					nLo++
				}
				if inHi {
					nHi++
				}
			}
			if nLo == 0 || nHi == 0 {
				t.Errorf("split %v into %v and %v: %d and %d keys", r, lo, hi, nLo, nHi)
			}
		})
	}
	// A range of a single hash value cannot be split.
	one := Range{"10", "10000000000000000000000000000001"}
	a, b := one.Split(KindHash, 2)
	if a != one || b.MinInclusive != one.MaxExclusive || b.MaxExclusive != one.MaxExclusive {
		t.Errorf("Split of a one-value range = %v, %v", a, b)
	}
}
