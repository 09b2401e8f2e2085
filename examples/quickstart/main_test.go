package main

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"strings"
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
		`^database "quickstart" and container "products" are ready \(partition key /category\)$`,
		`^created 3 products in partition "gear"$`,
		`^read "tent" by id and partition key: Tent, 120\.00$`,
		`^updated "tent" with an ETag check: price 120\.00 -> 99\.00, new ETag: true$`,
		`^query page 1: Lamp 25\.00, Stove 60\.00 \(more with its continuation token\)$`,
		`^query page 2: Tent 99\.00 \(last page\)$`,
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
	if len(lines) != 8 || lines[0] != "using the account at "+s.Endpoint() || lines[1] != `database "fromenv" and container "products" are ready (partition key /category)` {
		t.Fatalf("output:\n%s", out.String())
	}

	// A second run on the same account finds the items of the first and resets them.
	out.Reset()
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("second run: %v\noutput:\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "\ncreated 0 products in partition \"gear\" (3 left by an earlier run were reset)\n") ||
		!strings.Contains(out.String(), "\nupdated \"tent\" with an ETag check: price 120.00 -> 99.00, new ETag: true\n") {
		t.Fatalf("second run output:\n%s", out.String())
	}
	if strings.Contains(out.String(), s.Key()) {
		t.Fatal("the output contains the key")
	}
}
