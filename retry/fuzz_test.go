package retry

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// FuzzLearnTopology feeds arbitrary account metadata bodies: no panic, the body stays readable
// for the SDK, and every region learnt has a host.
func FuzzLearnTopology(f *testing.F) {
	f.Add([]byte(`{"writableLocations":[{"name":"West US","databaseAccountEndpoint":"https://127.0.0.1:1/"}],"readableLocations":[{"name":"East US","databaseAccountEndpoint":"https://127.0.0.1:2/"}],"enableMultipleWriteLocations":true}`))
	f.Add([]byte(`{"writableLocations":[{"name":"","databaseAccountEndpoint":"::"}]}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp := &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(bytes.NewReader(body))}
		top := learnTopology(resp)
		rest, err := io.ReadAll(resp.Body)
		if err != nil || !bytes.Equal(rest, body) {
			t.Fatalf("body not preserved: %q", rest)
		}
		if top == nil {
			return
		}
		for _, r := range append(append([]region(nil), top.readable...), top.writable...) {
			if r.host == "" {
				t.Fatalf("region without host: %+v", r)
			}
		}
	})
}
