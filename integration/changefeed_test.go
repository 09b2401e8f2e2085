package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// scenarioChangeFeed runs two change feed processor instances over the scenario's container with
// a lease container of their own: every change written while they run is handled, the estimator
// reaches 0, and Stop releases the leases.
func scenarioChangeFeed(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient, c *azcosmos.ContainerClient, lenient bool) {
	props := azcosmos.ContainerProperties{ID: "leases", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/id"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatalf("create lease container: %v", err)
	}
	leases, err := db.NewContainer("leases")
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	var (
		mu       sync.Mutex
		seen     = map[string]bool{}
		firstErr atomic.Pointer[error]
	)
	handle := func(_ context.Context, b changefeed.Batch) error {
		mu.Lock()
		defer mu.Unlock()
		for _, raw := range b.Items {
			var d doc
			if err := json.Unmarshal(raw, &d); err != nil {
				return err
			}
			if d.Kind == "cf" {
				seen[d.ID] = true
			}
		}
		return nil
	}
	opts := changefeed.Options{
		Name:                    "scenario",
		Leases:                  changefeed.Leases(leases),
		Handler:                 handle,
		StartFrom:               changefeed.StartFromBeginning(),
		PollInterval:            20 * time.Millisecond,
		LeaseAcquireInterval:    50 * time.Millisecond,
		LeaseRenewInterval:      100 * time.Millisecond,
		LeaseExpirationInterval: 2 * time.Second,
		RetryBackoff:            10 * time.Millisecond,
		MaxRetryBackoff:         200 * time.Millisecond,
		OnError: func(_ string, err error) {
			firstErr.CompareAndSwap(nil, &err)
		},
	}
	var procs []*changefeed.Processor
	for _, instance := range []string{"one", "two"} {
		o := opts
		o.Instance = instance
		p, err := changefeed.New(c, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(ctx); err != nil {
			skipIfNotImplemented(t, lenient, "change feed processor start", err)
		}
		procs = append(procs, p)
	}
	stopAll := func() {
		for _, p := range procs {
			if err := p.Stop(ctx); err != nil {
				t.Errorf("Stop: %v", err)
			}
		}
		procs = nil
	}
	defer stopAll()
	for i := range n {
		d := doc{ID: fmt.Sprintf("cf-%03d", i), Tenant: fmt.Sprintf("cf-t%d", i%9), Kind: "cf", N: i}
		if _, err := c.UpsertItem(ctx, azcosmos.NewPartitionKeyString(d.Tenant), d.json(t), nil); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		got := len(seen)
		mu.Unlock()
		if got == n {
			break
		}
		if e := firstErr.Load(); e != nil && lenient && !errors.Is(*e, cosmoserr.ErrHandler) {
			skipIfNotImplemented(t, lenient, "change feed processor", *e)
		}
		if time.Now().After(deadline) {
			t.Fatalf("handled %d of %d changes in 30 s (first error: %v)", got, n, firstErr.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	est := procs[0].Estimator()
	for {
		total, err := est.Total(ctx)
		if err != nil {
			t.Fatalf("estimator: %v", err)
		}
		if total == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("estimated lag still %d", total)
		}
		time.Sleep(10 * time.Millisecond)
	}
	stopAll()
	pager := leases.NewQueryItemsPager("SELECT * FROM c WHERE IS_DEFINED(c.LeaseToken)", azcosmos.NewPartitionKey(), nil)
	count := 0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range page.Items {
			var l struct {
				LeaseToken string  `json:"LeaseToken"`
				Owner      *string `json:"Owner"`
			}
			if err := json.Unmarshal(raw, &l); err != nil {
				t.Fatal(err)
			}
			count++
			if l.Owner != nil {
				t.Errorf("lease %s still owned by %s after Stop", l.LeaseToken, *l.Owner)
			}
		}
	}
	if count == 0 {
		t.Error("no lease documents")
	}
}
