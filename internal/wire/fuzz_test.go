package wire

import (
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzRetryAfter: any header value gives a non-negative wait without panicking, the same for both
// millisecond headers, and a plain run of digits is never refused.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"50", "0.5", "-1", "1e309", "NaN", "", "abc", "Mon, 02 Jan 2026 03:04:08 GMT", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		ms := RetryAfter(http.Header{HeaderRetryAfterMs: {v}}, now)
		if ms < 0 || ms != RetryAfter(http.Header{HeaderRetryAfterMsStd: {v}}, now) {
			t.Fatalf("%q: %v", v, ms)
		}
		if s := RetryAfter(http.Header{HeaderRetryAfter: {v}}, now); s < 0 {
			t.Fatalf("Retry-After %q: %v", v, s)
		}
		if n, ok := parseDigits(v); ok && n > 0 && n < math.MaxInt64/int64(1e6) && ms <= 0 {
			t.Fatalf("%q refused", v)
		}
	})
}

// FuzzHeaderNumbers: the charge is finite and non-negative, the sub-status non-negative.
func FuzzHeaderNumbers(f *testing.F) {
	for _, s := range []string{"1", "2.86", "-1", "NaN", "Inf", "1e400", "", "0x1p3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		h := http.Header{HeaderRequestCharge: {v}, HeaderSubStatus: {v}}
		if c := RequestCharge(h); !(c >= 0) || math.IsInf(c, 0) {
			t.Fatalf("RequestCharge(%q) = %v", v, c)
		}
		if s := SubStatus(h); s < 0 {
			t.Fatalf("SubStatus(%q) = %v", v, s)
		}
	})
}

// FuzzParseAccount: no panic, and every region has a host and its canonical key.
func FuzzParseAccount(f *testing.F) {
	f.Add([]byte(`{"writableLocations":[{"name":"West US","databaseAccountEndpoint":"https://127.0.0.1:1/"}],"readableLocations":[{"name":"East US","databaseAccountEndpoint":"https://127.0.0.1:2/"}],"enableMultipleWriteLocations":true}`))
	f.Add([]byte(`{"writableLocations":[{"name":"","databaseAccountEndpoint":"::"}]}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, body []byte) {
		a, ok := ParseAccount(body)
		if !ok {
			return
		}
		if len(a.Readable) == 0 {
			t.Fatal("ok without readable regions")
		}
		for _, r := range append(append([]Region(nil), a.Readable...), a.Writable...) {
			if r.Host == "" || r.Key != CanonicalRegion(r.Name) {
				t.Fatalf("region %+v", r)
			}
		}
	})
}

// FuzzCanonicalRegion: idempotent, no spaces, no upper case.
func FuzzCanonicalRegion(f *testing.F) {
	for _, s := range []string{"West US 2", " WEST\tus2 ", "\u00a0", "İstanbul"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		c := CanonicalRegion(name)
		if strings.IndexFunc(c, unicode.IsSpace) >= 0 {
			t.Fatalf("%q has spaces", c)
		}
		if utf8.ValidString(name) && CanonicalRegion(c) != c {
			t.Fatalf("not idempotent: %q -> %q -> %q", name, c, CanonicalRegion(c))
		}
	})
}

// FuzzServiceMessage: any error body yields a bounded single-line message without panicking.
func FuzzServiceMessage(f *testing.F) {
	f.Add(`{"code":"NotFound","message":"Entity with the specified id does not exist.\r\nActivityId: x"}`)
	f.Add(`{"message":"Message: {\"Errors\":[\"Request rate is large.\"]}\r\nActivityId: x"}`)
	f.Add(`{"message":"Message: {\"Errors\":[\"a\\nb\"]}"}`)
	f.Add(`not json`)
	f.Fuzz(func(t *testing.T, body string) {
		msg := ServiceMessage([]byte(body))
		if strings.ContainsAny(msg, "\r\n") {
			t.Fatalf("multi-line message %q", msg)
		}
		if len(msg) > MaxMessageLen+len("…") {
			t.Fatalf("message of %d bytes", len(msg))
		}
	})
}

// FuzzClassify: any path, method and headers classify without panicking, to a known name.
func FuzzClassify(f *testing.F) {
	f.Add("GET", "/dbs/db1/colls/c1/docs/a", "", "")
	f.Add("POST", "/dbs/db1/colls/c1/docs", "application/query+json", "true")
	f.Add("GET", "/dbs/%zz/colls//docs/", "", "")
	f.Add("PUT", "/offers/x/", "", "")
	f.Fuzz(func(t *testing.T, method, rawPath, contentType, flag string) {
		r := &http.Request{Method: method, URL: &url.URL{Scheme: "https", Host: "h:1", Path: rawPath, RawPath: rawPath},
			Header: http.Header{"Content-Type": {contentType}, "X-Ms-Documentdb-Is-Upsert": {flag}, "A-Im": {flag}}}
		op := Classify(r)
		if op.Name == "" {
			t.Fatalf("Classify(%q %q) has no name", method, rawPath)
		}
		if op.Point && op.Container == "" {
			t.Fatalf("point operation without a container: %+v", op)
		}
		if op.Item != "" && !op.Point {
			t.Fatalf("item id on a non-point operation: %+v", op)
		}
	})
}
