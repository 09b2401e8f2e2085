package cosmoskit

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// countConstructions replaces newAzClient with a counting wrapper for the duration of the test. Tests
// that call it must not run in parallel.
func countConstructions(t *testing.T) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	orig := newAzClient
	newAzClient = func(r *resolved, o *azcosmos.ClientOptions) (*azcosmos.Client, error) {
		n.Add(1)
		return orig(r, o)
	}
	t.Cleanup(func() { newAzClient = orig })
	return &n
}

// openEntries is the number of accounts in the registry.
func openEntries() int {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return len(registry.entries)
}

func TestNewSharesOneClientAcrossConcurrentCallers(t *testing.T) {
	n := countConstructions(t)
	before := openEntries()
	cfg := Config{Endpoint: "https://myaccount.documents.azure.com:443/", Key: testKey, PreferredRegions: []string{"West US", "East US"}, Logger: quiet}

	const callers = 100
	clients := make([]*Client, callers)
	errs := make([]error, callers)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range callers {
		done.Go(func() {
			start.Wait()
			clients[i], errs[i] = New(cfg)
		})
	}
	start.Done()
	done.Wait()

	for i, err := range errs {
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
	}
	if got := n.Load(); got != 1 {
		t.Fatalf("%d azcosmos clients built for %d callers, want 1", got, callers)
	}
	for i, c := range clients {
		if c.Cosmos() != clients[0].Cosmos() {
			t.Fatalf("caller %d got a different *azcosmos.Client", i)
		}
	}
	if got := openEntries(); got != before+1 {
		t.Fatalf("registry has %d entries, want %d", got, before+1)
	}

	// Close all but one concurrently: the account stays open.
	var wg sync.WaitGroup
	for _, c := range clients[1:] {
		wg.Go(func() { c.Close() })
	}
	wg.Wait()
	if got := openEntries(); got != before+1 {
		t.Fatalf("after closing 99 handles the registry has %d entries, want %d", got, before+1)
	}
	if _, err := clients[0].Container("db", "c"); err != nil {
		t.Fatalf("open handle: %v", err)
	}
	if _, err := clients[1].Container("db", "c"); !errors.Is(err, cosmoserr.ErrClosed) {
		t.Fatalf("closed handle: Container error = %v, want cosmoserr.ErrClosed", err)
	}
	clients[1].Close() // idempotent: must not release twice
	if got := openEntries(); got != before+1 {
		t.Fatalf("double Close released the account: %d entries", got)
	}

	clients[0].Close()
	if got := openEntries(); got != before {
		t.Fatalf("after the last Close the registry has %d entries, want %d", got, before)
	}

	// A new New after the last Close builds a fresh client.
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := n.Load(); got != 2 {
		t.Fatalf("constructions after reopen = %d, want 2", got)
	}
}

