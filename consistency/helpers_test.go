package consistency_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// seen is one document request as the server received it.
type seen struct {
	method, path string
	session      string // x-ms-session-token
	level        string // x-ms-consistency-level
}

// headerLog records the session and consistency headers of every document request the server
// receives, through a fault that never fires.
type headerLog struct {
	mu   sync.Mutex
	reqs []seen
}

func (l *headerLog) match(r *http.Request) bool {
	if strings.Contains(r.URL.Path, "/docs") {
		l.mu.Lock()
		l.reqs = append(l.reqs, seen{method: r.Method, path: r.URL.Path,
			session: r.Header.Get(wire.HeaderSessionToken), level: r.Header.Get(wire.HeaderConsistency)})
		l.mu.Unlock()
	}
	return false
}

func (l *headerLog) last(t *testing.T) seen {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.reqs) == 0 {
		t.Fatal("no document request reached the server")
	}
	return l.reqs[len(l.reqs)-1]
}

func (l *headerLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.reqs)
}

type env struct {
	s   *cosmostest.Server
	p   *consistency.Policy
	db  *azcosmos.DatabaseClient
	log *headerLog
}

var pk = azcosmos.NewPartitionKeyString("p")

// newEnv starts a server with database "db" and containers "a" and "b" (and any others named),
// and an azcosmos client with p in its per-call policies.
func newEnv(t *testing.T, p *consistency.Policy, containers []string, opts ...cosmostest.Option) *env {
	t.Helper()
	s := cosmostest.NewServer(t, opts...)
	e := &env{s: s, p: p, log: &headerLog{}}
	e.db = newDB(t, s, p)
	ctx := context.Background()
	for _, id := range append([]string{"a", "b"}, containers...) {
		if _, err := e.db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: id,
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	s.InjectFault(cosmostest.Fault{Match: e.log.match})
	return e
}

// newDB returns database "db" (created if missing) through a new client with p installed.
func newDB(t *testing.T, s *cosmostest.Server, p *consistency.Policy) *azcosmos.DatabaseClient {
	t.Helper()
	co := s.ClientOptions()
	if p != nil {
		co.PerCallPolicies = append(co.PerCallPolicies, p)
	}
	c, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), co)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if _, err := c.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil &&
		!strings.Contains(err.Error(), "409") {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	return db
}

func (e *env) container(t *testing.T, id string) *azcosmos.ContainerClient {
	t.Helper()
	c, err := e.db.NewContainer(id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func upsert(t *testing.T, ctx context.Context, c *azcosmos.ContainerClient, id, v string) string {
	t.Helper()
	r, err := c.UpsertItem(ctx, pk, []byte(`{"id":"`+id+`","pk":"p","v":"`+v+`"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.SessionToken == nil {
		t.Fatal("the upsert response has no session token")
	}
	return *r.SessionToken
}

// covers reports whether the header's tokens cover every range of want.
func covers(t *testing.T, header, want string) bool {
	t.Helper()
	if header == "" {
		return false
	}
	got, err := wire.ParseSessionTokens(header)
	if err != nil {
		t.Fatalf("header %q: %v", header, err)
	}
	ws, err := wire.ParseSessionTokens(want)
	if err != nil {
		t.Fatalf("token %q: %v", want, err)
	}
	for _, w := range ws {
		ok := false
		for _, g := range got {
			if g.Range == w.Range && g.Covers(w) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// newPolicy returns a session container with o, failing the test on a refusal.
func newPolicy(t testing.TB, o consistency.Options) *consistency.Policy {
	t.Helper()
	p, err := consistency.NewPolicy(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
