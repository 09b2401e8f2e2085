package cosmostest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func lockTestClient(tb testing.TB, s *Server) *azcosmos.Client {
	tb.Helper()
	c, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestReadsDoNotWaitBehindAQuery: while a query is executing (parked by the test hook), point
// reads of the same and of another container, a write and another query are served. Before
// queries ran without the server lock, the first read waited for the query to finish, here
// forever: the one-minute guard below only turns that deadlock into a failure, it measures nothing.
func TestReadsDoNotWaitBehindAQuery(t *testing.T) {
	s := NewServer(t)
	for _, c := range []string{"big", "small"} {
		if err := s.CreateContainer("db", c, "/pk"); err != nil {
			t.Fatal(err)
		}
		if err := s.Seed("db", c, map[string]any{"id": "1", "pk": "a"}); err != nil {
			t.Fatal(err)
		}
	}
	parked, release := make(chan struct{}), make(chan struct{})
	var parkedOnce atomic.Bool
	s.s.mu.Lock()
	s.s.onQuery = func() {
		if parkedOnce.CompareAndSwap(false, true) { // only the first query parks
			close(parked)
			<-release
		}
	}
	s.s.mu.Unlock()
	cl := lockTestClient(t, s)
	big, _ := cl.NewContainer("db", "big")
	small, _ := cl.NewContainer("db", "small")
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("a")
	queryDone := make(chan error, 1)
	go func() {
		_, err := big.NewQueryItemsPager("SELECT * FROM c", pk, nil).NextPage(ctx)
		queryDone <- err
	}()
	<-parked
	done := make(chan error, 1)
	go func() {
		for _, step := range []func() error{
			func() error { _, err := small.ReadItem(ctx, pk, "1", nil); return err },
			func() error { _, err := big.ReadItem(ctx, pk, "1", nil); return err },
			func() error { _, err := big.UpsertItem(ctx, pk, []byte(`{"id":"2","pk":"a"}`), nil); return err },
			func() error { _, err := small.NewQueryItemsPager("SELECT * FROM c", pk, nil).NextPage(ctx); return err },
		} {
			if err := step(); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		close(release)
		t.Fatal("a read waited behind another request's query")
	}
	close(release)
	if err := <-queryDone; err != nil {
		t.Fatal(err)
	}
}

// BenchmarkReadDuringHeavyQuery: point reads of one container while queries with a 4-way self
// JOIN run over another in a loop. Before queries ran without the lock, each read waited for the
// query in progress.
func BenchmarkReadDuringHeavyQuery(b *testing.B) {
	s, err := Start(WithHTTP())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, c := range []string{"big", "small"} {
		if err := s.CreateContainer("db", c, "/pk"); err != nil {
			b.Fatal(err)
		}
	}
	var docs []any
	for i := range 40 {
		docs = append(docs, map[string]any{"id": fmt.Sprint(i), "pk": "a", "tags": []int{1, 2, 3, 4, 5, 6, 7, 8}})
	}
	if err := s.Seed("db", "big", docs...); err != nil {
		b.Fatal(err)
	}
	if err := s.Seed("db", "small", map[string]any{"id": "1", "pk": "a"}); err != nil {
		b.Fatal(err)
	}
	cl := lockTestClient(b, s)
	big, _ := cl.NewContainer("db", "big")
	small, _ := cl.NewContainer("db", "small")
	ctx, cancel := context.WithCancel(context.Background())
	pk := azcosmos.NewPartitionKeyString("a")
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for ctx.Err() == nil {
			_, _ = big.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c JOIN a IN c.tags JOIN b IN c.tags JOIN d IN c.tags JOIN e IN c.tags", pk, nil).NextPage(ctx)
		}
	}()
	b.ResetTimer()
	for range b.N {
		if _, err := small.ReadItem(ctx, pk, "1", nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cancel()
	<-stopped
}
