// Command global shows consistency and multi-region writes on a two-region account (West US and
// East US) whose replication lags, as two instances of a web service see them:
//
//  1. Session-token hand-off. Instance A (nearest to West US, the write region) and instance B
//     (nearest to East US) each have their own client, as two processes behind a load balancer
//     do. A user's update lands on A; their next page load lands on B. Without the session token,
//     B reads East US's copy, which has not caught up: the old value. With A's token handed on in
//     a cookie (consistency.Capture on A, consistency.WithSessionToken on B), B's read sees the
//     write: East US answers 404/1002 (not caught up) and the read is served by West US. The
//     cookie is signed (HMAC-SHA256 under a key the instances share): a malformed or forged one is
//     a 400 before any Cosmos DB request.
//  2. A multi-write conflict settled by last writer wins on the application's /version
//     (cosmoskit.ConflictResolutionSpec{Path: "/version"}): B writes version 5 in East US and A,
//     a second later and before version 5 has reached West US, writes version 4 there. Each region
//     first reads its own write; once replication catches up both read version 5, although version
//     4 was written last (on /_ts, the default, version 4 would win).
//  3. The same writes on a Custom-mode container: one version is kept and the loser is listed by
//     the conflicts feed reader (package conflicts), for the application to merge.
//
// With COSMOS_ENDPOINT (or COSMOS_CONNECTION_STRING) unset it starts two in-process cosmostest
// servers, a single-write one for part 1 and a multi-write one for parts 2 and 3, both with a 2 s
// replication lag on a server clock that only moves when the example advances it, so the run is
// instant and always shows the same thing:
//
//	go run ./examples/global
//
// With COSMOS_ENDPOINT set it uses that account (see cosmoskit.LoadConfig; COSMOS_DATABASE names
// the database, default "global"; instance A prefers COSMOS_PREFERRED_REGIONS in order, instance B
// the reverse). A real account's replication lag cannot be set, so part 1 shows the hand-off and
// prints what B read without the token (usually already fresh), and parts 2 and 3 are skipped: a
// conflict needs two regions to write before either write replicates, which cannot be arranged
// on a real account, multi-write or not. The instances' clients authenticate with the key or
// connection string, or Entra ID (the Credential, else the default Azure credential); an emulator
// with a self-signed certificate is not supported (use the embedded default).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, cosmoskit.ConfigFromEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "global:", err)
		os.Exit(1)
	}
}

// The embedded accounts.
const (
	westUS = "West US"
	eastUS = "East US"
	// demoLag is the replication lag of the embedded servers, on their clock (Advance).
	demoLag = 2 * time.Second
	// demoSessionWait is the instances' budget for waiting in a region that has not caught up with
	// a session token (retry.Options.SessionRetry.MaxWait) on the embedded servers. Their clock
	// stands still between Advance calls, so waiting cannot help there; the default (5 s) is right
	// for a real account, whose replicas catch up in milliseconds.
	demoSessionWait = 20 * time.Millisecond
)

// demo holds what the parts share.
type demo struct {
	out io.Writer
	db  string
}

func (d *demo) say(format string, args ...any) { _, _ = fmt.Fprintf(d.out, format, args...) }

// run does the demonstration against cfg's account, or against embedded cosmostest servers when
// cfg names none, writing what happened to out.
func run(ctx context.Context, out io.Writer, cfg cosmoskit.Config) error {
	d := &demo{out: out, db: cfg.Database}
	if d.db == "" {
		d.db = "global"
	}
	if cfg.Endpoint != "" || cfg.ConnectionString != "" {
		acct := &account{cfg: cfg, preferA: cfg.PreferredRegions}
		acct.preferB = slices.Clone(cfg.PreferredRegions)
		slices.Reverse(acct.preferB)
		d.say("using the account at %s\n", endpointOf(cfg))
		d.say("its replication lag cannot be set: what B reads without the token is shown as it is\n")
		if err := d.handoff(ctx, acct); err != nil {
			return err
		}
		d.say("2. and 3. skipped: a conflict needs two regions to write before either write replicates, which cannot be arranged on a real account (unset COSMOS_ENDPOINT)\n")
		return nil
	}

	// Part 1: a single-write account, West US writes; part 2: a multi-write one.
	single, err := startServer()
	if err != nil {
		return err
	}
	defer single.Close()
	multi, err := startServer(cosmostest.WithMultiWrite())
	if err != nil {
		return err
	}
	defer multi.Close()
	d.say("COSMOS_ENDPOINT is not set: started two in-process cosmostest servers with regions West US and East US, replication lag %v, Session consistency (one with West US as the write region, one multi-write)\n", demoLag)
	embedded := func(srv *cosmostest.Server) *account {
		c := cfg
		c.Endpoint, c.Key, c.Credential, c.PreferredRegions = srv.Endpoint(), srv.Key(), nil, []string{westUS, eastUS}
		return &account{cfg: c, srv: srv, preferA: []string{westUS, eastUS}, preferB: []string{eastUS, westUS}}
	}
	if err := d.handoff(ctx, embedded(single)); err != nil {
		return err
	}
	return d.conflicts(ctx, embedded(multi))
}

// startServer starts an embedded two-region server whose clock moves only with Advance.
func startServer(opts ...cosmostest.Option) (*cosmostest.Server, error) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	srv, err := cosmostest.Start(append([]cosmostest.Option{cosmostest.WithRegions(westUS, eastUS),
		cosmostest.WithReplicationLag(demoLag), cosmostest.WithClock(func() time.Time { return t0 })}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("start cosmostest: %w", err)
	}
	return srv, nil
}

// endpointOf is the account endpoint cfg names, for the first line of the output.
func endpointOf(cfg cosmoskit.Config) string {
	if cfg.Endpoint != "" {
		return cfg.Endpoint
	}
	ep, _, _ := strings.Cut(strings.TrimPrefix(cfg.ConnectionString, "AccountEndpoint="), ";")
	return ep
}

// account is where the instances run: an embedded server (srv) or the account of cfg.
type account struct {
	cfg              cosmoskit.Config
	srv              *cosmostest.Server // nil for a real account
	preferA, preferB []string
}

// advance moves the embedded server's clock on by d (nothing on a real account).
func (a *account) advance(d time.Duration) {
	if a.srv != nil {
		a.srv.Advance(d)
	}
}

// region names the region whose endpoint host is host (the host itself on a real account).
func (a *account) region(host string) string {
	if a.srv != nil {
		for _, name := range []string{westUS, eastUS} {
			if strings.Contains(a.srv.RegionEndpoint(name), "//"+host+"/") {
				return name
			}
		}
	}
	return host
}
