package wire

import (
	"encoding/base64"
	"testing"
)

// TestVerifierAgreesWithSign: Verify accepts exactly the signature Sign computes, whatever the
// case of the verb, type and date (lower-cased as Sign does, non-ASCII included), and from many
// goroutines at once (the MAC states are pooled).
func TestVerifierAgreesWithSign(t *testing.T) {
	key, _ := base64.StdEncoding.DecodeString(EmulatorKey)
	v := NewVerifier(key)
	cases := [][4]string{
		{"GET", "docs", "dbs/db/colls/c/docs/a", "Wed, 02 Dec 2026 10:07:43 GMT"},
		{"post", "DOCS", "dbs/db/colls/c", "wed, 02 dec 2026 10:07:43 gmt"},
		{"GET", "", "", "Mié, 02 DÍC 2026"},
		{"PUT", "colls", "dbs/Db/colls/C", ""},
	}
	done := make(chan bool)
	for range 8 {
		go func() {
			for _, c := range cases {
				sig := Sign(key, c[0], c[1], c[2], c[3])
				if !v.Verify(c[0], c[1], c[2], c[3], sig) {
					t.Errorf("%q: the signature Sign computes is refused", c)
				}
				bad := []byte(sig)
				bad[3] ^= 1
				if v.Verify(c[0], c[1], c[2], c[3], string(bad)) || v.Verify(c[0], c[1], c[2]+"x", c[3], sig) || v.Verify(c[0], c[1], c[2], c[3], sig[:40]) {
					t.Errorf("%q: a wrong signature is accepted", c)
				}
			}
			done <- true
		}()
	}
	for range 8 {
		<-done
	}
	other := NewVerifier([]byte("another key"))
	if other.Verify("GET", "docs", "dbs/db", "d", Sign(key, "GET", "docs", "dbs/db", "d")) {
		t.Error("a signature under another key is accepted")
	}
}
