package cosmostest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// seedBench upserts n documents into logical partition pk with transactional batches of 100,
// several batches at a time: {"id", "pk", "category": i%10, "price": a spread of values, "name"}.
func seedBench(b *testing.B, cc *azcosmos.ContainerClient, pk string, n int) {
	b.Helper()
	ctx := context.Background()
	const perBatch, workers = 100, 8
	batches := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for start := range batches {
				batch := cc.NewTransactionalBatch(azcosmos.NewPartitionKeyString(pk))
				for i := start; i < min(start+perBatch, n); i++ {
					batch.UpsertItem(fmt.Appendf(nil, `{"id":"d%06d","pk":%q,"category":%d,"price":%.2f,"name":"item %d"}`,
						i, pk, i%10, float64(i*7919%100000)/100, i), nil)
				}
				resp, err := cc.ExecuteTransactionalBatch(ctx, batch, nil)
				if err == nil && !resp.Success {
					err = fmt.Errorf("batch at %d failed", start)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for start := 0; start < n; start += perBatch {
		select {
		case batches <- start:
		case err := <-errs:
			close(batches)
			wg.Wait()
			b.Fatal(err)
		}
	}
	close(batches)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}

// BenchmarkQueryOrderedFilter100k reads the first page (20 items) of a filtered, ordered query over
// 100,000 documents in one logical partition through azcosmos: ordered by one key without a composite
// index (every page filters and sorts the partition), by two keys with their composite index (the server walks its index),
// and with one right after a write (the server re-reads the partition and scans it).
func BenchmarkQueryOrderedFilter100k(b *testing.B) {
	if testing.Short() {
		b.Skip("seeds 100,000 documents")
	}
	s := cosmostest.NewServer(b)
	cc := benchQueryContainer(b, s)
	seedBench(b, cc, "bench", 100_000)
	const q = "SELECT * FROM c WHERE c.category = @cat ORDER BY c.price DESC, c.id ASC"
	opts := &azcosmos.QueryOptions{PageSizeHint: 20, QueryParameters: []azcosmos.QueryParameter{{Name: "@cat", Value: 3}}}
	pk := azcosmos.NewPartitionKeyString("bench")
	// The first query over an item decodes it once (the engine's ordered form); do it before timing.
	if _, err := cc.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c", pk, nil).NextPage(context.Background()); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B) {
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			resp, err := cc.NewQueryItemsPager(q, pk, opts).NextPage(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if len(resp.Items) != 20 || resp.ContinuationToken == nil {
				b.Fatalf("%d items, continuation %v", len(resp.Items), resp.ContinuationToken)
			}
		}
	}
	// Without the composite index the two-key ORDER BY is refused (400, as on the service), so the
	// unindexed case orders by one key: every page filters and sorts the partition.
	b.Run("NoCompositeIndex", func(b *testing.B) {
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			resp, err := cc.NewQueryItemsPager("SELECT * FROM c WHERE c.category = @cat ORDER BY c.price DESC", pk, opts).NextPage(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if len(resp.Items) != 20 || resp.ContinuationToken == nil {
				b.Fatalf("%d items, continuation %v", len(resp.Items), resp.ContinuationToken)
			}
		}
	})
	props, err := cc.Read(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	cp := *props.ContainerProperties
	cp.IndexingPolicy = &azcosmos.IndexingPolicy{
		Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
		IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
		CompositeIndexes: [][]azcosmos.CompositeIndex{{
			{Path: "/price", Order: azcosmos.CompositeIndexDescending},
			{Path: "/id", Order: azcosmos.CompositeIndexAscending},
		}},
	}
	if _, err := cc.Replace(context.Background(), cp, nil); err != nil {
		b.Fatal(err)
	}
	b.Run("CompositeIndex", run)
	// Every write invalidates the server's copy of the partition and its indexes: the first page
	// after one re-reads the partition and scans it (an index is built when a second query wants it).
	b.Run("CompositeIndexAfterWrite", func(b *testing.B) {
		ctx := context.Background()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			body := fmt.Appendf(nil, `{"id":"w%06d","pk":"bench","category":1,"price":1}`, i)
			if _, err := cc.UpsertItem(ctx, pk, body, nil); err != nil {
				b.Fatal(err)
			}
			resp, err := cc.NewQueryItemsPager(q, pk, opts).NextPage(ctx)
			if err != nil || len(resp.Items) != 20 {
				b.Fatalf("%v, %d items", err, len(resp.Items))
			}
		}
	})
}

func benchQueryContainer(b *testing.B, s *cosmostest.Server) *azcosmos.ContainerClient {
	b.Helper()
	c, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		b.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "q", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		b.Fatal(err)
	}
	cc, _ := db.NewContainer("q")
	return cc
}
