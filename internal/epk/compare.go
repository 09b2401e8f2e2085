package epk

// Compare orders two EPK hex strings exactly as the SDK's CompareEPK does: it returns -1, 0 or +1.
// The common prefix is compared bytewise; when it is equal, the strings are equal if the longer one's
// tail is all '0' (so "20" equals "2000…0"), otherwise the longer one is greater. No normalisation of
// case is done, as in the SDK (EPKs are upper-case hex).
func Compare(a, b string) int {
	n := min(len(a), len(b))
	if a[:n] < b[:n] {
		return -1
	}
	if a[:n] > b[:n] {
		return 1
	}
	tail, sign := a[n:], 1
	if len(b) > len(a) {
		tail, sign = b[n:], -1
	}
	for i := 0; i < len(tail); i++ {
		if tail[i] != '0' {
			return sign
		}
	}
	return 0
}
