package consistency_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

var quiet = slog.New(slog.DiscardHandler)

// catchUpClock is the reader's retry clock: its first wait lets East US catch up (the replica
// applies what it was lagging behind), so a test can watch the in-region session retry succeed
// without sleeping.
type catchUpClock struct {
	s    *cosmostest.Server
	once sync.Once
	mu   sync.Mutex
	n    int
}

func (c *catchUpClock) Now() time.Time { return time.Now() }

func (c *catchUpClock) Sleep(ctx context.Context, _ time.Duration) error {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	c.once.Do(func() { _ = c.s.SetReplicationLag("East US", 0) }) // a known region
	return ctx.Err()
}

func (c *catchUpClock) sleeps() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// lagged is a two-region server (West US writes) whose East US copy lags by an hour of server
// time, so nothing reaches it unless the test says so, with container db/c and item "1" at v1
// replicated everywhere.
func lagged(t *testing.T) *cosmostest.Server {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"), cosmostest.WithReplicationLag(time.Hour))
	return s
}

type item struct {
	ID string `json:"id"`
	PK string `json:"pk"`
	V  int    `json:"v"`
}

func readV(t *testing.T, ctx context.Context, c *azcosmos.ContainerClient) (int, error) {
	t.Helper()
	r, err := c.ReadItem(ctx, pk, "1", nil)
	if err != nil {
		return 0, err
	}
	var it item
	if err := json.Unmarshal(r.Value, &it); err != nil {
		t.Fatal(err)
	}
	return it.V, nil
}

// instances returns two cosmoskit clients, as two instances of a service would have: the writer
// on the account endpoint preferring West US, the reader preferring East US (on East US's
// endpoint: one process shares one client per account endpoint and identity, and two
// instances do not share a process).
func instances(t *testing.T, s *cosmostest.Server, readerRetry retry.Options) (writer, reader *azcosmos.ContainerClient) {
	t.Helper()
	w, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), PreferredRegions: []string{"West US", "East US"}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	r, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.RegionEndpoint("East US"), Key: s.Key(),
		PreferredRegions: []string{"East US", "West US"}, Retry: readerRetry, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if w.Cosmos() == r.Cosmos() {
		t.Fatal("the two instances share one azcosmos client")
	}
	ctx := context.Background()
	res, err := w.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}})
	if err != nil {
		t.Fatal(err)
	}
	writer = res.Container
	if _, err := writer.UpsertItem(ctx, pk, []byte(`{"id":"1","pk":"p","v":1}`), nil); err != nil {
		t.Fatal(err)
	}
	s.Advance(2 * time.Hour) // v1 reaches East US
	reader, err = r.Container("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := readV(t, ctx, reader); err != nil || v != 1 {
		t.Fatalf("the reader's first read: v%d, %v; want v1", v, err)
	}
	return writer, reader
}

// TestHandOffAcrossInstancesUnderLag is issue 16's hand-off: a write through one instance, a
// read through another in the lagging region. Without the token the read sees the old value
// (the lag is real); with the token captured by the writer it sees the new one.
func TestHandOffAcrossInstancesUnderLag(t *testing.T) {
	s := lagged(t)
	// The reader waits 30 ms at most in East US, then azcosmos reads the write region.
	writer, reader := instances(t, s, retry.Options{SessionRetry: retry.BackoffOptions{MaxWait: 30 * time.Millisecond}})
	wctx, session := consistency.Capture(context.Background())
	if _, err := writer.UpsertItem(wctx, pk, []byte(`{"id":"1","pk":"p","v":2}`), nil); err != nil {
		t.Fatal(err)
	}
	token := session.Token("db", "c")
	if token == "" {
		t.Fatal("no token captured")
	}

	if v, err := readV(t, context.Background(), reader); err != nil || v != 1 {
		t.Fatalf("without the token: v%d, %v; want the old v1 (East US lags)", v, err)
	}
	ctx, err := consistency.WithSessionToken(context.Background(), "db", "c", token)
	if err != nil {
		t.Fatal(err)
	}
	before := s.Requests(cosmostest.RequestFilter{Region: "West US", Operation: cosmostest.OpReadItem})
	if v, err := readV(t, ctx, reader); err != nil || v != 2 {
		t.Fatalf("with the token: v%d, %v; want v2", v, err)
	}
	if n := s.Requests(cosmostest.RequestFilter{Region: "West US", Operation: cosmostest.OpReadItem}) - before; n != 1 {
		t.Errorf("%d reads in West US; want the SDK's one write-region retry after East US answered 404/1002", n)
	}
	// Relaxed to Eventual, the same read may be stale: the token is not sent.
	ectx, err := consistency.WithLevel(ctx, azcosmos.ConsistencyLevelEventual)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := readV(t, ectx, reader); err != nil || v != 1 {
		t.Errorf("Eventual, with the token in the context: v%d, %v; want the region's v1", v, err)
	}
}

