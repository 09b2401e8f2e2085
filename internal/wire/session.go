package wire

import "strings"

// SessionTokenRange returns the physical partition (partition key range id) an
// x-ms-session-token names when it names exactly one: "<rangeId>:<version>#<lsn>..." (v1 tokens
// "<rangeId>:<lsn>" too). A token listing several ranges ("0:-1#5,1:-1#3"), an empty one or one
// without ":" gives false.
func SessionTokenRange(tok string) (string, bool) {
	if tok == "" || strings.IndexByte(tok, ',') >= 0 {
		return "", false
	}
	id, rest, ok := strings.Cut(tok, ":")
	if !ok || id == "" || rest == "" {
		return "", false
	}
	return id, true
}
