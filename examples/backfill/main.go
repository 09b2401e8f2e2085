// Command backfill adds a new property to every item of a live container without hurting the
// service that uses it: a bulk.Executor patches the items in a throughput.Group capped at a
// fraction of the container's provisioned RU/s and sent with Low priority, while an online
// workload (point reads and ETag-guarded updates through a typed repository.Repository) runs at
// the same time. It prints the backfill's progress (items, RU/s, 429s) every second, then the
// online workload's latency and throttles: the cap and the priority leave the online path its
// throughput, so it sees no 429.
//
// The steps: load N user profiles through their repository (bulk.Upserts: stamped with type and
// schema version, checked as repo.Upsert checks them); start the online workload; find the
// profiles without "tier" with a cross-partition query (in the group too) and patch each with the
// tier its points earn (one Patch operation each: no read-modify-write, so a concurrent online
// update is never overwritten); check that every profile has its tier.
//
// With COSMOS_ENDPOINT (or COSMOS_CONNECTION_STRING) unset it starts the in-process cosmostest
// server with throughput limits on (4 physical partitions) and backfills 20,000 items:
//
//	go run ./examples/backfill
//
// With COSMOS_ENDPOINT set it uses that account (see cosmoskit.LoadConfig) and backfills 100,000
// items in database COSMOS_DATABASE (default "backfill"), container "profiles", created with
// -throughput RU/s (default 10,000) if it does not exist. Flags: -items, -fraction (the group's
// share of the container's RU/s, default 0.3), -online (online workers, default 4). Running it
// again backfills only the profiles still without a tier.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/bulk"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
	"github.com/cosmoskit/cosmoskit-go/throughput"
)

func main() {
	var p params
	flag.IntVar(&p.Items, "items", 0, "profiles to load and backfill (default 100,000 on an account, 20,000 embedded)")
	flag.Float64Var(&p.Fraction, "fraction", 0, "the backfill's share of the container's RU/s (default 0.3)")
	flag.IntVar(&p.Online, "online", 0, "online workers (default 4)")
	throughputRU := flag.Int("throughput", 0, "RU/s of the container when this creates it (default 10,000)")
	flag.Parse()
	p.Throughput = int32(*throughputRU)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if _, err := run(ctx, os.Stdout, cosmoskit.ConfigFromEnv(), p); err != nil {
		fmt.Fprintln(os.Stderr, "backfill:", err)
		os.Exit(1)
	}
}

// params are the run's knobs; zero values take the documented defaults.
type params struct {
	Items      int     // default 100,000 on an account, 20,000 embedded
	Fraction   float64 // default 0.3
	Online     int     // default 4
	Throughput int32   // default 10,000 RU/s, when the container is created here
}

// report is what a run measured.
type report struct {
	Patched, Failed             int64
	ItemsPerSecond, RUPerSecond float64
	BackfillThrottled           int64 // bulk requests answered 429 (whole or in part)
	Requests                    int64 // bulk requests sent
	Passes                      int
	OnlineOps, OnlineThrottled  int64
	OnlineP50, OnlineP99        time.Duration
	Missing                     int // profiles without their tier after the backfill
}

// profile is the item type: one per user, partitioned by user id. Tier is the new property.
type profile struct {
	repository.Meta
	ID       string `json:"id"`
	UserID   string `json:"userId"`
	Name     string `json:"name"`
	Points   int    `json:"points"`
	LastSeen string `json:"lastSeen,omitempty"`
	Tier     string `json:"tier,omitempty"`
}

func profileKey(p profile) (string, azcosmos.PartitionKey) {
	return p.ID, azcosmos.NewPartitionKeyString(p.UserID)
}

// tierOf is the backfilled value: what the points earn.
func tierOf(points int) string {
	switch {
	case points >= 800:
		return "gold"
	case points >= 400:
		return "silver"
	}
	return "bronze"
}

// throttles counts 429 answers of the online path: requests whose context carries no throughput
// group (the backfill's do).
type throttles struct{ online atomic.Int64 }

func (t *throttles) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if resp != nil && resp.StatusCode == http.StatusTooManyRequests && throughput.FromContext(req.Raw().Context()) == nil {
		t.online.Add(1)
	}
	return resp, err
}

