package cosmostest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// seedBatches stores n items (ids 0..n-1, pk "p") with batches of 100.
func seedBatches(b *testing.B, cc *azcosmos.ContainerClient, n int) {
	b.Helper()
	pk := azcosmos.NewPartitionKeyString("p")
	for start := 0; start < n; start += 100 {
		batch := cc.NewTransactionalBatch(pk)
		for i := start; i < min(start+100, n); i++ {
			batch.UpsertItem(fmt.Appendf(nil, `{"id":"%d","pk":"p","payload":"0123456789abcdef"}`, i), nil)
		}
		resp, err := cc.ExecuteTransactionalBatch(context.Background(), batch, nil)
		if err != nil || !resp.Success {
			b.Fatalf("seed: %v", err)
		}
	}
}

// BenchmarkBatch10Upserts: a batch of 10 upserts into a range that already holds 10,000 items
// (the batch works on a copy of the range, so its size matters).
func BenchmarkBatch10Upserts(b *testing.B) {
	cc := benchContainer(b)
	seedBatches(b, cc, 10000)
	pk := azcosmos.NewPartitionKeyString("p")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		batch := cc.NewTransactionalBatch(pk)
		for j := range 10 {
			batch.UpsertItem(fmt.Appendf(nil, `{"id":"%d","pk":"p","payload":"x"}`, (i*10+j)%10000), nil)
		}
		if resp, err := cc.ExecuteTransactionalBatch(ctx, batch, nil); err != nil || !resp.Success {
			b.Fatal(err)
		}
	}
}

// BenchmarkChangeFeedPage: the first page (100 changes) of the change feed of 10,000 items.
func BenchmarkChangeFeedPage(b *testing.B) {
	cc := benchContainer(b)
	seedBatches(b, cc, 10000)
	ctx := context.Background()
	opts := &azcosmos.ChangeFeedOptions{FeedRange: &azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := cc.ReadChangeFeed(ctx, opts)
		if err != nil || resp.Count != 100 {
			b.Fatalf("%d changes, %v", resp.Count, err)
		}
	}
}
