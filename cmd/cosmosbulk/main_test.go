package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

func TestMain(m *testing.M) {
	if args := os.Getenv(childArgsEnv); args != "" {
		childMain(args) // a cosmosbulk process started by a test (global_test.go)
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// writeLines writes n documents (ids d0..), with bad lines at the given line numbers.
func writeLines(t *testing.T, n int, bad map[int]string) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		if s, ok := bad[i]; ok {
			b.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&b, `{"id":"d%d","pk":"k%d","n":%d}`+"\n", i, i%17, i)
	}
	p := filepath.Join(t.TempDir(), "items.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func server(t *testing.T) *cosmostest.Server {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(3))
	if err := s.CreateContainer("db", "c", "/pk"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("COSMOS_ENDPOINT", s.Endpoint())
	t.Setenv("COSMOS_KEY", s.Key())
	return s
}

func count(t *testing.T, s *cosmostest.Server) map[string]int {
	t.Helper()
	all, err := s.Dump("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int{}
	for _, d := range all {
		var v struct{ ID string }
		_ = json.Unmarshal(d, &v)
		m[v.ID]++
	}
	return m
}

// TestImport: every good line imported once; bad lines reported by number, exit error.
func TestImport(t *testing.T) {
	s := server(t)
	file := writeLines(t, 300, map[int]string{5: `not json`, 9: `{"id":"x"}`, 12: ``})
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"--database", "db", "--container", "c", "--file", file}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "2 lines failed") {
		t.Fatalf("err %v, want 2 lines failed; stderr %s", err, errOut.String())
	}
	if !strings.Contains(errOut.String(), "line 6:") || !strings.Contains(errOut.String(), "line 10:") || strings.Contains(errOut.String(), "not json") {
		t.Errorf("stderr %q: want lines 6 and 10 reported by number, not by content", errOut.String())
	}
	if got := count(t, s); len(got) != 297 {
		t.Errorf("%d stored, want 297", len(got))
	}
	if !strings.Contains(out.String(), "imported 297, failed 2, 300 of 300 lines done") {
		t.Errorf("stdout %q", out.String())
	}
}

// TestResume: an import interrupted part way leaves a checkpoint; the same command finishes it,
// with every line stored once.
func TestResume(t *testing.T) {
	s := server(t)
	file := writeLines(t, 2000, nil)
	ck := filepath.Join(t.TempDir(), "import.ckpt")
	args := []string{"--database", "db", "--container", "c", "--file", file, "--checkpoint", ck, "--create", "--max-ru", "3000", "--low-priority", "--no-progress"}
	ctx, cancel := context.WithCancel(context.Background())
	var requests atomic.Int32
	// Interrupt after the eighth bulk request (as Ctrl-C would).
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpExecuteBatch, Match: func(*http.Request) bool {
		if requests.Add(1) == 8 {
			cancel()
		}
		return false
	}})
	var out, errOut bytes.Buffer
	err := run(ctx, args, &out, &errOut)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("first run: %v (stdout %s)", err, out.String())
	}
	b, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	var saved checkpoint
	if err := json.Unmarshal(b, &saved); err != nil || saved.Done == 0 || saved.Done >= 2000 {
		t.Fatalf("checkpoint %s (%v): want some lines done", b, err)
	}
	out.Reset()
	errOut.Reset()
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("second run: %v\n%s", err, errOut.String())
	}
	got := count(t, s)
	for id, n := range got {
		if n != 1 {
			t.Errorf("%s stored %d times", id, n)
		}
	}
	if len(got) != 2000 || !strings.Contains(out.String(), "2000 of 2000 lines done") {
		t.Errorf("%d stored; stdout %q", len(got), out.String())
	}
}

func TestArgs(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--database", "db", "--container", "c"},
		{"--database", "db", "--container", "c", "--file", "f", "--max-ru", "1", "--max-fraction", "0.5"},
		{"--database", "db", "--container", "c", "--file", "f", "--low-priority"},
		{"--database", "db", "--container", "c", "--file", "f", "extra"},
		{"--database", "db", "--container", "c", "--file", "f", "--global-group", "g"},
		{"--database", "db", "--container", "c", "--file", "f", "--global-group", "g", "--max-ru", "1", "--control-container", ""},
	} {
		if _, err := parseArgs(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

// TestImportGlobalGroup: with --global-group the import takes part in the global group through
// the control container (its record is written, and deleted when the import ends); a control
// container that does not exist is an error naming it, before any line is sent.
func TestImportGlobalGroup(t *testing.T) {
	s := server(t)
	if err := s.CreateContainer("db", "throughput-control", "/groupId"); err != nil {
		t.Fatal(err)
	}
	file := writeLines(t, 300, nil)
	args := []string{"--database", "db", "--container", "c", "--file", file, "--no-progress", "--max-ru", "3000", "--global-group", "import"}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if got := count(t, s); len(got) != 300 {
		t.Errorf("%d stored, want 300", len(got))
	}
	if n := s.Requests(cosmostest.RequestFilter{Container: "throughput-control", Operation: cosmostest.OpUpsertItem}); n == 0 {
		t.Error("no record written to the control container")
	}
	if left, err := s.Dump("db", "throughput-control"); err != nil || len(left) != 0 {
		t.Errorf("control container holds %d records after the import (%v), want its record deleted", len(left), err)
	}
	s.ResetRequests()
	err := run(context.Background(), append(args, "--control-container", "missing"), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "control container missing") {
		t.Errorf("missing control container: %v", err)
	}
	if n := s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpExecuteBatch}); n != 0 {
		t.Errorf("%d bulk requests sent without a control container", n)
	}
}
