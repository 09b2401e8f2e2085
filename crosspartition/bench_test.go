package crosspartition

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"golang.org/x/sync/errgroup"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

const benchDocs = 20_000

var (
	benchOnce sync.Once
	benchX    map[int]*Container
	benchRaw  map[int]*azcosmos.ContainerClient // the same containers, for plain azcosmos queries
	benchSrv  map[int]*cosmostest.Server        // their servers, for request counts
	benchErr  error
	// benchServers are closed by TestMain.
	benchServers []*cosmostest.Server
)

// benchContainers returns containers with 1 and 8 physical partitions holding the same 20,000
// documents (spread over 1,000 logical partitions). The servers live for the whole benchmark run.
func benchContainers(b *testing.B) map[int]*Container {
	b.Helper()
	benchOnce.Do(func() {
		benchX, benchRaw, benchSrv = map[int]*Container{}, map[int]*azcosmos.ContainerClient{}, map[int]*cosmostest.Server{}
		for _, n := range []int{1, 8} {
			s, err := cosmostest.Start(cosmostest.WithPartitionCount(n), cosmostest.WithHTTP())
			if err != nil {
				benchErr = err
				return
			}
			benchServers = append(benchServers, s)
			benchSrv[n] = s
			client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
			if err != nil {
				benchErr = err
				return
			}
			ctx := context.Background()
			if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
				benchErr = err
				return
			}
			db, _ := client.NewDatabase("db")
			props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}}
			if _, err := db.CreateContainer(ctx, props, nil); err != nil {
				benchErr = err
				return
			}
			c, _ := db.NewContainer("c")
			benchRaw[n] = c
			g, gctx := errgroup.WithContext(ctx)
			g.SetLimit(16)
			for i := range benchDocs {
				g.Go(func() error {
					doc, _ := json.Marshal(map[string]any{"id": fmt.Sprint("d", i), "pk": fmt.Sprint("p", i%1000), "n": (i * 7919) % benchDocs, "s": fmt.Sprint("name-", i%97)})
					_, err := c.UpsertItem(gctx, azcosmos.NewPartitionKeyString(fmt.Sprint("p", i%1000)), doc, nil)
					return err
				})
			}
			if benchErr = g.Wait(); benchErr != nil {
				return
			}
			benchX[n], benchErr = New(c, Options{})
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchX
}

func benchQuery(b *testing.B, query string, want int) {
	xs := benchContainers(b)
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprintf("partitions=%d", n), func(b *testing.B) {
			x := xs[n]
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				p := x.NewQueryItemsPager(query, &azcosmos.QueryOptions{PageSizeHint: 100})
				got := 0
				for p.More() {
					resp, err := p.NextPage(ctx)
					if err != nil {
						b.Fatal(err)
					}
					got += len(resp.Items)
				}
				if got != want {
					b.Fatalf("%d rows, want %d", got, want)
				}
			}
		})
	}
}

// BenchmarkOrderByTop100: the 100 largest of 20,000 documents, on 1 and on 8 physical partitions.
func BenchmarkOrderByTop100(b *testing.B) {
	benchQuery(b, "SELECT TOP 100 c.id, c.n FROM c ORDER BY c.n DESC", 100)
}

// BenchmarkCount: SELECT VALUE COUNT(1) over 20,000 documents, on 1 and on 8 physical partitions.
func BenchmarkCount(b *testing.B) {
	benchQuery(b, "SELECT VALUE COUNT(1) FROM c", 1)
}

// BenchmarkOrderByTop1000: ten pages of 100, to compare allocations with TOP 100: they grow
// with the rows returned.
func BenchmarkOrderByTop1000(b *testing.B) {
	benchQuery(b, "SELECT TOP 1000 c.id, c.n FROM c ORDER BY c.n DESC", 1000)
}

// BenchmarkRowsPerQuery compares allocations per returned row: TOP 100 and TOP 1000 ordered rows
// through the engine on 1 and 8 physical partitions against the same projection read by plain azcosmos
// on 1 physical partition (one range, the gateway's own query, no engine). Allocations per row are
// the difference between the TOP 1000 and TOP 100 figures divided by 900.
func BenchmarkRowsPerQuery(b *testing.B) {
	benchContainers(b)
	for _, top := range []int{100, 1000} {
		q := fmt.Sprintf("SELECT TOP %d c.id, c.n FROM c ORDER BY c.n DESC", top)
		for _, n := range []int{1, 8} {
			b.Run(fmt.Sprintf("engine/partitions=%d/top=%d", n, top), func(b *testing.B) {
				benchPager(b, context.Background(), top, func() pager { return benchX[n].NewQueryItemsPager(q, &azcosmos.QueryOptions{PageSizeHint: 100}) })
			})
		}
		b.Run(fmt.Sprintf("azcosmos/partitions=1/top=%d", top), func(b *testing.B) {
			// The gateway serves a query without a partition key only when it targets one
			// range: the partition key range id header, as the engine sends it.
			benchPager(b, inRange(context.Background(), "0"), top, func() pager {
				return benchRaw[1].NewQueryItemsPager(q, azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{PageSizeHint: 100})
			})
		})
	}
}

type pager interface {
	More() bool
	NextPage(context.Context) (azcosmos.QueryItemsResponse, error)
}

func benchPager(b *testing.B, ctx context.Context, want int, newPager func() pager) {
	b.ReportAllocs()
	for b.Loop() {
		p := newPager()
		got := 0
		for p.More() {
			resp, err := p.NextPage(ctx)
			if err != nil {
				b.Fatal(err)
			}
			got += len(resp.Items)
		}
		if got != want {
			b.Fatalf("%d rows, want %d", got, want)
		}
	}
}

// BenchmarkPassthrough reads the 20 documents of one logical partition in ORDER BY order on 8
// physical partitions: through one pager (page size 100: one page), and page by page (page size 5),
// each page from the previous page's token in a new pager, as a web service pages. The query is
// passed through to the range holding the partition (passthrough.go); requests/op counts the
// query requests (the plan is cached after the first).
func BenchmarkPassthrough(b *testing.B) {
	xs := benchContainers(b)
	const q = "SELECT c.id, c.n FROM c WHERE c.pk = 'p7' ORDER BY c.n DESC"
	for _, size := range []int32{100, 5} {
		name := "pager"
		if size == 5 {
			name = "resumed"
		}
		b.Run(name, func(b *testing.B) {
			x, s := xs[8], benchSrv[8]
			ctx := context.Background()
			b.ReportAllocs()
			s.ResetRequests()
			for b.Loop() {
				var tok *string
				got := 0
				for {
					p := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{PageSizeHint: size, ContinuationToken: tok})
					resp, err := p.NextPage(ctx)
					if err != nil {
						b.Fatal(err)
					}
					got += len(resp.Items)
					if tok = resp.ContinuationToken; tok == nil {
						break
					}
				}
				if got != 20 {
					b.Fatalf("%d rows, want 20", got)
				}
			}
			b.ReportMetric(float64(s.Requests(cosmostest.RequestFilter{ResourceType: cosmostest.ResourceDocument}))/float64(b.N), "requests/op")
		})
	}
}
