package main

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
)

// TestMain fails the tests if a processor, server, transport or SDK goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestOrderViewsWithoutEnvironment(t *testing.T) {
	for _, v := range []string{cosmoskit.EnvEndpoint, cosmoskit.EnvKey, cosmoskit.EnvConnectionString, cosmoskit.EnvDatabase, cosmoskit.EnvPreferredRegions, cosmoskit.EnvExcludedRegions, cosmoskit.EnvApplicationName} {
		t.Setenv(v, "")
	}
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out, cfg); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		`^COSMOS_ENDPOINT is not set: started an in-process cosmostest server with 4 physical partitions$`,
		`^containers orders \(by /customerId\), views \(by /status\) and leases \(by /id\) are ready$`,
		`^started processor "orders-by-status" as instances view-1 and view-2$`,
		`^wrote 40 orders and 120 status changes$`,
		`^view: pending \d+, paid \d+, shipped \d+, delivered \d+$`,
		`^estimated lag: 0 changes$`,
		`^view in sync with the 40 orders: true$`,
		`^leases held: view-1 [0-4], view-2 [0-4]$`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(lines[i]) {
			t.Errorf("line %d = %q, want %s", i+1, lines[i], w)
		}
	}
}
