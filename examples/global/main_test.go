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

func TestGlobalWithoutEnvironment(t *testing.T) {
	clearEnv(t)
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	var out bytes.Buffer
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	const ru = `\d+\.\d\d RU`
	matchLines(t, out.String(), []string{
		`^COSMOS_ENDPOINT is not set: started two in-process cosmostest servers with regions West US and East US, replication lag 2s, Session consistency \(one with West US as the write region, one multi-write\)$`,
		`^1\. session-token hand-off between two instances$`,
		`^  instance A prefers West US, East US; instance B prefers East US, West US$`,
		`^  setup: A stored u1 with name "Ada"; the server clock moves 2s: both regions have it$`,
		// The write's token goes back in the cookie.
		`^  A  PUT /profiles/u1 \{"name":"Ada Lovelace"\}: 204, written in West US, ` + ru + `; session cookie 0:-1#2$`,
		// Without the token, B reads East US's copy as it is: the simulation is real.
		`^  B  GET /profiles/u1 without the cookie: 200 "Ada" \(stale\), read in East US 200, ` + ru + `; session cookie 0:-1#1$`,
		// With A's token East US answers 404/1002 (the retry layer's in-region retries, then
		// azcosmos's retry in the write region), and B sees A's write.
		`^  B  GET /profiles/u1 with A's cookie: 200 "Ada Lovelace" \(fresh\), read in East US 404/1002( x\d+)?, West US 200, ` + ru + `; session cookie 0:-1#2$`,
		`^  B  GET /profiles/u1 with a malformed cookie: 400 bad session cookie, no request sent to Cosmos DB$`,
		`^  B  GET /profiles/u1 with a forged cookie: 400 bad session cookie, no request sent to Cosmos DB$`,
		`^  the server clock moves 2s: East US has caught up$`,
		`^  B  GET /profiles/u1 without the cookie: 200 "Ada Lovelace" \(fresh\), read in East US 200, ` + ru + `; session cookie 0:-1#2$`,

		`^2\. a multi-write conflict settled by last writer wins on /version$`,
		`^  container orders: conflict resolution policy LastWriterWins on /version$`,
		`^  setup: order o1 at version 3 in both regions$`,
		`^  B writes version 5 \(shipped\) in East US$`,
		`^  a second later A writes version 4 \(paid\) in West US, before version 5 has reached it$`,
		`^  before replication: A reads version 4 in West US, B reads version 5 in East US$`,
		// Both regions converge to version 5 though version 4 was written last.
		`^  the server clock moves 2s: A reads \{"id":"o1","status":"shipped","version":5\} in West US, B reads \{"id":"o1","status":"shipped","version":5\} in East US$`,
		`^  both regions kept version 5, written first: /version decides, not the clock \(on /_ts, the default, version 4 would win: it was written last\)$`,

		`^3\. the same writes on a Custom-mode container, whose losers go to the conflicts feed$`,
		`^  setup: order o1 at version 3 in both regions$`,
		`^  B writes version 5 \(shipped\) in East US$`,
		`^  a second later A writes version 4 \(paid\) in West US, before version 5 has reached it$`,
		`^  before replication: A reads version 4 in West US, B reads version 5 in East US$`,
		`^  the server clock moves 2s: A reads \{"id":"o1","status":"paid","version":4\} in West US, B reads \{"id":"o1","status":"paid","version":4\} in East US$`,
		`^  both regions kept version 4 \(which one Custom mode keeps is the service's choice; cosmostest keeps the later write\)$`,
		// The loser is the other version, listed by the conflicts reader.
		`^  conflicts feed: the losing replace \{"id":"o1","status":"shipped","version":5\}$`,
		`^  1 conflict\(s\) listed by conflicts\.New\(\.\.\.\)\.All; merge each into the kept version, then Delete it$`,
	})
}

// TestGlobalOnAnAccount: with COSMOS_CONNECTION_STRING set (here a cosmostest server posing as a
// real account, whose lag the example cannot set), part 1 runs without advancing any clock and
// parts 2 and 3 are skipped.
func TestGlobalOnAnAccount(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithHTTP(), cosmostest.WithRegions("West US", "East US"))
	clearEnv(t)
	t.Setenv(cosmoskit.EnvConnectionString, s.ConnectionString())
	t.Setenv(cosmoskit.EnvPreferredRegions, "West US, East US")
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	var out bytes.Buffer
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	host := strings.TrimSuffix(strings.TrimPrefix(s.Endpoint(), "http://"), "/")
	matchLines(t, out.String(), []string{
		`^using the account at ` + regexp.QuoteMeta(s.Endpoint()) + `$`,
		`^its replication lag cannot be set: what B reads without the token is shown as it is$`,
		`^1\. session-token hand-off between two instances$`,
		`^  instance A prefers West US, East US; instance B prefers East US, West US$`,
		`^  setup: A stored u1 with name "Ada"$`,
		`^  A  PUT /profiles/u1 \{"name":"Ada Lovelace"\}: 204, written in ` + regexp.QuoteMeta(host) + `, .*; session cookie 0:-1#2$`,
		// No lag on this "account": every read is fresh.
		`^  B  GET /profiles/u1 without the cookie: 200 "Ada Lovelace" \(fresh\), read in [^,]+ 200, .*$`,
		`^  B  GET /profiles/u1 with A's cookie: 200 "Ada Lovelace" \(fresh\), read in [^,]+ 200, .*; session cookie 0:-1#2$`,
		`^  B  GET /profiles/u1 with a malformed cookie: 400 bad session cookie, no request sent to Cosmos DB$`,
		`^  B  GET /profiles/u1 with a forged cookie: 400 bad session cookie, no request sent to Cosmos DB$`,
		`^2\. and 3\. skipped: a conflict needs two regions to write before either write replicates, which cannot be arranged on a real account \(unset COSMOS_ENDPOINT\)$`,
	})
	// The malformed and forged cookies reached no document endpoint: 2 writes and 2 reads did.
	if n := s.Requests(cosmostest.RequestFilter{ResourceType: cosmostest.ResourceDocument}); n != 4 {
		t.Errorf("%d document requests, want 4", n)
	}
}
