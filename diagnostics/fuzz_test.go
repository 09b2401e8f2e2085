package diagnostics

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

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
	})
}

// FuzzServiceMessage: any error body yields a bounded single-line message without panicking.
func FuzzServiceMessage(f *testing.F) {
	f.Add(`{"code":"NotFound","message":"Entity with the specified id does not exist.\r\nActivityId: x"}`)
	f.Add(`{"message":"Message: {\"Errors\":[\"Request rate is large.\"]}\r\nActivityId: x"}`)
	f.Add(`{"message":"Message: {\"Errors\":[]}"}`)
	f.Add(`not json`)
	f.Fuzz(func(t *testing.T, body string) {
		resp := &http.Response{StatusCode: 400, Body: io.NopCloser(strings.NewReader(body)), Header: http.Header{}}
		msg := serviceMessage(resp)
		if strings.ContainsAny(msg, "\r\n") {
			t.Fatalf("multi-line message %q", msg)
		}
		if len(msg) > maxMessageLen+len("…") {
			t.Fatalf("message of %d bytes", len(msg))
		}
	})
}