func run(ctx context.Context, out io.Writer, cfg cosmoskit.Config, p params) (report, error) {
	say := func(format string, args ...any) { _, _ = fmt.Fprintf(out, format, args...) }
	var rep report
	embedded := cfg.Endpoint == "" && cfg.ConnectionString == ""
	if p.Items == 0 {
		p.Items = 100_000
		if embedded {
			p.Items = 20_000
		}
	}
	p.Fraction = cmp(p.Fraction, 0.3)
	p.Online = int(cmp(float64(p.Online), 4))
	p.Throughput = int32(cmp(float64(p.Throughput), map[bool]float64{false: 10_000, true: 40_000}[embedded]))
	if embedded {
		srv, err := cosmostest.Start(cosmostest.WithPartitionCount(4), cosmostest.WithThroughputLimits())
		if err != nil {
			return rep, fmt.Errorf("start cosmostest: %w", err)
		}
		defer srv.Close()
		cfg.Endpoint, cfg.Key = srv.Endpoint(), srv.Key()
		say("COSMOS_ENDPOINT is not set: started an in-process cosmostest server (4 partitions, throughput limits on)\n")
	}
	if cfg.Database == "" {
		cfg.Database = "backfill"
	}
	counter := &throttles{}
	// throughput.Policy makes repository requests join a group through their context (the
	// backfill's query); the counter sees every attempt.
	cfg.PerRetryPolicies = append(cfg.PerRetryPolicies, throughput.Policy(), counter)
	client, err := cosmoskit.New(cfg)
	if err != nil {
		return rep, err
	}
	defer client.Close()
	if !embedded {
		say("using the account at %s\n", client.Endpoint())
	}
	if _, err := client.EnsureContainer(ctx, cfg.Database, cosmoskit.ContainerSpec{
		ID: "profiles", PartitionKeyPaths: []string{"/userId"}, ManualThroughput: p.Throughput,
	}); err != nil {
		return rep, err
	}
	profiles, err := repository.NewFromClient(client, cfg.Database, "profiles", repository.Options[profile]{
		Type: "profile", Key: profileKey, PartitionKeyPaths: []string{"/userId"},
	})
	if err != nil {
		return rep, err
	}
	x, err := bulk.New(client, cfg.Database, "profiles", bulk.Options{})
	if err != nil {
		return rep, err
	}

	// 1. Load the profiles as the service had them before "tier" existed.
	start := time.Now()
	users := func(yield func(profile) bool) {
		for i := range p.Items {
			id := fmt.Sprintf("u%07d", i)
			if !yield(profile{ID: id, UserID: id, Name: fmt.Sprintf("user %d", i), Points: (i * 7919) % 1000}) {
				return
			}
		}
	}
	var loaded int
	for _, err := range x.Execute(ctx, bulk.Upserts(ctx, profiles, users)) {
		if err != nil {
			return rep, fmt.Errorf("load: %w", err)
		}
		loaded++
	}
	say("loaded %d profiles in %.1f s\n", loaded, time.Since(start).Seconds())

	// 2. The online workload: point reads, and every fourth operation an ETag-guarded update.
	online := startOnline(ctx, profiles, p.Items, p.Online)

	// 3. The backfill, in a group capped at a fraction of the container's RU/s, Low priority.
	g, err := throughput.NewGroup(ctx, profiles.Container(), throughput.GroupOptions{
		Name: "backfill", TargetFraction: p.Fraction, Priority: azcosmos.PriorityLevelLow,
	})
	if err != nil {
		online.stop()
		return rep, err
	}
	say("backfill capped at %.0f RU/s (%.0f%% of the container's), Low priority; %d online workers\n",
		g.Target(), 100*p.Fraction, p.Online)
	bctx := throughput.WithGroup(ctx, g)
	var last bulk.Progress
	var done atomic.Int64 // patched in earlier passes
	bx, err := bulk.New(client, cfg.Database, "profiles", bulk.Options{
		// Small requests: a partition's share of the cap is spent in many small steps, not in
		// bursts of 100 patches that would leave a partition briefly without room for the
		// online path.
		MaxOperationsPerRequest: 20,
		OnProgress: func(pr bulk.Progress) {
			last = pr
			lat := online.snapshot()
			say("backfill %6d/%d  %6.0f RU/s  429s %d of %d requests | online %d ops, p99 %v, 429s %d\n",
				done.Load()+pr.Done, p.Items, pr.RUPerSecond, pr.ThrottledRequests, pr.Requests, lat.ops, lat.p99, counter.online.Load())
		},
	})
	if err != nil {
		online.stop()
		return rep, err
	}
	start = time.Now()
	var charge float64
	// Passes until one finds no profile without a tier: a pass's query reads the rows the pass
	// is changing (the filter is NOT IS_DEFINED(c.tier)), so a profile it passes over, or one
	// written while it runs, is found by the next pass; an interrupted run resumes the same way.
	for pass := 1; ; pass++ {
		found, failed, err := backfillPass(bctx, bx, profiles)
		if err != nil {
			online.stop()
			return rep, err
		}
		rep.Patched += found - failed
		rep.Failed += failed
		done.Store(rep.Patched + rep.Failed)
		charge += last.RequestCharge
		rep.BackfillThrottled += last.ThrottledRequests
		rep.Requests += last.Requests
		rep.Passes = pass
		say("pass %d: %d profiles found without a tier\n", pass, found)
		if found == 0 || pass == 10 {
			rep.Missing = int(found)
			break
		}
	}
	took := time.Since(start)
	lat := online.stop()
	rep.ItemsPerSecond = float64(rep.Patched) / took.Seconds()
	rep.RUPerSecond = charge / took.Seconds()
	rep.OnlineOps, rep.OnlineP50, rep.OnlineP99 = lat.ops, lat.p50, lat.p99
	rep.OnlineThrottled = counter.online.Load() + lat.throttled
	say("backfilled %d profiles in %.1f s (%d passes): %.0f items/s, %.0f RU/s (cap %.0f), %d of %d bulk requests throttled, %d failed\n",
		rep.Patched, took.Seconds(), rep.Passes, rep.ItemsPerSecond, rep.RUPerSecond, g.Target(), rep.BackfillThrottled, rep.Requests, rep.Failed)
	say("online: %d operations, p50 %v, p99 %v, %d throttled, %d errors\n", lat.ops, lat.p50, lat.p99, rep.OnlineThrottled, lat.errors)

	say("profiles without a tier: %d\n", rep.Missing)
	if rep.Failed > 0 || lat.errors > 0 {
		return rep, fmt.Errorf("%d patches and %d online operations failed", rep.Failed, lat.errors)
	}
	return rep, nil
}

