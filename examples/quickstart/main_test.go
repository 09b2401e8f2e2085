package main

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestMain fails the tests if a server, transport or SDK goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// clearEnv unsets the variables cosmoskit.ConfigFromEnv reads.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, v := range []string{cosmoskit.EnvEndpoint, cosmoskit.EnvKey, cosmoskit.EnvConnectionString, cosmoskit.EnvDatabase, cosmoskit.EnvPreferredRegions, cosmoskit.EnvExcludedRegions, cosmoskit.EnvApplicationName} {
		t.Setenv(v, "")
	}
}

func TestQuickstartWithoutEnvironment(t *testing.T) {
	clearEnv(t)
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	var out bytes.Buffer
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		`^COSMOS_ENDPOINT is not set: started an in-process cosmostest server at https://127\.0\.0\.1:\d+/$`,
		`^database "quickstart" and container "orders" are ready \(partition key /customerId\)$`,
		`^created 3 orders of customer "ada"$`,
		`^read "o-1001" by id and partition key: 1 line\(s\), total 120\.00, placed$`,
		`^updated "o-1001" with an ETag check: status placed -> shipped, new ETag: true$`,
		`^query page 1: o-1003 60\.00 placed, o-1002 25\.00 placed \(more with its continuation token\)$`,
		`^query page 2: o-1001 120\.00 shipped \(last page\)$`,
		// 2 provisioning calls, 3 creates, 1 get, 2 for the update (read, replace), 2 query pages.
		`^this run cost [1-9]\d*\.\d\d RU in 10 calls$`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("line %d = %q, want match for %s", i+1, lines[i], re)
		}
	}
}

func TestQuickstartWithAccountFromEnvironment(t *testing.T) {
	s := cosmostest.NewServer(t)
	clearEnv(t)
	t.Setenv(cosmoskit.EnvConnectionString, s.ConnectionString())
	t.Setenv(cosmoskit.EnvDatabase, "fromenv")
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	var out bytes.Buffer
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 8 || lines[0] != "using the account at "+s.Endpoint() || lines[1] != `database "fromenv" and container "orders" are ready (partition key /customerId)` {
		t.Fatalf("output:\n%s", out.String())
	}

	// A second run on the same account finds the items of the first and resets them.
	out.Reset()
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("second run: %v\noutput:\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "\ncreated 0 orders of customer \"ada\" (3 left by an earlier run were reset)\n") ||
		!strings.Contains(out.String(), "\nupdated \"o-1001\" with an ETag check: status placed -> shipped, new ETag: true\n") {
		t.Fatalf("second run output:\n%s", out.String())
	}
	if strings.Contains(out.String(), s.Key()) {
		t.Fatal("the output contains the key")
	}
}

// records is a slog.Handler that keeps every record, at every level.
type records struct {
	mu   sync.Mutex
	list []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, rec.Clone())
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// TestQuickstartLogsNoWarning: the quickstart models the practice it teaches, so a newcomer's
// first run (no environment, no logger configured: slog.Default()) logs no warning, in particular
// not the library's low-cardinality partition key warning.
func TestQuickstartLogsNoWarning(t *testing.T) {
	clearEnv(t)
	logged := &records{}
	prev := slog.Default()
	slog.SetDefault(slog.New(logged))
	t.Cleanup(func() { slog.SetDefault(prev) })

	var out bytes.Buffer
	if err := run(context.Background(), &out, cosmoskit.ConfigFromEnv()); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	logged.mu.Lock()
	defer logged.mu.Unlock()
	for _, rec := range logged.list {
		if rec.Level >= slog.LevelWarn {
			var attrs []string
			rec.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a.String()); return true })
			t.Errorf("the quickstart logged at %v: %s %v", rec.Level, rec.Message, attrs)
		}
	}
}