func TestNewRegistryKeying(t *testing.T) {
	n := countConstructions(t)
	cred := &fakeCred{name: "a"}
	otherKey := strings.Repeat("QUJD", 16)
	base := Config{Endpoint: "https://myaccount.documents.azure.com/", Key: testKey, Logger: quiet}
	open := func(cfg Config) *Client {
		t.Helper()
		c, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	a := open(base)
	sameAccountSpelledDifferently := base
	sameAccountSpelledDifferently.Endpoint = "HTTPS://MyAccount.documents.azure.com:443"
	if b := open(sameAccountSpelledDifferently); b.Cosmos() != a.Cosmos() {
		t.Error("the same account spelled differently got a second client")
	}
	viaConnectionString := Config{ConnectionString: "AccountEndpoint=https://myaccount.documents.azure.com:443/;AccountKey=" + testKey + ";", Logger: quiet}
	if b := open(viaConnectionString); b.Cosmos() != a.Cosmos() {
		t.Error("the same key via a connection string got a second client")
	}
	if got := n.Load(); got != 1 {
		t.Fatalf("constructions = %d, want 1", got)
	}

	otherIdentity := base
	otherIdentity.Key = otherKey
	if b := open(otherIdentity); b.Cosmos() == a.Cosmos() {
		t.Error("a different key shared the client")
	}
	otherAccount := base
	otherAccount.Endpoint = "https://other.documents.azure.com/"
	if b := open(otherAccount); b.Cosmos() == a.Cosmos() {
		t.Error("a different account shared the client")
	}
	tok := Config{Endpoint: base.Endpoint, Credential: cred, Logger: quiet}
	t1, t2 := open(tok), open(tok)
	if t1.Cosmos() != t2.Cosmos() {
		t.Error("the same TokenCredential got two clients")
	}
	tok2 := tok
	tok2.Credential = &fakeCred{name: "a"}
	if open(tok2).Cosmos() == t1.Cosmos() {
		t.Error("a different TokenCredential value shared the client")
	}
	if got := n.Load(); got != 5 {
		t.Fatalf("constructions = %d, want 5", got)
	}

	registry.mu.Lock()
	for k := range registry.entries {
		if strings.Contains(k.identity, testKey) || strings.Contains(k.identity, otherKey) {
			t.Errorf("registry key holds a raw key: %q", k.identity)
		}
	}
	registry.mu.Unlock()
}

func TestNewConflictingSettings(t *testing.T) {
	base := Config{Endpoint: "https://conflict.documents.azure.com/", Key: testKey, PreferredRegions: []string{"West US", "East US"}, Logger: quiet}
	c, err := New(base)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	same := base
	same.PreferredRegions = []string{"westus", "EAST US"} // same after canonicalization
	c2, err := New(same)
	if err != nil {
		t.Fatalf("canonically equal regions: %v", err)
	}
	c2.Close()

	for name, mutate := range map[string]func(*Config){
		"region order": func(c *Config) { c.PreferredRegions = []string{"East US", "West US"} },
		"excluded":     func(c *Config) { c.ExcludedRegions = []string{"West US"} },
		"app name":     func(c *Config) { c.ApplicationName = "other" },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := base
			mutate(&cfg)
			_, err := New(cfg)
			if !errors.Is(err, cosmoserr.ErrConfigConflict) {
				t.Fatalf("New = %v, want cosmoserr.ErrConfigConflict", err)
			}
			assertNoSecret(t, err.Error())
		})
	}
}

func TestExcludedRegionsAreSharedAndSwappable(t *testing.T) {
	cfg := Config{Endpoint: "https://excluded.documents.azure.com/", Key: testKey, PreferredRegions: []string{"West US", "East US"}, ExcludedRegions: []string{"East US"}, Logger: quiet}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got := a.PreferredRegions(); !slices.Equal(got, []string{"West US", "East US"}) {
		t.Errorf("PreferredRegions = %q", got)
	}
	if got := a.ExcludedRegions(); !slices.Equal(got, []string{"East US"}) {
		t.Errorf("ExcludedRegions = %q", got)
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if i%2 == 0 {
				_ = a.SetExcludedRegions("West US")
			} else {
				_ = b.ExcludedRegions()
			}
		})
	}
	wg.Wait()
	if got := b.ExcludedRegions(); !slices.Equal(got, []string{"West US"}) {
		t.Errorf("after SetExcludedRegions on a, b sees %q", got)
	}
	if err := a.SetExcludedRegions("x", "X"); !errors.Is(err, cosmoserr.ErrInvalidConfig) {
		t.Errorf("duplicate exclusion: %v, want cosmoserr.ErrInvalidConfig", err)
	}
	if err := a.SetExcludedRegions(); err != nil || len(b.ExcludedRegions()) != 0 {
		t.Errorf("clearing: err=%v, regions=%q", err, b.ExcludedRegions())
	}
	got := a.ExcludedRegions()
	got = append(got, "mutation")
	_ = got
	if len(a.ExcludedRegions()) != 0 {
		t.Error("ExcludedRegions returned the internal slice")
	}
}

