// Command resilience shows what cosmoskit's retry layer does when Cosmos DB misbehaves, against an
// embedded two-region cosmostest server (West US, the write region, and East US) whose faults it
// injects:
//
//   - throttling: three 429 answers with x-ms-retry-after-ms are retried after exactly the waits the
//     server asked for, and the attempts and waited time are read from package diagnostics; a 429
//     asking for more than the retry budget is returned at once as cosmoserr.ErrThrottled;
//   - region failover: with PreferredRegions East US then West US, East US goes down and reads fail
//     over to West US at once, with no sleeps;
//   - the circuit breaker: after a few consecutive failures East US's read breaker opens, so reads go
//     straight to West US; when East US is back, a probe closes the breaker and reads return.
//
// With COSMOS_ENDPOINT (or COSMOS_CONNECTION_STRING) unset it starts the embedded server:
//
//	go run ./examples/resilience
//
// With COSMOS_ENDPOINT set (a real account; COSMOS_PREFERRED_REGIONS and COSMOS_EXCLUDED_REGIONS are
// honoured) faults cannot be injected, so it only prints the resilience configuration in effect and
// the account's effective read order.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, cosmoskit.ConfigFromEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "resilience:", err)
		os.Exit(1)
	}
}

// Settings of the embedded demonstration: a breaker that opens after 3 failed reads (the default is
// 10) and probes again after 250 ms (the default is 30 s), so the run takes about a second.
const (
	demoReadFailureThreshold = 3
	demoOpenInterval         = 250 * time.Millisecond
	demoRetryAfter           = 100 * time.Millisecond
)

// printer writes lines to out; the circuit breaker reporter calls it from request goroutines.
type printer struct {
	mu  sync.Mutex
	out io.Writer
}

func (p *printer) say(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = fmt.Fprintf(p.out, format, args...)
}

// breakerReporter prints every circuit breaker state change (retry.StateReporter).
type breakerReporter struct {
	p *printer
}

func (r breakerReporter) CircuitBreakerStateChanged(_ context.Context, name, from, to string) {
	// name is e.g. "reads East US (127.0.0.1:8081)": drop the address.
	name, _, _ = strings.Cut(name, " (")
	r.p.say("  circuit breaker %q: %s -> %s\n", name, from, to)
}

// run shows the retry layer against cfg's account, or against an embedded two-region cosmostest
// server when cfg names none, writing what happened to out.
func run(ctx context.Context, out io.Writer, cfg cosmoskit.Config) error {
	p := &printer{out: out}
	var srv *cosmostest.Server
	if cfg.Endpoint == "" && cfg.ConnectionString == "" {
		var err error
		srv, err = cosmostest.Start(cosmostest.WithRegions("West US", "East US"))
		if err != nil {
			return fmt.Errorf("start cosmostest: %w", err)
		}
		defer srv.Close()
		cfg.Endpoint, cfg.Key = srv.Endpoint(), srv.Key()
		p.say("COSMOS_ENDPOINT is not set: started an in-process cosmostest server with regions West US (writes) and East US\n")
		if cfg.PreferredRegions == nil {
			cfg.PreferredRegions = []string{"East US", "West US"} // as if the service ran in East US
		}
		cfg.Retry.Breaker.ReadFailureThreshold = demoReadFailureThreshold
		cfg.Retry.Breaker.OpenInterval = demoOpenInterval
		cfg.Retry.Reporter = breakerReporter{p: p}
	}
	if cfg.Database == "" {
		cfg.Database = "resilience"
	}
	// A per-call policy below the diagnostics policy reads each operation's attempt statistics.
	cfg.PerCallPolicies = append(slices.Clip(cfg.PerCallPolicies), statsPolicy{})

	client, err := cosmoskit.New(cfg)
	if err != nil {
		return err
	}
	defer client.Close()
	if srv == nil {
		p.say("using the account at %s\n", client.Endpoint())
		p.say("faults can only be injected on the embedded cosmostest server (unset COSMOS_ENDPOINT); showing the configuration in effect\n")
		// Any request reads the account metadata, which gives the regions; a missing database is fine.
		if db, err := client.Database(cfg.Database); err == nil {
			_, _ = db.Read(ctx, nil)
		}
		printConfig(ctx, p, cfg, client)
		return nil
	}

	res, err := client.EnsureContainer(ctx, cfg.Database, cosmoskit.ContainerSpec{ID: "items", PartitionKeyPaths: []string{"/pk"}})
	if err != nil {
		return err
	}
	container := res.Container
	pk := azcosmos.NewPartitionKeyString("a")
	if _, err := container.UpsertItem(ctx, pk, []byte(`{"id":"1","pk":"a"}`), nil); err != nil {
		return fmt.Errorf("write the sample item: %w", err)
	}
	printConfig(ctx, p, cfg, client)

	region := func(host string) string {
		for _, name := range []string{"West US", "East US"} {
			if u, err := url.Parse(srv.RegionEndpoint(name)); err == nil && u.Host == host {
				return name
			}
		}
		return host
	}
	read := func() (diagnostics.Stats, error) {
		rctx, stats := withStats(ctx)
		_, err := container.ReadItem(rctx, pk, "1", nil)
		return stats.get(), err
	}

	// 1. Throttling.
	p.say("1. throttling\n")
	fault := srv.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
		Status: http.StatusTooManyRequests, RetryAfter: demoRetryAfter, Times: 3})
	st, err := read()
	if err != nil {
		return fmt.Errorf("read with 3 injected 429s: %w", err)
	}
	p.say("  injected 3 x 429 (retry after %v): the read succeeded after %s, %d throttled, waiting %v in all\n",
		demoRetryAfter, attempts(st.Attempts), st.Throttles, st.ThrottleWait)
	fault.Remove()

	budget := orDefault(cfg.Retry.Throttle.MaxWait, retry.DefaultThrottleMaxWait)
	fault = srv.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
		Status: http.StatusTooManyRequests, RetryAfter: budget + 30*time.Second, Times: 1})
	_, err = read()
	var de *cosmoserr.Error
	if !errors.Is(err, cosmoserr.ErrThrottled) || !errors.As(err, &de) {
		return fmt.Errorf("read with a 429 asking for more than the budget: got %w, want ErrThrottled", err)
	}
	p.say("  a 429 asking to retry after %v, beyond the %v budget: ErrThrottled at once, after %s\n",
		de.RetryAfter, budget, attempts(de.Attempts))
	fault.Remove()

	// 2. Region failover and 3. the circuit breaker.
	p.say("2. region failover and circuit breaker (reads prefer East US)\n")
	st, err = read()
	if err != nil {
		return err
	}
	p.say("  East US up: read served by %s in %s\n", region(st.Host), attempts(st.Attempts))
	if err := srv.SetRegionDown("East US", true); err != nil {
		return err
	}
	p.say("  East US is down\n")
	for i := 1; i <= demoReadFailureThreshold+1; i++ {
		st, err = read()
		if err != nil {
			return fmt.Errorf("read %d with East US down: %w", i, err)
		}
		p.say("  read %d: served by %s in %s\n", i, region(st.Host), attempts(st.Attempts))
	}
	printBreakers(p, client, "East US")

	if err := srv.SetRegionDown("East US", false); err != nil {
		return err
	}
	p.say("  East US is back; waiting %v for the breaker to let a probe through\n", demoOpenInterval)
	select {
	case <-time.After(demoOpenInterval):
	case <-ctx.Done():
		return ctx.Err()
	}
	st, err = read()
	if err != nil {
		return err
	}
	p.say("  read served by %s in %s\n", region(st.Host), attempts(st.Attempts))
	printBreakers(p, client, "East US")
	return nil
}

