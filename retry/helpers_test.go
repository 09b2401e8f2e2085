package retry_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

var docReads = cosmostest.RequestFilter{Operation: cosmostest.OpReadItem}

func regionReads(region string) cosmostest.RequestFilter {
	f := docReads
	f.Region = region
	return f
}

// sent is one HTTP attempt as the transport saw it.
type sent struct {
	method, path, host string
	status             int
	err                error
}

// recorder is a transport that records every attempt the client makes, around the server's own
// transport.
type recorder struct {
	next policy.Transporter
	mu   sync.Mutex
	log  []sent
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := r.next.Do(req)
	s := sent{method: req.Method, path: req.URL.Path, host: req.URL.Host, err: err}
	if resp != nil {
		s.status = resp.StatusCode
	}
	r.mu.Lock()
	r.log = append(r.log, s)
	r.mu.Unlock()
	return resp, err
}

func (r *recorder) attempts() []sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sent(nil), r.log...)
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.log = nil
	r.mu.Unlock()
}

// stats captures the diagnostics attempt statistics of the last operation: a per-call policy
// installed below diagnostics.Policy reads them after the call.
type stats struct {
	mu   sync.Mutex
	last diagnostics.Stats
}

func (s *stats) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if st, ok := diagnostics.StatsFromContext(req.Raw().Context()); ok {
		s.mu.Lock()
		s.last = st
		s.mu.Unlock()
	}
	return resp, err
}

func (s *stats) get() diagnostics.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// reporter records circuit breaker state changes.
type reporter struct {
	mu      sync.Mutex
	changes []string
}

func (r *reporter) CircuitBreakerStateChanged(_ context.Context, name, from, to string) {
	r.mu.Lock()
	r.changes = append(r.changes, fmt.Sprintf("%s: %s -> %s", name, from, to))
	r.mu.Unlock()
}

func (r *reporter) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.changes...)
}

type env struct {
	s      *cosmostest.Server
	client *azcosmos.Client
	cc     *azcosmos.ContainerClient
	p      *retry.PipelinePolicy
	rec    *recorder
	stats  *stats
}

// envRegions are the regions a test client routes by: the client options' PreferredRegions,
// which the policy takes at Install, and the policy's initial excluded regions.
type envRegions struct{ preferred, excluded []string }

// newEnv starts a two-region server (West US is the write region), builds one azcosmos client
// with the policy installed the way cosmoskit does (diagnostics per call, the policy, then the
// diagnostics attempt policy), and creates database db / container c with item "a" in "p".
func newEnv(t *testing.T, r envRegions, o retry.Options, serverOpts ...cosmostest.Option) *env {
	t.Helper()
	serverOpts = append([]cosmostest.Option{cosmostest.WithRegions("West US", "East US")}, serverOpts...)
	s := cosmostest.NewServer(t, serverOpts...)
	e := &env{s: s, stats: &stats{}}
	co := s.ClientOptions()
	e.rec = &recorder{next: co.Transport}
	co.Transport = e.rec
	co.PreferredRegions = r.preferred
	diag, err := diagnostics.NewPolicy(diagnostics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	co.PerCallPolicies = append(co.PerCallPolicies, diag, e.stats)
	co.PerRetryPolicies = append(co.PerRetryPolicies, diagnostics.NewAttemptPolicy())
	e.p = mustPolicy(t, o)
	e.p.SetExcludedRegions(r.excluded...)
	e.p.Install(co)
	c, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), co)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	e.client = c
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	e.cc, _ = db.NewContainer("c")
	if _, err := e.cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	e.rec.reset()
	return e
}

func (e *env) read(ctx context.Context) error {
	_, err := e.cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("p"), "a", nil)
	return err
}

// host returns the host[:port] of a region's endpoint.
func (e *env) host(t *testing.T, region string) string {
	t.Helper()
	ep := e.s.RegionEndpoint(region)
	if ep == "" {
		t.Fatalf("no region %q", region)
	}
	return ep[len("https://") : len(ep)-1]
}

// mustPolicy builds a policy from valid options.
func mustPolicy(t testing.TB, o retry.Options) *retry.PipelinePolicy {
	t.Helper()
	p, err := retry.NewPipelinePolicy(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
