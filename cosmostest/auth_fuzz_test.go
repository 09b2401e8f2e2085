package cosmostest

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"
)

// FuzzGatewayPath: reading a path never panics; what it returns has no control character, no
// "\", no "#", no white space or "/" at the end, and reading it again changes nothing but what a
// second unescape would (so a path without "%" is a fixed point).
func FuzzGatewayPath(f *testing.F) {
	for _, s := range []string{
		"dbs/db/colls/c/docs/Test%20", "dbs/db/colls/c/docs/a%252Fb", "dbs/db/colls/c/docs/a%5Cb",
		"dbs/db/colls/c/docs/a%23b", "dbs/db/colls/c/docs/a%0Db", "dbs/db/colls/c/docs/%E9%B1%80",
		"dbs/db/colls/c/docs/%", "dbs/db/colls/c/docs/a%3Fb", "", "%2F%2F", "a%2520%2520",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, escaped string) {
		p, ok := gatewayPath(escaped)
		if !ok {
			if p != "" {
				t.Fatalf("%q: refused but returned %q", escaped, p)
			}
			return
		}
		if strings.ContainsAny(p, "\\#") || strings.HasSuffix(p, " ") || strings.HasSuffix(p, "/") || strings.HasPrefix(p, "/") {
			t.Fatalf("%q: read as %q", escaped, p)
		}
		if strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
			t.Fatalf("%q: control character in %q", escaped, p)
		}
		if !strings.Contains(p, "%") {
			if again, ok := gatewayPath(p); !ok || again != p {
				t.Fatalf("%q: read as %q, then as %q (%v)", escaped, p, again, ok)
			}
		}
	})
}

// FuzzAADToken: checking any authorization never panics, accepts only a three-part token whose
// header and claims decode, and never echoes the token in its refusal.
func FuzzAADToken(f *testing.F) {
	enc := base64.RawURLEncoding.EncodeToString
	for _, s := range []string{
		enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(`{"exp":4102444800,"nbf":0,"aud":"x"}`)) + "." + enc([]byte("sig")),
		enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(`{}`)) + ".",
		"a.b.c", "..", "opaque", enc([]byte(`{"alg":1}`)) + "." + enc([]byte(`{"exp":"x"}`)) + ".s",
	} {
		f.Add(s)
	}
	srv := &server{cfg: config{aad: true, aadAudiences: []string{"x"}, clock: func() time.Time { return time.Unix(1e9, 0) }}}
	f.Fuzz(func(t *testing.T, token string) {
		err := srv.checkAADToken("type=aad&ver=1.0&sig=" + token)
		if err == nil {
			if len(strings.Split(token, ".")) != 3 {
				t.Fatalf("%q: accepted without three parts", token)
			}
			return
		}
		if err.status != http.StatusUnauthorized || err.message == "" {
			t.Fatalf("%q: %v", token, err)
		}
		if len(token) > 8 && strings.Contains(err.message, token) {
			t.Fatalf("%q: refusal echoes the token", token)
		}
	})
}
