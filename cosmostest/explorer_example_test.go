package cosmostest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// A test server with the Data Explorer: open ExplorerURL in a browser and enter the token. The JSON
// endpoints answer only the control token.
func ExampleWithExplorer() {
	s, err := cosmostest.Start(cosmostest.WithExplorer("a-control-token"))
	if err != nil {
		panic(err)
	}
	defer s.Close()

	resp, err := http.Get(s.ExplorerURL() + "api/databases") // no token
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output: 401
}

// FuzzExplorerAPI: whatever a caller with the token sends, the explorer answers JSON with a 2xx or
// a 4xx (or the gateway's own status), never a panic or a 500 of its own.
func FuzzExplorerAPI(f *testing.F) {
	s := cosmostest.NewServer(f, cosmostest.WithExplorer(exToken))
	if err := s.CreateContainer("db", "c", "/pk"); err != nil {
		f.Fatal(err)
	}
	if err := s.Seed("db", "c", map[string]any{"id": "a", "pk": "p"}); err != nil {
		f.Fatal(err)
	}
	for _, seed := range []struct{ method, path, body string }{
		{"POST", "query", `{"db":"db","coll":"c","query":"SELECT * FROM c","partitionKey":"\"p\""}`},
		{"POST", "query", `{"db":"db","coll":"c","query":"SELECT","parameters":[{"name":"@x","value":{}}]}`},
		{"POST", "item", `{"db":"db","coll":"c","text":"{\"id\":\"b\",\"pk\":[1,2]}"}`},
		{"PUT", "item", `{"db":"db","coll":"c","id":"a","pk":"[\"p\"]","etag":"*","text":"{\"id\":\"a\",\"pk\":\"p\"}"}`},
		{"GET", "item?db=db&coll=c&id=a&pk=%5B%22p%22%5D", ""},
		{"GET", "items?db=db&coll=c&continuation=garbage", ""},
		{"DELETE", "item?db=db&coll=c&id=a&pk=%5B%5D&etag=x", ""},
		{"POST", "faults", `{"status":429,"times":1,"operation":"read_item"}`},
		{"POST", "split", `{"db":"db","coll":"c","range":"9"}`},
		{"GET", "changefeed?db=db&coll=c", ""},
	} {
		f.Add(seed.method, seed.path, seed.body)
	}
	f.Fuzz(func(t *testing.T, method, path, body string) {
		switch method {
		case "GET", "POST", "PUT", "DELETE":
		default:
			return
		}
		if u, err := url.Parse(path); err != nil || strings.Contains(u.Path, "fault") {
			return // a fault rule may delay every request: legitimate, and slow
		}
		var out json.RawMessage
		code := exAPIRaw(t, s, method, path, body, &out)
		if code < 0 {
			return
		}
		if !json.Valid(out) || code < 200 {
			t.Fatalf("%s %s %q: %d %s", method, path, body, code, out)
		}
		var e struct{ Error string }
		if code >= 400 && (json.Unmarshal(out, &e) != nil || e.Error == "") {
			t.Fatalf("%s %s %q: %d without an error message: %s", method, path, body, code, out)
		}
		if code == http.StatusInternalServerError && strings.Contains(e.Error, "explorer") {
			t.Fatalf("%s %s %q: the explorer failed: %s", method, path, body, out)
		}
	})
}

// exAPIRaw sends body as is with the control token; -1 when the explorer did not see the request.
func exAPIRaw(t *testing.T, s *cosmostest.Server, method, path, body string, out *json.RawMessage) int {
	t.Helper()
	u, err := url.Parse(s.ExplorerURL() + "api/" + path)
	if err != nil {
		return -1
	}
	req, err := http.NewRequest(method, u.String(), strings.NewReader(body))
	if err != nil {
		return -1
	}
	req.Header.Set("Authorization", "Bearer "+exToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	*out, _ = io.ReadAll(resp.Body)
	if resp.Header.Get("Content-Security-Policy") == "" {
		return -1 // net/http refused the request before the explorer saw it (a malformed request line)
	}
	return resp.StatusCode
}