// backfillPass patches the tier of every profile a query finds without one; it returns how many
// it found and how many patches failed.
func backfillPass(ctx context.Context, bx *bulk.Executor, profiles *repository.Repository[profile]) (found, failed int64, err error) {
	type row struct {
		ID     string `json:"id"`
		UserID string `json:"userId"`
		Points int    `json:"points"`
	}
	q := repository.SQL("SELECT c.id, c.userId, c.points FROM c WHERE c.type = @type AND NOT IS_DEFINED(c.tier)").CrossPartition()
	var queryErr error
	patches := func(yield func(bulk.Operation) bool) {
		for r, err := range repository.AllOf[row](ctx, profiles, q) {
			if err != nil {
				queryErr = err
				return
			}
			patch := azcosmos.PatchOperations{}
			patch.AppendSet("/tier", tierOf(r.Points))
			if !yield(bulk.PatchOp(partitionkey.Of(r.UserID), r.ID, &patch)) {
				return
			}
		}
	}
	for _, err := range bx.Execute(ctx, patches) {
		found++
		if err != nil {
			failed++
		}
	}
	if queryErr != nil {
		return found, failed, fmt.Errorf("backfill query: %w", queryErr)
	}
	return found, failed, nil
}

// cmp returns v, or def when v is 0.
func cmp(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// onlineLoad is the concurrent online workload.
type onlineLoad struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	lat    []time.Duration
	errs   int64
	thr    int64
}

type latency struct {
	ops, errors, throttled int64
	p50, p99               time.Duration
}

func startOnline(ctx context.Context, r *repository.Repository[profile], items, workers int) *onlineLoad {
	ctx, cancel := context.WithCancel(ctx)
	o := &onlineLoad{cancel: cancel}
	for w := range workers {
		o.wg.Add(1)
		go func() {
			defer o.wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(w), 1))
			for i := 0; ctx.Err() == nil; i++ {
				id := fmt.Sprintf("u%07d", rnd.IntN(items))
				t0 := time.Now()
				var err error
				if i%4 == 3 {
					_, err = r.Update(ctx, partitionkey.Of(id), id, func(p *profile) error {
						p.LastSeen = t0.UTC().Format(time.RFC3339Nano)
						return nil
					})
				} else {
					_, err = r.Get(ctx, partitionkey.Of(id), id)
				}
				d := time.Since(t0)
				if ctx.Err() != nil {
					return
				}
				o.mu.Lock()
				o.lat = append(o.lat, d)
				if err != nil {
					o.errs++
					if isThrottle(err) {
						o.thr++
					}
				}
				o.mu.Unlock()
				time.Sleep(5 * time.Millisecond) // a steady request rate, not a load test
			}
		}()
	}
	return o
}

// isThrottle reports a 429 the client's retry policy gave up on.
func isThrottle(err error) bool { return errors.Is(err, cosmoserr.ErrThrottled) }

func (o *onlineLoad) snapshot() latency {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := latency{ops: int64(len(o.lat)), errors: o.errs, throttled: o.thr}
	if len(o.lat) > 0 {
		s := slices.Clone(o.lat)
		slices.Sort(s)
		l.p50, l.p99 = s[len(s)/2].Round(10*time.Microsecond), s[len(s)*99/100].Round(10*time.Microsecond)
	}
	return l
}

func (o *onlineLoad) stop() latency {
	o.cancel()
	o.wg.Wait()
	return o.snapshot()
}
