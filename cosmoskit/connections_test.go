package cosmoskit_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// openConns counts the connections cosmoskit's transports hold open, and the most at once.
type openConns struct {
	host      string // only connections to this host:port count
	mu        sync.Mutex
	open, max int
}

func (o *openConns) wrap(c net.Conn) net.Conn {
	if c.RemoteAddr().String() != o.host {
		return c
	}
	o.mu.Lock()
	o.open++
	o.max = max(o.max, o.open)
	o.mu.Unlock()
	return &countedConn{Conn: c, o: o}
}

func (o *openConns) most() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.max
}

type countedConn struct {
	net.Conn
	o    *openConns
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.o.mu.Lock()
		c.o.open--
		c.o.mu.Unlock()
	})
	return c.Conn.Close()
}

// dialCounter counts the connections the client's transport dials, through an httptrace in the
// request context.
type dialCounter struct{ n atomic.Int64 }

func (d *dialCounter) ctx(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{ConnectDone: func(_, _ string, err error) {
		if err == nil {
			d.n.Add(1)
		}
	}})
}

func oneRegion(t testing.TB, cfg cosmoskit.Config) (*cosmostest.Server, *cosmoskit.Client, *azcosmos.ContainerClient) {
	t.Helper()
	s := cosmostest.NewServer(t)
	c, cc := clientOn(t, s, cfg)
	return s, c, cc
}

func clientOn(t testing.TB, s *cosmostest.Server, cfg cosmoskit.Config) (*cosmoskit.Client, *azcosmos.ContainerClient) {
	t.Helper()
	cfg.Endpoint, cfg.Key, cfg.Logger = s.Endpoint(), s.Key(), quiet
	c, err := cosmoskit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ccRes, err := c.EnsureContainer(context.Background(), "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}})
	if err != nil {
		t.Fatal(err)
	}
	cc := ccRes.Container
	if _, err := cc.UpsertItem(context.Background(), azcosmos.NewPartitionKeyString("a"), []byte(`{"id":"1","pk":"a"}`), nil); err != nil {
		t.Fatal(err)
	}
	return c, cc
}

// TestTenThousandCallersAgainstPermanentThrottling: 10,000 concurrent reads against a server that
// answers every read 429 end with the throttle budget held (each an ErrThrottled after exactly
// 1 + MaxRetries attempts) and no transport error, because the transport New builds opens at most
// Connections.MaxPerHost (50) connections and queues the rest. (Before, with no cap, the transport
// opened a connection per waiting call: thousands of dials, and "too many open files".)
func TestTenThousandCallersAgainstPermanentThrottling(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("10,000 concurrent callers take 20-40 s on a 2-core machine (minutes with -race); not with -short or -race")
	}
	const callers, retries = 10_000, 1
	s := cosmostest.NewServer(t)
	conns := &openConns{host: strings.TrimSuffix(strings.TrimPrefix(s.Endpoint(), "https://"), "/")}
	cosmoskit.SetDialWrap(conns.wrap)
	t.Cleanup(func() { cosmoskit.SetDialWrap(nil) })
	c, cc := clientOn(t, s, cosmoskit.Config{Retry: retry.Options{Throttle: retry.ThrottleOptions{MaxRetries: retries}}})
	if got := c.Connections(); got != (cosmoskit.ConnectionOptions{MaxPerHost: cosmoskit.DefaultMaxConnsPerHost}) {
		t.Fatalf("Connections() = %+v, want the default cap", got)
	}
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem,
		Status: http.StatusTooManyRequests, RetryAfter: time.Millisecond})
	var dials dialCounter
	ctx, cancel := context.WithTimeout(dials.ctx(context.Background()), 5*time.Minute)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		other    []string
		overrun  atomic.Int64
		throttle atomic.Int64
	)
	start := time.Now()
	for range callers {
		wg.Go(func() {
			_, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("a"), "1", nil)
			var de *cosmoserr.Error
			switch {
			case errors.Is(err, cosmoserr.ErrThrottled) && errors.As(err, &de):
				throttle.Add(1)
				if de.Attempts != 1+retries {
					overrun.Add(1)
				}
			default:
				mu.Lock()
				if len(other) < 5 {
					other = append(other, fmt.Sprint(err))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("%d callers: %v, %d dials, at most %d connections open, %d requests served", callers, time.Since(start), dials.n.Load(), conns.most(),
		s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReadItem}))
	if n := throttle.Load(); n != callers {
		t.Errorf("%d of %d calls ended ErrThrottled; others, e.g.: %q", n, callers, other)
	}
	if n := overrun.Load(); n != 0 {
		t.Errorf("%d calls made other than %d attempts: the budget was not held", n, 1+retries)
	}
	if n := conns.most(); n > cosmoskit.DefaultMaxConnsPerHost {
		t.Errorf("%d connections open at once to one host, want at most %d", n, cosmoskit.DefaultMaxConnsPerHost)
	}
}

func TestConnectionOptionsRefused(t *testing.T) {
	_, err := cosmoskit.New(cosmoskit.Config{Endpoint: "https://localhost:8081/", Key: "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
		Connections: cosmoskit.ConnectionOptions{MaxPerHost: -1}, Logger: quiet})
	var ce *cosmoserr.ValidationError
	if !errors.As(err, &ce) || ce.Field != "Config.Connections.MaxPerHost" {
		t.Fatalf("New = %v, want a *cosmoserr.ValidationError naming Config.Connections.MaxPerHost", err)
	}
}

// BenchmarkConcurrentCallers is the curve of docs/performance.md: n callers each make one point
// read at once through one client (healthy one-region cosmostest, in process, TLS), with the
// default cap of 50 connections per host and without a cap. Metrics per op: reads/s, p99 latency,
// errors and connections dialled. Run with -benchtime 1x.
func BenchmarkConcurrentCallers(b *testing.B) {
	for _, capped := range []bool{true, false} {
		for _, n := range []int{10, 100, 1000, 10_000} {
			name := fmt.Sprintf("cap=50/callers=%d", n)
			cfg := cosmoskit.Config{}
			if !capped {
				name = fmt.Sprintf("uncapped/callers=%d", n)
				cfg.Connections.Disable = true
			}
			b.Run(name, func(b *testing.B) {
				_, _, cc := oneRegion(b, cfg)
				var dials dialCounter
				ctx := dials.ctx(context.Background())
				var errs atomic.Int64
				var lat []time.Duration
				var took time.Duration
				for b.Loop() {
					lat = lat[:0]
					var mu sync.Mutex
					var wg sync.WaitGroup
					start := time.Now()
					for range n {
						wg.Go(func() {
							t0 := time.Now()
							_, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("a"), "1", nil)
							d := time.Since(t0)
							if err != nil {
								errs.Add(1)
							}
							mu.Lock()
							lat = append(lat, d)
							mu.Unlock()
						})
					}
					wg.Wait()
					took += time.Since(start)
				}
				slices.Sort(lat)
				b.ReportMetric(float64(n*b.N)/took.Seconds(), "reads/s")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(errs.Load()), "errors")
				b.ReportMetric(float64(dials.n.Load()), "dials")
			})
		}
	}
}