// TestHandOffWaitsInTheRegion: with the token and SessionRetry.MaxWait (the in-region wait is an
// option; by default a 404/1002 goes to the write region at once), the reader's in-region session
// retry waits for East US to catch up and is served there, never going to the write region.
func TestHandOffWaitsInTheRegion(t *testing.T) {
	s := lagged(t)
	clock := &catchUpClock{s: s}
	writer, reader := instances(t, s, retry.Options{Clock: clock, SessionRetry: retry.BackoffOptions{MaxWait: 500 * time.Millisecond}})
	wctx, session := consistency.Capture(context.Background())
	if _, err := writer.UpsertItem(wctx, pk, []byte(`{"id":"1","pk":"p","v":2}`), nil); err != nil {
		t.Fatal(err)
	}
	ctx, err := consistency.WithSessionToken(context.Background(), "db", "c", session.Token("db", "c"))
	if err != nil {
		t.Fatal(err)
	}
	west := cosmostest.RequestFilter{Region: "West US", Operation: cosmostest.OpReadItem}
	before := s.Requests(west)
	if v, err := readV(t, ctx, reader); err != nil || v != 2 {
		t.Fatalf("with the token: v%d, %v; want v2", v, err)
	}
	if n := s.Requests(west) - before; n != 0 {
		t.Errorf("%d reads went to West US; want East US to serve after catching up", n)
	}
	if clock.sleeps() == 0 {
		t.Error("the reader never waited in East US")
	}
}

// TestLevelStrongerThanAccount: the server refuses a level stronger than the account's (Session);
// the policy reports it as a LevelError.
func TestLevelStrongerThanAccount(t *testing.T) {
	s := lagged(t)
	_, reader := instances(t, s, retry.Options{})
	ctx, err := consistency.WithLevel(context.Background(), azcosmos.ConsistencyLevelStrong)
	if err != nil {
		t.Fatal(err)
	}
	_, err = readV(t, ctx, reader)
	var le *consistency.LevelError
	if !errors.As(err, &le) || le.Account != azcosmos.ConsistencyLevelSession {
		t.Fatalf("err = %v, want a LevelError against the account's Session", err)
	}
}

// TestReadYourWritesOneClient: one cosmoskit client that writes in West US and reads in the
// lagging East US reads its own write, thanks to the session container alone; without it
// (Session.Disable) it reads the old value.
func TestReadYourWritesOneClient(t *testing.T) {
	for _, disable := range []bool{false, true} {
		s := lagged(t)
		c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), PreferredRegions: []string{"East US", "West US"},
			Session: consistency.Options{Disable: disable}, Retry: retry.Options{SessionRetry: retry.BackoffOptions{MaxWait: 30 * time.Millisecond}}, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		ccRes, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}})
		if err != nil {
			t.Fatal(err)
		}
		cc := ccRes.Container
		if _, err := cc.UpsertItem(ctx, pk, []byte(`{"id":"1","pk":"p","v":1}`), nil); err != nil {
			t.Fatal(err)
		}
		s.Advance(2 * time.Hour)
		if _, err := cc.UpsertItem(ctx, pk, []byte(`{"id":"1","pk":"p","v":2}`), nil); err != nil {
			t.Fatal(err)
		}
		want := 2
		if disable {
			want = 1
		}
		if v, err := readV(t, ctx, cc); err != nil || v != want {
			t.Errorf("Session.Disable %v: read v%d, %v; want v%d", disable, v, err, want)
		}
		c.Close()
	}
}
