package changefeed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

type env struct {
	srv       *cosmostest.Server
	client    *azcosmos.Client
	db        *azcosmos.DatabaseClient
	monitored *azcosmos.ContainerClient
	leases    *azcosmos.ContainerClient
}

// newEnv starts a server with partitions physical partitions per container and creates database
// "db", the monitored container "items" (partitioned by /pk) and the lease container "leases"
// (partitioned by /id).
func newEnv(t testing.TB, partitions int) *env {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithHTTP(), cosmostest.WithPartitionCount(partitions))
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, err := client.NewDatabase("db")
	if err != nil {
		t.Fatal(err)
	}
	mk := func(id, path string) *azcosmos.ContainerClient {
		props := azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{path}}}
		if _, err := db.CreateContainer(ctx, props, nil); err != nil {
			t.Fatal(err)
		}
		c, err := db.NewContainer(id)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	return &env{srv: s, client: client, db: db, monitored: mk("items", "/pk"), leases: mk("leases", "/id")}
}

// fast are options for tests: millisecond intervals, from the beginning.
func fast() changefeed.Options {
	return changefeed.Options{
		StartFrom:               changefeed.StartFromBeginning(),
		PollInterval:            20 * time.Millisecond,
		LeaseRenewInterval:      50 * time.Millisecond,
		LeaseAcquireInterval:    15 * time.Millisecond,
		LeaseExpirationInterval: time.Second,
		RetryBackoff:            time.Millisecond,
		MaxRetryBackoff:         10 * time.Millisecond,
	}
}

type doc struct {
	ID  string `json:"id"`
	PK  string `json:"pk"`
	Seq int    `json:"seq"`
}

func write(t testing.TB, c *azcosmos.ContainerClient, d doc) {
	t.Helper()
	b, _ := json.Marshal(d)
	if _, err := c.UpsertItem(context.Background(), azcosmos.NewPartitionKeyString(d.PK), b, nil); err != nil {
		t.Error(err)
	}
}

// tally records what handlers saw: every (id, seq) and per-pk order.
type tally struct {
	mu       sync.Mutex
	seen     map[string]int // id -> deliveries
	lastSeq  map[string]int // pk -> last seq seen
	outOfOrd int
	total    int
}

func newTally() *tally { return &tally{seen: map[string]int{}, lastSeq: map[string]int{}} }

func (tl *tally) handle(_ context.Context, b changefeed.Batch) error {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for _, raw := range b.Items {
		var d doc
		if err := json.Unmarshal(raw, &d); err != nil {
			return err
		}
		tl.seen[d.ID]++
		tl.total++
		if tl.seen[d.ID] > 1 {
			continue // a redelivery (after a lease moved) repeats older changes
		}
		if d.Seq < tl.lastSeq[d.PK] {
			tl.outOfOrd++
		}
		tl.lastSeq[d.PK] = d.Seq
	}
	return nil
}

func (tl *tally) distinct() int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return len(tl.seen)
}

// waitFor polls cond every few milliseconds until it holds or the deadline passes.
func waitFor(t testing.TB, what string, d time.Duration, cond func() bool, dump ...func()) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			for _, f := range dump {
				f()
			}
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(3 * time.Millisecond)
	}
}

func newProc(t testing.TB, e *env, instance string, h changefeed.Handler, opts changefeed.Options) *changefeed.Processor {
	t.Helper()
	p, err := changefeed.New(e.monitored, withLeases(e, instance, h, opts))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p
}

func stop(t testing.TB, p *changefeed.Processor) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
}

func id(i int) string { return fmt.Sprintf("d%05d", i) }

func azPK() azcosmos.PartitionKey { return azcosmos.NewPartitionKey() }

// scaled is n, or a fifth of it under the race detector or -short.
func scaled(n int) int {
	if raceEnabled || testing.Short() {
		return n / 5
	}
	return n
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func azPKString(s string) azcosmos.PartitionKey { return azcosmos.NewPartitionKeyString(s) }

// withLeases returns opts for processor "proc", instance instance, over e's lease container.
func withLeases(e *env, instance string, h changefeed.Handler, opts changefeed.Options) changefeed.Options {
	opts.Name, opts.Instance, opts.Leases, opts.Handler = "proc", instance, changefeed.Leases(e.leases), h
	return opts
}
