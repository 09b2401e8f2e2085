package changefeed_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// hangPolicy holds every replace of a document whose id ends with suffix until release is closed
// or the request's context ends.
type hangPolicy struct {
	mu      sync.Mutex
	suffix  string
	release chan struct{}
	hung    atomic.Int64
}

func (h *hangPolicy) Do(req *policy.Request) (*http.Response, error) {
	h.mu.Lock()
	suffix := h.suffix
	h.mu.Unlock()
	if r := req.Raw(); suffix != "" && r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, suffix) {
		h.hung.Add(1)
		select {
		case <-h.release:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	return req.Next()
}

// leasesThrough returns e's lease container through a client of its own with pol in its pipeline.
func leasesThrough(t *testing.T, e *env, pol policy.Policy) *azcosmos.ContainerClient {
	t.Helper()
	cred, err := azcosmos.NewKeyCredential(e.srv.Key())
	if err != nil {
		t.Fatal(err)
	}
	opts := e.srv.ClientOptions()
	opts.PerRetryPolicies = append(opts.PerRetryPolicies, pol)
	client, err := azcosmos.NewClientWithKey(e.srv.Endpoint(), cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	c, err := client.NewContainer("db", "leases")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func leaseByToken(t *testing.T, e *env, token string) leaseDoc {
	t.Helper()
	for _, l := range leaseDocs(t, e) {
		if l.LeaseToken == token {
			return l
		}
	}
	t.Fatalf("no lease %s", token)
	return leaseDoc{}
}

func age(t *testing.T, l leaseDoc) time.Duration {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, l.Timestamp)
	if err != nil {
		t.Fatalf("lease %s timestamp %q: %v", l.LeaseToken, l.Timestamp, err)
	}
	return time.Since(ts)
}

// One lease whose renewal hangs does not hold up the renewal of the others: each lease is renewed
// on its own (as .NET runs one renewer per lease), so a hung replace loses at most that lease.
func TestHungRenewalLosesAtMostThatLease(t *testing.T) {
	e := newEnv(t, 2)
	hang := &hangPolicy{release: make(chan struct{})}
	o := fast() // renew every 50 ms, expire after 1 s
	o.PollInterval = time.Hour
	o.Handler = nop
	o.Name, o.Instance, o.Leases = "proc", "a", changefeed.Leases(leasesThrough(t, e, hang))
	p, err := changefeed.New(e.monitored, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer stop(t, p)
	defer close(hang.release)
	waitFor(t, "a holding both leases", 10*time.Second, func() bool { return len(p.State()) == 2 })
	st := p.State()
	stuck, other := st[0].LeaseToken, st[1].LeaseToken
	hang.mu.Lock()
	hang.suffix = ".." + stuck
	hang.mu.Unlock()
	waitFor(t, "the stuck lease to be expired twice over", 20*time.Second, func() bool {
		return hang.hung.Load() > 0 && age(t, leaseByToken(t, e, stuck)) > 2*o.LeaseExpirationInterval
	})
	l := leaseByToken(t, e, other)
	if deref(l.Owner) != "a" || age(t, l) > o.LeaseExpirationInterval {
		t.Errorf("lease %s: owner %s, last renewed %v ago; want still renewed by a while another lease's renewal hangs", other, deref(l.Owner), age(t, l))
	}
}

// A lease taken by another instance is noticed at the next renewal: the handler's context for
// that lease is cancelled and the loss is reported to OnError (matching cosmoserr.ErrLeaseLost),
// once: the handler's return (its cancelled context) is not also a *HandlerError (issue 32).
func TestLostLeaseCancelsItsHandler(t *testing.T) {
	e := newEnv(t, 1)
	write(t, e.monitored, doc{ID: "x", PK: "p"})
	entered, cancelled := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h := func(ctx context.Context, b changefeed.Batch) error {
		once.Do(func() {
			close(entered)
			<-ctx.Done()
			close(cancelled)
		})
		return ctx.Err()
	}
	var lost atomic.Int64
	var mu sync.Mutex
	var reports []error
	o := fast()
	o.OnError = func(_ string, err error) {
		mu.Lock()
		reports = append(reports, err)
		mu.Unlock()
		if errors.Is(err, cosmoserr.ErrLeaseLost) {
			lost.Add(1)
		}
	}
	p := newProc(t, e, "a", h, o)
	<-entered
	// Another instance takes the lease (as after an expiry it did not see).
	for _, l := range leaseDocs(t, e) {
		steal(t, e, l.ID, "thief")
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context was not cancelled when its lease was lost")
	}
	waitFor(t, "the loss reported", 10*time.Second, func() bool { return lost.Load() > 0 })
	waitFor(t, "the lease dropped", 10*time.Second, func() bool { return len(p.State()) == 0 })
	stop(t, p)
	mu.Lock()
	defer mu.Unlock()
	var he *changefeed.HandlerError
	if len(reports) != 1 || !errors.Is(reports[0], cosmoserr.ErrLeaseLost) || errors.As(reports[0], &he) {
		t.Errorf("OnError got %q; want the lease loss once, and no *HandlerError", reports)
	}
}

// steal makes owner the owner of lease id, as another instance would.
func steal(t *testing.T, e *env, id, owner string) {
	t.Helper()
	ctx := context.Background()
	resp, err := e.leases.ReadItem(ctx, azPKString(id), id, nil)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(resp.Value, &m); err != nil {
		t.Fatal(err)
	}
	m["Owner"] = owner
	m["timestamp"] = time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano) // not expired while the test runs
	b, _ := json.Marshal(m)
	if _, err := e.leases.ReplaceItem(ctx, azPKString(id), id, b, nil); err != nil {
		t.Fatal(err)
	}
}
