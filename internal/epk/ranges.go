package epk

import (
	"math/big"
	"strings"
)

// Range is a contiguous span of EPKs, [MinInclusive, MaxExclusive), in the form of a partition key
// range's minInclusive and maxExclusive. MinInclusive "" is the start of the space; MaxExclusive
// "FF" (or "") is its end.
type Range struct{ MinInclusive, MaxExclusive string }

// MaxEPK is the conventional MaxExclusive of the last range.
const MaxEPK = "FF"

// Contains reports whether e is in [r.MinInclusive, r.MaxExclusive) by [Compare], where a
// MaxExclusive of "FF" or "" is unbounded: the rule the SDK applies when it routes an EPK.
func (r Range) Contains(e string) bool {
	if Compare(r.MinInclusive, e) > 0 {
		return false
	}
	return r.MaxExclusive == "" || r.MaxExclusive == MaxEPK || Compare(e, r.MaxExclusive) < 0
}

// Ranges returns n contiguous ranges covering the whole hash space for that kind and version: the
// first MinInclusive is "", the last MaxExclusive is "FF", and each MinInclusive is the previous
// MaxExclusive. The boundaries split evenly the values the hashes actually take: for version 2 the
// masked 32-hex block [00…, 40…) (for MultiHash, the first component's block), for version 1 (and 0)
// the 8 hex digits after the 24 leading zeros of the first component's block. Boundaries are 32-hex
// blocks with trailing "00" pairs trimmed (e.g. "20" halves the V2 space). If n < 1, 1 is used.
func Ranges(n int, kind string, version int) []Range {
	if n < 1 {
		n = 1
	}
	end := spaceEnd(version)
	out := make([]Range, n)
	lower := ""
	for i := 0; i < n-1; i++ {
		b := new(big.Int).Mul(end, big.NewInt(int64(i+1)))
		b.Quo(b, big.NewInt(int64(n)))
		upper := formatBoundary(b)
		out[i] = Range{MinInclusive: lower, MaxExclusive: upper}
		lower = upper
	}
	out[n-1] = Range{MinInclusive: lower, MaxExclusive: MaxEPK}
	return out
}

// Split returns the two halves of r, [r.MinInclusive, mid) and [mid, r.MaxExclusive), with mid the
// midpoint of r within the space Ranges splits for that kind and version (only the first 32-hex block
// of a boundary is considered). A range spanning fewer than two hash values cannot be split: Split then
// returns r and the empty range {r.MaxExclusive, r.MaxExclusive}.
func (r Range) Split(kind string, version int) (Range, Range) {
	end := spaceEnd(version)
	lo := parseBoundary(r.MinInclusive, end)
	hi := end
	if r.MaxExclusive != "" && r.MaxExclusive != MaxEPK {
		hi = parseBoundary(r.MaxExclusive, end)
	}
	width := new(big.Int).Sub(hi, lo)
	if width.Cmp(big.NewInt(2)) < 0 {
		return r, Range{MinInclusive: r.MaxExclusive, MaxExclusive: r.MaxExclusive}
	}
	mid := formatBoundary(width.Rsh(width, 1).Add(width, lo))
	return Range{MinInclusive: r.MinInclusive, MaxExclusive: mid},
		Range{MinInclusive: mid, MaxExclusive: r.MaxExclusive}
}

// spaceEnd is one past the largest 32-hex block value a hash takes: 2^126 for version 2 (top two bits
// masked), 2^32 for version 1.
func spaceEnd(version int) *big.Int {
	if version <= 1 {
		return new(big.Int).Lsh(big.NewInt(1), 32)
	}
	return new(big.Int).Lsh(big.NewInt(1), 126)
}

// formatBoundary renders v as a 32-hex block with trailing "00" pairs trimmed (at least 2 digits).
func formatBoundary(v *big.Int) string {
	s := strings.ToUpper(v.Text(16))
	s = strings.Repeat("0", blockLen-len(s)) + s
	for len(s) > 2 && strings.HasSuffix(s, "00") {
		s = s[:len(s)-2]
	}
	return s
}

// parseBoundary reads the first 32-hex block of a boundary (right-padded with zeros), clamped to
// [0, end]. Malformed hex reads as end, so a garbage boundary never produces a split outside r.
func parseBoundary(s string, end *big.Int) *big.Int {
	if len(s) > blockLen {
		s = s[:blockLen]
	}
	s += strings.Repeat("0", blockLen-len(s))
	v, ok := new(big.Int).SetString(s, 16)
	if !ok || v.Sign() < 0 || v.Cmp(end) > 0 {
		return new(big.Int).Set(end)
	}
	return v
}
