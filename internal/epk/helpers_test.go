package epk

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// randomKey returns a deterministic pseudo-random partition key of 1..maxLen components drawn from
// every component type, strings of every length class (0, 1–15, 16–40 bytes, multi-byte UTF-8).
func randomKey(seed, maxLen int) []any {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	n := 1 + r.IntN(maxLen)
	out := make([]any, n)
	for i := range out {
		out[i] = randomComponent(r)
	}
	return out
}

func randomComponent(r *rand.Rand) any {
	switch r.IntN(10) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return float64(r.IntN(1_000_000) - 500_000)
	case 3:
		return math.Float64frombits(r.Uint64() &^ (0x7FF << 52)) // finite, tiny
	case 4:
		return r.NormFloat64() * 1e9
	case 5:
		return ""
	case 6:
		return "é∑" + strconv.Itoa(r.IntN(1000)) + "日本"
	default:
		b := make([]byte, r.IntN(41))
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	}
}
