package cosmoskit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// writeThenRead runs pairs sequential write-then-read pairs through one client that prefers a
// region lagging the write region by lag (real time), and returns how long they took, how many
// reads saw an older value, and how many reads the write region served.
func writeThenRead(tb testing.TB, pairs int, lag time.Duration, ro retry.Options) (took time.Duration, stale, fromWriteRegion int) {
	tb.Helper()
	s := cosmostest.NewServer(tb, cosmostest.WithRegions("West US", "East US"), cosmostest.WithReplicationLag(lag))
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.RegionEndpoint("East US"), Key: s.Key(), Logger: quiet,
		PreferredRegions: []string{"East US", "West US"}, Retry: ro})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	ctx := context.Background()
	ccRes, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}})
	if err != nil {
		tb.Fatal(err)
	}
	cc := ccRes.Container
	pk := azcosmos.NewPartitionKeyString("p")
	west := cosmostest.RequestFilter{Region: "West US", Operation: cosmostest.OpReadItem}
	before := s.Requests(west)
	start := time.Now()
	for i := range pairs {
		if _, err := cc.UpsertItem(ctx, pk, fmt.Appendf(nil, `{"id":"1","pk":"p","v":%d}`, i), nil); err != nil {
			tb.Fatal(err)
		}
		r, err := cc.ReadItem(ctx, pk, "1", nil)
		if err != nil {
			tb.Fatal(err)
		}
		var got struct{ V int }
		if err := json.Unmarshal(r.Value, &got); err != nil {
			tb.Fatal(err)
		}
		if got.V != i {
			stale++
		}
	}
	return time.Since(start), stale, s.Requests(west) - before
}

// TestReadYourWritesGoesToTheWriteRegion: with the defaults, each read after a write in a region
// 300 ms behind is answered by the write region at once (one extra round trip), never stale. It
// reports the time of 40 pairs (no timed assertion); BenchmarkReadYourWritesUnderLag compares it
// with the in-region wait.
func TestReadYourWritesGoesToTheWriteRegion(t *testing.T) {
	const pairs = 40
	took, stale, fromWrite := writeThenRead(t, pairs, 300*time.Millisecond, retry.Options{})
	t.Logf("%d write-then-read pairs, 300 ms lag, defaults: %v (%d stale, %d reads by the write region)", pairs, took, stale, fromWrite)
	if stale != 0 {
		t.Errorf("%d stale reads", stale)
	}
	if fromWrite != pairs {
		t.Errorf("the write region served %d reads, want %d (each read goes there at once)", fromWrite, pairs)
	}
}

// BenchmarkReadYourWritesUnderLag measures 40 sequential write-then-read pairs with two regions
// and 300 ms of replication lag, by default (404/1002 to the write region at once) and with the
// in-region wait (SessionRetry.MaxWait 500 ms). One op is 40 pairs.
func BenchmarkReadYourWritesUnderLag(b *testing.B) {
	for _, bc := range []struct {
		name string
		ro   retry.Options
	}{
		{"defaults", retry.Options{}},
		{"in-region-wait-500ms", retry.Options{SessionRetry: retry.BackoffOptions{MaxWait: 500 * time.Millisecond}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var stale, n int
			var took time.Duration
			for b.Loop() {
				d, s, _ := writeThenRead(b, 40, 300*time.Millisecond, bc.ro)
				took += d
				stale += s
				n++
			}
			b.ReportMetric(float64(took.Milliseconds())/float64(n), "ms/40pairs")
			b.ReportMetric(float64(stale), "stale")
		})
	}
}
