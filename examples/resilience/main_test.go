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

// matchLines fails t unless out has exactly one line per pattern, each matching it.
func matchLines(t *testing.T, out string, want []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("line %d = %q, want match for %s", i+1, lines[i], re)
		}
	}
}

func TestResilienceWithoutEnvironment(t *testing.T) {
	clearEnv(t)
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	var out bytes.Buffer
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	matchLines(t, out.String(), []string{
		`^COSMOS_ENDPOINT is not set: started an in-process cosmostest server with regions West US \(writes\) and East US$`,
		`^configuration in effect:$`,
		`^  preferred regions: East US, West US; excluded: \(none\)$`,
		`^  effective read order: East US, West US$`,
		`^  429s: up to 9 retries within 30s, each after the server's x-ms-retry-after-ms$`,
		`^  circuit breakers: open after 3 failed reads or 5 failed writes in a row, probe after 250ms$`,
		`^  read hedging: false$`,
		`^1\. throttling$`,
		// The waits are exactly the server's hints, as the retry layer reported them to diagnostics.
		`^  injected 3 x 429 \(retry after 100ms\): the read succeeded after 4 attempts, 3 throttled, waiting 300ms in all$`,
		`^  a 429 asking to retry after 1m0s, beyond the 30s budget: ErrThrottled at once, after 1 attempt$`,
		`^2\. region failover and circuit breaker \(reads prefer East US\)$`,
		`^  East US up: read served by East US in 1 attempt$`,
		`^  East US is down$`,
		`^  read 1: served by West US in 2 attempts$`,
		`^  read 2: served by West US in 2 attempts$`,
		`^  circuit breaker "reads East US": closed -> open$`,
		`^  read 3: served by West US in 2 attempts$`,
		// With the breaker open, East US is not tried at all.
		`^  read 4: served by West US in 1 attempt$`,
		`^  East US read breaker: open$`,
		`^  East US is back; waiting 250ms for the breaker to let a probe through$`,
		`^  circuit breaker "reads East US": open -> half-open$`,
		`^  circuit breaker "reads East US": half-open -> closed$`,
		`^  read served by East US in 1 attempt$`,
		`^  East US read breaker: closed$`,
	})
}

func TestResilienceOnAnAccountSkipsFaults(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"))
	clearEnv(t)
	t.Setenv(cosmoskit.EnvConnectionString, s.ConnectionString())
	t.Setenv(cosmoskit.EnvPreferredRegions, "East US, West US")
	t.Setenv(cosmoskit.EnvExcludedRegions, "East US")
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	var out bytes.Buffer
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	matchLines(t, out.String(), []string{
		`^using the account at ` + regexp.QuoteMeta(s.Endpoint()) + `$`,
		`^faults can only be injected on the embedded cosmostest server \(unset COSMOS_ENDPOINT\); showing the configuration in effect$`,
		`^configuration in effect:$`,
		`^  preferred regions: East US, West US; excluded: East US$`,
		`^  effective read order: West US$`,
		`^  429s: up to 9 retries within 30s, each after the server's x-ms-retry-after-ms$`,
		`^  circuit breakers: open after 10 failed reads or 5 failed writes in a row, probe after 30s$`,
		`^  read hedging: false$`,
	})
	// Nothing but the account metadata and the database read reached the account.
	if n := s.Requests(cosmostest.RequestFilter{ResourceType: cosmostest.ResourceDocument}); n != 0 {
		t.Errorf("%d document requests on a real account", n)
	}
}
