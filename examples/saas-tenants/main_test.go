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
)

// TestMain fails the tests if a server, transport or SDK goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestSaaSTenantsWithoutEnvironment(t *testing.T) {
	for _, v := range []string{cosmoskit.EnvEndpoint, cosmoskit.EnvKey, cosmoskit.EnvConnectionString, cosmoskit.EnvDatabase, cosmoskit.EnvPreferredRegions, cosmoskit.EnvExcludedRegions, cosmoskit.EnvApplicationName} {
		t.Setenv(v, "")
	}
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	var out bytes.Buffer
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		`(?m)^refused before sending: .*partitionKey: has 1 value, the container has 2 levels$`,
		`(?m)^wrote 78 documents: tenant "contoso" with 30 users \(30 logical partitions\), 9 small tenants$`,
		`(?m)^storage \(x-ms-documentdb-populatepartitionstatistics\): 78 documents, \d+ KB$`,
		// The routed prefix query: one physical partition of 4, all of the tenant's 60 documents.
		`(?m)^prefix query \["contoso"\]: 60 documents from physical partition\(s\) \[\d\] of 4 \(from diagnostics\)$`,
		`(?m)^point read \["contoso", "user-07"\] id note-1: 1\.00 RU, physical partition \[\d\]$`,
		`(?m)^  hot logical partition \["US"\]: 75% of the RU, in physical partition \d$`,
		`(?m)^read back all "US" orders over the 8 suffixes: 45 orders$`,
	} {
		if !regexp.MustCompile(want).MatchString(got) {
			t.Errorf("output lacks %s\noutput:\n%s", want, got)
		}
	}
	// The hot partition: exactly one marked, before the fix, and it is the one that was throttled
	// most; none after.
	before, after, ok := strings.Cut(got, "== the fix")
	if !ok {
		t.Fatalf("no fix section:\n%s", got)
	}
	if n := strings.Count(before, "<- HOT"); n != 1 {
		t.Errorf("%d hot partitions before the fix, want 1:\n%s", n, before)
	}
	if !regexp.MustCompile(`(?m)^  physical partition (\d): +\d+\.\d\d RU \( *[5-9]\d%\), +\d+ requests, +[1-9]\d* x 429  <- HOT$`).MatchString(before) {
		t.Errorf("the hot partition has no 429s or under half the RU:\n%s", before)
	}
	if strings.Contains(after, "<- HOT") || !strings.Contains(after, "no logical partition takes more than a physical partition's fair share") {
		t.Errorf("hot after the fix:\n%s", after)
	}
	// The storage report lists all 4 physical partitions, and the tenant's partition holds its 60.
	if n := len(regexp.MustCompile(`(?m)^  physical partition \d: \d+ documents`).FindAllString(got, -1)); n != 4 {
		t.Errorf("storage report lists %d physical partitions, want 4", n)
	}
}
