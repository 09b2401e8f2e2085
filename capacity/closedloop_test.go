package capacity_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/capacity"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// loop is a workload's operations against one container: items i0..i{n-1}, keyed so that each
// physical partition holds the same number.
type loop struct {
	c    *azcosmos.ContainerClient
	keys []string       // balanced across the physical partitions
	next map[string]int // per pattern: each pattern cycles through every partition in turn
}

const loopItemSize = 600 // bytes of JSON before the system properties: a 1 KB item

// seed creates perPartition items in each of parts physical partitions, advancing the server's
// clock so that seeding is never throttled, and returns their keys (interleaved by partition).
func seed(ctx context.Context, t *testing.T, srv *cosmostest.Server, c *azcosmos.ContainerClient, parts, perPartition int) []string {
	t.Helper()
	byRange := map[string][]string{}
	for i := 0; len(byRange) < parts || !full(byRange, perPartition); i++ {
		if i > 100*parts*perPartition {
			t.Fatal("could not balance the keys")
		}
		key := fmt.Sprint("k", i)
		resp, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(key), doc(key, key, loopItemSize), nil)
		if err != nil {
			t.Fatalf("seed: %v", err)
		}
		srv.Advance(time.Second) // one create a second: never over any budget
		rng, _, _ := strings.Cut(*resp.SessionToken, ":")
		if len(byRange[rng]) < perPartition {
			byRange[rng] = append(byRange[rng], key)
		} else if _, err := c.DeleteItem(ctx, azcosmos.NewPartitionKeyString(key), key, nil); err != nil {
			t.Fatal(err)
		}
		srv.Advance(time.Second)
	}
	var keys []string
	for i := range perPartition {
		for _, ks := range byRange {
			keys = append(keys, ks[i])
		}
	}
	srv.Advance(10 * time.Second)
	return keys
}

func full(m map[string][]string, n int) bool {
	for _, v := range m {
		if len(v) < n {
			return false
		}
	}
	return true
}

func (l *loop) key(pattern string) string {
	if l.next == nil {
		l.next = map[string]int{}
	}
	k := l.keys[l.next[pattern]%len(l.keys)]
	l.next[pattern]++
	return k
}

func (l *loop) ops() map[string]func(context.Context) error {
	return map[string]func(context.Context) error{
		"get": func(ctx context.Context) error {
			k := l.key("get")
			_, err := l.c.ReadItem(ctx, azcosmos.NewPartitionKeyString(k), k, nil)
			return err
		},
		"save": func(ctx context.Context) error {
			k := l.key("save")
			_, err := l.c.UpsertItem(ctx, azcosmos.NewPartitionKeyString(k), doc(k, k, loopItemSize), nil)
			return err
		},
		"update": func(ctx context.Context) error {
			k := l.key("update")
			_, err := l.c.ReplaceItem(ctx, azcosmos.NewPartitionKeyString(k), k, doc(k, k, loopItemSize), nil)
			return err
		},
		"report": func(ctx context.Context) error {
			pager := l.c.NewQueryItemsPager("SELECT c.id FROM c WHERE c.kind = 'order' AND c.pad = 'none'", azcosmos.NewPartitionKey(), nil)
			for pager.More() {
				if _, err := pager.NextPage(ctx); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func loopWorkload() capacity.Workload {
	return capacity.Workload{
		DataGB: 60, // two physical partitions by storage
		Patterns: []capacity.Pattern{
			{Name: "get", Kind: capacity.Read, PeakRPS: 400},
			{Name: "save", Kind: capacity.Upsert, PeakRPS: 80},
			{Name: "update", Kind: capacity.Replace, PeakRPS: 40},
			{Name: "report", Kind: capacity.Query, PeakRPS: 8, CrossPartition: true},
		},
	}
}

// drive runs the workload's peak mix for seconds seconds of the server's clock (the patterns
// interleaved, one clock second per round) and returns how many operations were throttled.
func drive(ctx context.Context, t *testing.T, srv *cosmostest.Server, l *loop, w capacity.Workload, seconds int) (ops, throttled int) {
	t.Helper()
	fns := l.ops()
	for range seconds {
		total := 0
		for _, p := range w.Patterns {
			total += int(p.PeakRPS)
		}
		// Interleave the patterns in proportion to their rates: step through the second in
		// total slots; pattern p's k-th request goes to slot k*total/rate(p).
		slots := make([][]string, total)
		for _, p := range w.Patterns {
			n := int(p.PeakRPS)
			for k := range n {
				i := k * total / n
				slots[i] = append(slots[i], p.Name)
			}
		}
		for _, names := range slots {
			for _, name := range names {
				ops++
				err := fns[name](ctx)
				var re *azcore.ResponseError
				switch {
				case errors.As(err, &re) && re.StatusCode == http.StatusTooManyRequests:
					throttled++
				case err != nil:
					t.Fatalf("%s: %v", name, err)
				}
			}
		}
		srv.Advance(time.Second)
	}
	return ops, throttled
}

// TestClosedLoop measures the workload's patterns on cosmostest, plans it, provisions a server as
// planned (its partitions, its throughput, limits enforced) and drives the peak mix for two
// seconds of the server's clock: no 429 at the planned throughput, 429s at half of it.
func TestClosedLoop(t *testing.T) {
	ctx := context.Background()
	w := loopWorkload()

	// 1. Measure every pattern on an unlimited container of the same shape.
	msrv, mc := newContainer(t, 2, nil, nil)
	ml := &loop{c: mc}
	ml.keys = seed(ctx, t, msrv, mc, 2, 100)
	var ms []capacity.Measurement
	for name, op := range ml.ops() {
		m, err := capacity.Measure(ctx, name, op, capacity.MeasureOptions{Runs: 4})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	plan := mustPlan(t, w.WithMeasurements(ms...))
	if plan.Partitions != 2 {
		t.Fatalf("plan: %d partitions, want 2", plan.Partitions)
	}
	for _, pp := range plan.Patterns {
		if pp.Source != capacity.SourceMeasured {
			t.Fatalf("%s not measured", pp.Name)
		}
	}
	t.Logf("plan:\n%s", plan.Table())

	run := func(tp azcosmos.ThroughputProperties) (int, int) {
		srv, c := newContainer(t, plan.Partitions, nil, &tp)
		l := &loop{c: c}
		l.keys = seed(ctx, t, srv, c, plan.Partitions, 100)
		return drive(ctx, t, srv, l, w, 2)
	}
	ops, throttled := run(plan.ThroughputProperties())
	if throttled != 0 {
		t.Errorf("at the planned %d RU/s: %d of %d operations throttled", plan.ProvisionedRUs, throttled, ops)
	}
	half := plan.ProvisionedRUs / 2 / 100 * 100
	ops, throttled = run(azcosmos.NewManualThroughputProperties(int32(half)))
	if throttled == 0 {
		t.Errorf("at half the plan (%d RU/s): none of %d operations throttled", half, ops)
	}
	t.Logf("at %d RU/s: %d of %d operations throttled", half, throttled, ops)
}
