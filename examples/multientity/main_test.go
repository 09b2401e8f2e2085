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

// wantLines are the lines every run prints after its first.
var wantLines = []string{
	`^container "customers" is ready: customers and their orders share partition key /customerId$`,
	`^batch 1: created customer "ada" and orders o1, o2 in one transaction$`,
	`^batch 2: created order o3 and incremented the customer's order count in one transaction$`,
	`^batch 3: rolled back, operation 0 \(order\) failed with 409; order count still 3$`,
	`^partition "ada" read as mixed types \(4 documents\):$`,
	`^  customer ada: Ada Lovelace, 3 orders$`,
	`^  order o1: 30\.00$`,
	`^  order o2: 12\.50$`,
	`^  order o3: 7\.00$`,
	`^customer "grace" stored at schemaVersion 1 was read as version 2: first "Grace", last "Hopper"; written back at schemaVersion 2$`,
	`^customer "linus" at schemaVersion 3 \(newer than this code\) is refused: cosmoskit: unknown schema version: .*newer than this code$`,
	`^orders across all customers: 4; the largest: g1 45\.00 \(grace\), o1 30\.00 \(ada\), o2 12\.50 \(ada\)$`,
}

// check runs the example with cfg and matches its output against first and wantLines.
func check(t *testing.T, cfg cosmoskit.Config, first string) {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := append([]string{first}, wantLines...)
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("line %d = %q, want match for %s", i+1, lines[i], re)
		}
	}
}

func TestMultiEntityWithoutEnvironment(t *testing.T) {
	clearEnv(t)
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	check(t, cfg, `^COSMOS_ENDPOINT is not set: started an in-process cosmostest server at https://127\.0\.0\.1:\d+/$`)
}

func TestMultiEntityRunsTwiceOnAnAccount(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(3))
	clearEnv(t)
	t.Setenv(cosmoskit.EnvConnectionString, s.ConnectionString())
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	first := "^using the account at " + regexp.QuoteMeta(s.Endpoint()) + "$"
	check(t, cfg, first)
	// The second run removes the first run's items, so the batches create them again.
	check(t, cfg, first)
}
