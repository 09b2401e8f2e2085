package wire

// MaxHeaderValueBytes bounds a header value that carries a value a caller handed back (a backend
// continuation, a session token): far above what the service returns, far below what a gateway
// accepts in one header.
const MaxHeaderValueBytes = 16 << 10

// ValidHeaderValue reports whether s can be sent as the value of a request header unchanged:
// at most MaxHeaderValueBytes of printable ASCII (0x20-0x7E). It refuses CR, LF and every other
// control byte (net/http refuses them only when the request is sent, which azcore then retries as a
// transport error) and every non-ASCII byte. The empty value is valid.
func ValidHeaderValue(s string) bool {
	if len(s) > MaxHeaderValueBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7E {
			return false
		}
	}
	return true
}

// maxRangeIDBytes bounds a partition key range id: the service's ids are small decimal numbers.
const maxRangeIDBytes = 20

// ValidRangeID reports whether s is a partition key range id as the service issues them: 1 to 20
// ASCII digits.
func ValidRangeID(s string) bool {
	if s == "" || len(s) > maxRangeIDBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			return false
		}
	}
	return true
}