func TestClientOptionsAreCopiedAndComposed(t *testing.T) {
	p1, p2, p3 := &countingPolicy{}, &countingPolicy{}, &countingPolicy{}
	base := &azcosmos.ClientOptions{PreferredRegions: []string{"West US"}}
	base.PerCallPolicies = append(base.PerCallPolicies, p1)
	base.Retry.StatusCodes = []int{429, 503}
	cfg := Config{
		Endpoint: "https://opts.documents.azure.com/", Key: testKey, ClientOptions: base,
		PerCallPolicies: append(make([]policyT, 0, 4), p2), PerRetryPolicies: []policyT{p3}, Logger: quiet,
	}
	r, err := resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o, b, _ := r.clientOptions()
	if o == base {
		t.Fatal("base options not copied")
	}
	if !slices.Equal(o.PreferredRegions, []string{"West US"}) {
		t.Errorf("PreferredRegions = %q; want ClientOptions' when Config's are unset", o.PreferredRegions)
	}
	// Per call: diagnostics, then the base options' policies, then Config's, then the session
	// container.
	if len(o.PerCallPolicies) != 4 || o.PerCallPolicies[0] != b.diag || o.PerCallPolicies[1] != p1 || o.PerCallPolicies[2] != p2 ||
		b.session == nil || o.PerCallPolicies[3] != b.session {
		t.Errorf("PerCallPolicies = %v", o.PerCallPolicies)
	}
	// Per retry: retry, diagnostics attempt, Config's.
	if len(o.PerRetryPolicies) != 3 || o.PerRetryPolicies[0] != b.retry || o.PerRetryPolicies[2] != p3 {
		t.Errorf("PerRetryPolicies = %v", o.PerRetryPolicies)
	}
	if b.diag == nil || b.retry == nil {
		t.Fatal("diagnostics or retry policy missing")
	}
	// One retry layer: azcore no longer retries 429.
	if slices.Contains(o.Retry.StatusCodes, 429) || !slices.Contains(o.Retry.StatusCodes, 503) {
		t.Errorf("azcore retried status codes = %v; want 429 removed, the rest kept", o.Retry.StatusCodes)
	}
	if !slices.Equal(base.Retry.StatusCodes, []int{429, 503}) {
		t.Error("caller's Retry.StatusCodes modified")
	}
	if len(base.PerCallPolicies) != 1 || len(base.PerRetryPolicies) != 0 {
		t.Error("caller's ClientOptions modified")
	}
	if o.Telemetry.ApplicationID != "cosmoskit" {
		t.Errorf("ApplicationID = %q, want the default cosmoskit", o.Telemetry.ApplicationID)
	}
	if tr, ok := unwrapTransport(o.Transport).(*http.Client); !ok || tr == nil {
		t.Errorf("a non-loopback endpoint without a certificate got transport %T; want an http.Client", o.Transport)
	}

	cfg.Diagnostics.Disable, cfg.Retry.Disable, cfg.Session.Disable = true, true, true
	r, err = resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if o, b, _ := r.clientOptions(); len(o.PerCallPolicies) != 2 || len(o.PerRetryPolicies) != 1 || b.diag != nil || b.retry != nil || b.session != nil || !slices.Contains(o.Retry.StatusCodes, 429) {
		t.Errorf("Diagnostics.Disable and Retry.Disable: %d per-call and %d per-retry policies, retried codes %v", len(o.PerCallPolicies), len(o.PerRetryPolicies), o.Retry.StatusCodes)
	}
}

func TestRegistryChurn(t *testing.T) {
	n := countConstructions(t)
	before := openEntries()
	cfgs := []Config{
		{Endpoint: "https://churn1.documents.azure.com/", Key: testKey, Logger: quiet},
		{Endpoint: "https://churn2.documents.azure.com/", Key: testKey, Logger: quiet},
		{Endpoint: "https://churn1.documents.azure.com/", Credential: &fakeCred{}, Logger: quiet},
	}
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := range 50 {
				c, err := New(cfgs[(g+i)%len(cfgs)])
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := c.Container("db", "c"); err != nil {
					t.Error(err)
				}
				c.Close()
			}
		})
	}
	wg.Wait()
	if got := openEntries(); got != before {
		t.Fatalf("after churn the registry has %d entries, want %d", got, before)
	}
	if n.Load() < int32(len(cfgs)) {
		t.Fatalf("%d constructions for %d accounts", n.Load(), len(cfgs))
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (Config{Endpoint: "https://a.documents.azure.com/", Key: testKey}).Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	if err := (Config{Endpoint: "https://a.documents.azure.com/", Key: EmulatorKey}).Validate(); !errors.Is(err, cosmoserr.ErrInvalidConfig) {
		t.Fatalf("emulator key on a remote endpoint: %v, want cosmoserr.ErrInvalidConfig", err)
	}
}
