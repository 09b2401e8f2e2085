package changefeed_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
)

// StartFromNow (the default) skips what was written before the lease was first read.
func TestStartFromNow(t *testing.T) {
	e := newEnv(t, 2)
	for i := range 50 {
		write(t, e.monitored, doc{ID: id(i), PK: id(i % 5), Seq: i})
	}
	tl := newTally()
	o := fast()
	o.StartFrom = changefeed.StartFromNow()
	p := newProc(t, e, "a", tl.handle, o)
	// Wait until both leases have a checkpoint: from then on, new writes are seen.
	waitFor(t, "checkpoints", 10*time.Second, func() bool {
		st := p.State()
		return len(st) == 2 && st[0].ContinuationToken != "" && st[1].ContinuationToken != ""
	})
	for i := 50; i < 80; i++ {
		write(t, e.monitored, doc{ID: id(i), PK: id(i % 5), Seq: i})
	}
	waitFor(t, "30 new changes", 10*time.Second, func() bool { return tl.distinct() == 30 })
	stop(t, p)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for i := range 50 {
		if tl.seen[id(i)] != 0 {
			t.Fatalf("%s, written before the start, was delivered", id(i))
		}
	}
}

// In manual-checkpoint mode a batch the handler did not checkpoint is delivered again by the
// next owner; checkpointed ones are not.
func TestManualCheckpoint(t *testing.T) {
	e := newEnv(t, 1)
	for i := range 40 {
		write(t, e.monitored, doc{ID: id(i), PK: "p", Seq: i})
	}
	var mu sync.Mutex
	var batches []changefeed.Batch
	o := fast()
	o.ManualCheckpoint = true
	o.MaxItems = 10
	h := func(_ context.Context, b changefeed.Batch) error {
		mu.Lock()
		batches = append(batches, b)
		mu.Unlock()
		return nil
	}
	a := newProc(t, e, "a", h, o)
	waitFor(t, "four batches", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(batches) == 4
	})
	// The handler buffered everything; it makes the first two durable, late.
	mu.Lock()
	second := batches[1]
	mu.Unlock()
	if err := second.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := batches[0].Checkpoint(context.Background()); err != nil { // older: nothing happens
		t.Fatal(err)
	}
	stop(t, a)
	mu.Lock()
	batches = nil
	mu.Unlock()
	tl := newTally()
	b := newProc(t, e, "b", tl.handle, fast())
	waitFor(t, "redelivery", 10*time.Second, func() bool { return tl.distinct() == 20 })
	stop(t, b)
	for i := range 40 {
		if want := map[bool]int{true: 0, false: 1}[i < 20]; tl.seen[id(i)] != want {
			t.Errorf("%s delivered %d times after the handover, want %d", id(i), tl.seen[id(i)], want)
		}
	}
	if err := second.Checkpoint(context.Background()); !errors.Is(err, cosmoserr.ErrLeaseLost) {
		t.Errorf("Checkpoint after the lease moved: %v, want cosmoserr.ErrLeaseLost", err)
	}
	// Outside manual mode Checkpoint is refused.
	if err := (changefeed.Batch{}).Checkpoint(context.Background()); !errors.Is(err, cosmoserr.ErrNotCheckpointable) {
		t.Errorf("Checkpoint outside manual mode: %v", err)
	}
}

