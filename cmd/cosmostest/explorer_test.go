package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

var explorerRE = regexp.MustCompile(`Data Explorer on (http://127\.0\.0\.1:\d+/explorer/)`)

// TestRunExplorer: --explorer serves the Data Explorer on the control port; its page is there
// without the token, its API answers only the control token (never the account key), and the
// control API is unchanged beside it.
func TestRunExplorer(t *testing.T) {
	out, stop := startRunOutput(t, []string{"--port", "0", "--control-port", "0", "--control-token", "ctl-tok", "--explorer", "true"})
	m := explorerRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no Data Explorer line in:\n%s", out)
	}
	base := m[1]
	get := func(url, token string) (int, string, http.Header) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	if st, body, h := get(base, ""); st != 200 || !strings.Contains(body, "Data Explorer") || h.Get("Content-Security-Policy") == "" {
		t.Errorf("page: %d %q", st, h.Get("Content-Security-Policy"))
	}
	if st, _, _ := get(base+"app.js", ""); st != 200 {
		t.Errorf("app.js: %d", st)
	}
	for _, tok := range []string{"", "wrong", wire.EmulatorKey} {
		if st, _, _ := get(base+"api/databases", tok); st != http.StatusUnauthorized {
			t.Errorf("api with token %q: %d, want 401", tok, st)
		}
	}
	if st, body, _ := get(base+"api/databases", "ctl-tok"); st != 200 || strings.TrimSpace(body) != "[]" {
		t.Errorf("api with the control token: %d %s", st, body)
	}
	controlRoot := strings.TrimSuffix(base, "explorer/")
	if st, _, _ := get(controlRoot+"requests", ""); st != http.StatusUnauthorized {
		t.Errorf("control API without token: %d", st)
	}
	if st, body, _ := get(controlRoot+"requests", "ctl-tok"); st != 200 || !strings.Contains(body, "count") {
		t.Errorf("control API: %d %s", st, body)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// TestRunWithoutExplorer: without --explorer the control port has no /explorer/.
func TestRunWithoutExplorer(t *testing.T) {
	out, _ := startRunOutput(t, []string{"--port", "0", "--control-port", "0", "--control-token", "ctl-tok"})
	if strings.Contains(out, "Data Explorer") {
		t.Fatalf("an explorer line without --explorer:\n%s", out)
	}
	m := regexp.MustCompile(`control API on (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no control API line in:\n%s", out)
	}
	resp, err := http.Get(m[1] + "explorer/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /explorer/ without --explorer: %d, want the control API's 401", resp.StatusCode)
	}
}

// startRunOutput runs the command in process with args and returns its output up to and including
// the Started line, and a stop function that cancels the run and returns its error.
func startRunOutput(t *testing.T, args []string) (string, func() error) {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, func(string) string { return "" }, pw, io.Discard)
		_ = pw.Close()
	}()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var out strings.Builder
	deadline := time.After(20 * time.Second)
	for started := false; !started; {
		select {
		case line, ok := <-lines:
			if !ok {
				cancel()
				t.Fatalf("output ended before Started: %v\n%s", <-done, out.String())
			}
			out.WriteString(line + "\n")
			started = strings.Contains(line, "Started")
		case <-deadline:
			cancel()
			t.Fatal("no Started line within 20s")
		}
	}
	go func() {
		for range lines { // drain, so the command never blocks writing
		}
	}()
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			return errors.New("run did not return within 10s of cancel")
		}
	}
	t.Cleanup(func() { _ = stop() })
	return out.String(), stop
}
