package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestControlAPI: the control API answers only its own token (never the account key), installs
// and removes faults, and refuses bad arguments with 400 and unknown paths with 404.
func TestControlAPI(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"))
	if _, err := newControl(s, ""); err == nil {
		t.Fatal("an empty token must be refused")
	}
	if _, err := newControl(s, s.Key()); err == nil {
		t.Fatal("the account key as control token must be refused")
	}
	h, err := newControl(s, "tok")
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, body, token string) (int, string) {
		req := httptest.NewRequest(method, "/"+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Code, w.Body.String()
	}
	for _, tok := range []string{"", "wrong", s.Key()} {
		if st, _ := do("GET", "requests", "", tok); st != http.StatusUnauthorized {
			t.Errorf("token %q: %d", tok, st)
		}
	}
	for _, tc := range []struct {
		method, path, body string
		status             int
		contains           string
	}{
		{"GET", "", "", 200, "POST   /faults"},
		{"POST", "faults", `{"operation":"read_item","status":429,"times":2}`, 201, `"id":"f1"`},
		{"GET", "faults", "", 200, `"hits":0`},
		{"POST", "faults", `{"status":1000}`, 400, "HTTP status"},
		{"POST", "faults", `{"nonsense":1}`, 400, "unknown field"},
		{"DELETE", "faults/f1", "", 204, ""},
		{"DELETE", "faults/f1", "", 404, "no fault"},
		{"POST", "region", `{"name":"Mars","down":true}`, 400, "unknown region"},
		{"POST", "split", `{"database":"db","container":"c","range":"0"}`, 400, "db"},
		{"POST", "advance", `{"by":"-1h"}`, 400, "duration"},
		{"POST", "replication-lag", `{"region":"East US","lag":"50ms"}`, 204, ""},
		{"GET", "requests?operation=read_item", "", 200, `"count":0`},
		{"POST", "throughput-limits", `{"enabled":true}`, 204, ""},
		{"POST", "throughput-limits", `{}`, 400, "enabled"},
		{"GET", "nowhere", "", 404, "no control endpoint"},
	} {
		if st, body := do(tc.method, tc.path, tc.body, "tok"); st != tc.status || !strings.Contains(body, tc.contains) {
			t.Errorf("%s /%s %s: %d %s, want %d containing %q", tc.method, tc.path, tc.body, st, body, tc.status, tc.contains)
		}
	}
	if !s.ThroughputLimits() {
		t.Error("throughput limits not on")
	}
	if d, err := s.ReplicationLag("East US"); err != nil || d.Milliseconds() != 50 {
		t.Errorf("replication lag: %v %v", d, err)
	}
}

// TestControlEndToEnd runs scripts/control-e2e.sh, which drives the binary's control API with curl
// (a 429 storm, a split, a region outage) as a test in another language would.
func TestControlEndToEnd(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "openssl", "xxd", "base64"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("control-e2e.sh needs %s, which is not installed", tool)
		}
	}
	if testing.Short() {
		t.Skip("control-e2e.sh builds and starts the binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "cosmostest")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "control-e2e.sh"))
	cmd.Env = append(os.Environ(), "COSMOSTEST_BIN="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "control-e2e: ok") {
		t.Fatalf("control-e2e.sh: %v\n%s", err, out)
	}
}