// EnsureLeases provisions the lease container partitioned by /id.
func TestEnsureLeases(t *testing.T) {
	e := newEnv(t, 1)
	tl := newTally()
	o := withLeases(e, "a", tl.handle, fast())
	o.Leases = changefeed.EnsureLeases(e.client, "db", "leases2")
	p, err := changefeed.New(e.monitored, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	write(t, e.monitored, doc{ID: "x", PK: "p"})
	waitFor(t, "the change", 10*time.Second, func() bool { return tl.distinct() == 1 })
	stop(t, p)
	c, _ := e.db.NewContainer("leases2")
	props, err := c.Read(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if paths := props.ContainerProperties.PartitionKeyDefinition.Paths; len(paths) != 1 || paths[0] != "/id" {
		t.Errorf("lease container partitioned by %v", paths)
	}
}

// EnsureLeases creates a missing database too, uses an existing lease container whose indexing
// policy is not the one it would create (before, that drift failed Start with a MismatchError),
// and refuses one not partitioned by /id.
func TestEnsureLeasesExisting(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, 1)
	lc := changefeed.EnsureLeases(e.client, "leasedb", "leases")
	props := azcosmos.ContainerProperties{ID: "drifted", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/id"}},
		IndexingPolicy: &azcosmos.IndexingPolicy{IndexingMode: azcosmos.IndexingModeConsistent, Automatic: true,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/payload/*"}}}}
	if _, err := e.db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	props.ID, props.PartitionKeyDefinition.Paths = "bypk", []string{"/pk"}
	if _, err := e.db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		leases  changefeed.LeaseContainer
		wantErr error
	}{
		{"new database", lc, nil},
		{"same again", lc, nil},
		{"other indexing", changefeed.EnsureLeases(e.client, "db", "drifted"), nil},
		{"other partition key", changefeed.EnsureLeases(e.client, "db", "bypk"), cosmoserr.ErrContainerMismatch},
	} {
		tl := newTally()
		o := withLeases(e, "p-"+strings.ReplaceAll(tt.name, " ", "-"), tl.handle, fast())
		o.Leases = tt.leases
		p, err := changefeed.New(e.monitored, o)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Start(ctx)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("%s: Start = %v, want %v", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: Start: %v", tt.name, err)
		}
		stop(t, p)
	}
}

// Deletes advance the partition's LSN without adding changes to the latest-version feed; the
// checkpoint follows, so a new owner does not re-read the empty stretch.
func TestEmptyPagesAdvanceTheCheckpoint(t *testing.T) {
	e := newEnv(t, 1)
	for i := range 10 {
		write(t, e.monitored, doc{ID: id(i), PK: "p", Seq: i})
	}
	tl := newTally()
	p := newProc(t, e, "a", tl.handle, fast())
	waitFor(t, "ten changes", 10*time.Second, func() bool { return tl.distinct() == 10 })
	var before string
	waitFor(t, "a checkpoint", 10*time.Second, func() bool {
		before = p.State()[0].ContinuationToken
		return before != ""
	})
	for i := range 5 {
		if _, err := e.monitored.DeleteItem(context.Background(), azPKString("p"), id(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the checkpoint to move past the deletes", 10*time.Second, func() bool {
		return p.State()[0].ContinuationToken != before
	})
	stop(t, p)
}

// StartFromTime starts at changes whose last write is at or after the time (the server's clock).
func TestStartFromTime(t *testing.T) {
	e := newEnv(t, 2)
	for i := range 20 {
		write(t, e.monitored, doc{ID: id(i), PK: id(i % 3), Seq: i})
	}
	e.srv.Advance(2 * time.Hour)
	for i := 20; i < 30; i++ {
		write(t, e.monitored, doc{ID: id(i), PK: id(i % 3), Seq: i})
	}
	tl := newTally()
	o := fast()
	o.StartFrom = changefeed.StartFromTime(time.Now().Add(time.Hour))
	if ts, ok := o.StartFrom.Time(); !ok || ts.IsZero() {
		t.Fatal("StartFromTime does not read back")
	}
	p := newProc(t, e, "a", tl.handle, o)
	waitFor(t, "ten changes", 10*time.Second, func() bool { return tl.distinct() == 10 })
	est := p.Estimator()
	waitFor(t, "lag 0", 10*time.Second, func() bool { n, err := est.Total(context.Background()); return err == nil && n == 0 })
	stop(t, p)
	for i := range 20 {
		if tl.seen[id(i)] != 0 {
			t.Fatalf("%s, written before the start time, was delivered", id(i))
		}
	}
}

// The lease container EnsureLeases creates is the one cosmoskit's defaults would create for
// ContainerSpec{PartitionKeyPaths: ["/id"], DisableTypeCompositeIndexes: true}: changefeed writes
// those properties out (it does not import cosmoskit), and this keeps the two from drifting apart.
func TestEnsureLeasesMatchesContainerSpec(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, 1)
	o := withLeases(e, "a", newTally().handle, fast())
	o.Leases = changefeed.EnsureLeases(e.client, "db", "leases3")
	p, err := changefeed.New(e.monitored, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	stop(t, p)
	c, _ := e.db.NewContainer("leases3")
	got, err := c.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := cosmoskit.ContainerSpec{ID: "leases3", PartitionKeyPaths: []string{"/id"}, DisableTypeCompositeIndexes: true}.Properties()
	if err != nil {
		t.Fatal(err)
	}
	g := got.ContainerProperties
	// The service answers the indexing mode in lower case ("consistent"); azcosmos's constant is
	// "Consistent".
	gi, wi := *g.IndexingPolicy, *want.IndexingPolicy
	gi.IndexingMode, wi.IndexingMode = azcosmos.IndexingMode(strings.ToLower(string(gi.IndexingMode))), azcosmos.IndexingMode(strings.ToLower(string(wi.IndexingMode)))
	g.IndexingPolicy, want.IndexingPolicy = &gi, &wi
	if !reflect.DeepEqual(g.PartitionKeyDefinition, want.PartitionKeyDefinition) {
		t.Errorf("partition key %+v, cosmoskit would create %+v", g.PartitionKeyDefinition, want.PartitionKeyDefinition)
	}
	if !reflect.DeepEqual(g.IndexingPolicy, want.IndexingPolicy) {
		t.Errorf("indexing policy %+v, cosmoskit would create %+v", g.IndexingPolicy, want.IndexingPolicy)
	}
	if !reflect.DeepEqual(g.ConflictResolutionPolicy, want.ConflictResolutionPolicy) {
		t.Errorf("conflict resolution %+v, cosmoskit would create %+v", g.ConflictResolutionPolicy, want.ConflictResolutionPolicy)
	}
}