// printConfig prints the resilience settings in effect for client, built from cfg.
func printConfig(ctx context.Context, p *printer, cfg cosmoskit.Config, client *cosmoskit.Client) {
	list := func(s []string) string {
		if len(s) == 0 {
			return "(none)"
		}
		return strings.Join(s, ", ")
	}
	p.say("configuration in effect:\n")
	p.say("  preferred regions: %s; excluded: %s\n", list(client.PreferredRegions()), list(client.ExcludedRegions()))
	if client.Retry() == nil {
		p.say("  retry policy: off (Retry.Disable): the SDK's own retries apply\n")
		return
	}
	p.say("  effective read order: %s\n", list(client.Retry().Regions(ctx)))
	t, b := cfg.Retry.Throttle, cfg.Retry.Breaker
	if t.Disable {
		p.say("  429s: not retried\n")
	} else {
		p.say("  429s: up to %d retries within %v, each after the server's x-ms-retry-after-ms\n",
			orDefault(t.MaxRetries, retry.DefaultThrottleMaxRetries), orDefault(t.MaxWait, retry.DefaultThrottleMaxWait))
	}
	if b.Disable {
		p.say("  circuit breakers: off\n")
	} else {
		p.say("  circuit breakers: open after %d failed reads or %d failed writes in a row, probe after %v\n",
			orDefault(b.ReadFailureThreshold, retry.DefaultReadFailureThreshold),
			orDefault(b.WriteFailureThreshold, retry.DefaultWriteFailureThreshold), orDefault(b.OpenInterval, retry.DefaultOpenInterval))
	}
	p.say("  read hedging: %t\n", cfg.Retry.Hedging.Enable)
}

// printBreakers prints the read breaker of region.
func printBreakers(p *printer, client *cosmoskit.Client, region string) {
	for _, b := range client.Retry().Breakers() {
		if b.Region == region && b.Partition == "" && !b.Write {
			p.say("  %s read breaker: %s\n", region, b.State)
		}
	}
}

// orDefault returns v, or def when v is not positive (how package retry reads its Options).
func orDefault[N int | time.Duration](v, def N) N {
	if v > 0 {
		return v
	}
	return def
}

// attempts returns "1 attempt" or "n attempts".
func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}

// statsKey is the context key of a *statsSink.
type statsKey struct{}

// statsSink receives the attempt statistics of the operation run with its context.
type statsSink struct {
	mu sync.Mutex
	s  diagnostics.Stats
}

func (s *statsSink) get() diagnostics.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.s
}

// withStats returns a context whose operation's statistics statsPolicy stores in the sink. The
// context carries a diagnostics.Meter too: with no tracer, meter provider or logger configured, the
// diagnostics policy only tracks operations that some meter is counting.
func withStats(ctx context.Context) (context.Context, *statsSink) {
	s := &statsSink{}
	ctx, _ = diagnostics.WithMeter(ctx)
	return context.WithValue(ctx, statsKey{}, s), s
}

// statsPolicy is a per-call policy that copies diagnostics.StatsFromContext into the request's
// statsSink once the operation is done (every attempt, throttle wait and failover included).
type statsPolicy struct{}

func (statsPolicy) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	ctx := req.Raw().Context()
	if sink, ok := ctx.Value(statsKey{}).(*statsSink); ok {
		if st, ok := diagnostics.StatsFromContext(ctx); ok {
			sink.mu.Lock()
			sink.s = st
			sink.mu.Unlock()
		}
	}
	return resp, err
}
