package cosmoskit

import (
	"net/url"
	"strings"
	"testing"
)

func FuzzParseConnectionString(f *testing.F) {
	f.Add("AccountEndpoint=https://a.documents.azure.com:443/;AccountKey=" + testKey + ";")
	f.Add("accountkey=" + testKey + ";accountendpoint=https://localhost:8081/")
	f.Add(";;=;")
	f.Add("AccountKey=a=b=c")
	f.Fuzz(func(t *testing.T, cs string) {
		ep, key, ok := parseConnectionString(cs)
		if !ok && (ep != "" || key != "") {
			t.Fatalf("not ok but returned values")
		}
		// The redacted form never contains a key longer than a few characters.
		red := redactConnectionString(cs)
		if len(key) >= 8 && strings.Contains(red, key) && !strings.Contains(ep, key) {
			t.Fatalf("redacted %q contains the key %q", red, key)
		}
		if _, err := resolve(Config{ConnectionString: cs, Logger: quiet}); err != nil && len(key) >= 8 && strings.Contains(err.Error(), key) && !strings.Contains(ep, key) && !strings.Contains(connectionStringForm, key) {
			t.Fatalf("error %q contains the key", err)
		}
	})
}

func FuzzParseEndpoint(f *testing.F) {
	for _, s := range []string{"https://a.documents.azure.com:443/", "http://127.0.0.1", "https://[::1]:8081/", "https://u@h/", "https://h/p?q#f", "HTTPS://LOCALHOST"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		info, problem := parseEndpoint(raw)
		if problem != "" {
			return
		}
		u, err := url.Parse(info.url)
		if err != nil {
			t.Fatalf("normalized %q does not parse: %v", info.url, err)
		}
		if u.Path != "/" || u.RawQuery != "" || u.User != nil {
			t.Fatalf("normalized %q has a path, query or user", info.url)
		}
		again, problem := parseEndpoint(info.url)
		if problem != "" || again.key != info.key || again.loopback != info.loopback {
			t.Fatalf("normalizing %q is not idempotent: %+v vs %+v (%s)", raw, again, info, problem)
		}
		if info.loopback != isLoopbackEndpoint(info.url) {
			t.Fatalf("loopback disagrees for %q", info.url)
		}
	})
}
