package cosmoskit

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/internal/clientaccess"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// registryKey identifies one account and identity. It never holds a raw key: key identities are an
// HMAC under a per-process random salt. cred is the caller's TokenCredential (compared by ==, so two
// New calls with the same credential value share a client).
type registryKey struct {
	endpoint string
	identity string
	cred     any
}

// entry is one shared azcosmos client and its reference count.
type entry struct {
	key       registryKey
	cosmos    *azcosmos.Client
	refs      int // guarded by registry.mu
	settings  settings
	endpoint  string
	preferred []string
	excluded  atomic.Pointer[[]string]
	// excludedMu orders SetExcludedRegions calls so the retry policy and excluded agree.
	excludedMu sync.Mutex
	// containers caches ContainerClient handles by "db\x00container".
	containers sync.Map
	// diag and retry are the policies installed on cosmos (nil when disabled).
	diag    *diagnostics.Policy
	retry   *retry.PipelinePolicy
	session *consistency.Policy
	// conns is the connection limit of the transport cosmoskit built (zero when it built none).
	conns ConnectionOptions
	// closeIdle closes the idle connections of a transport cosmoskit built (nil otherwise).
	closeIdle func()
	// access is what packages built on the client (package conflicts) get through
	// internal/clientaccess: endpoint, an authorizer holding the credential, the azcore options.
	access clientaccess.Access
	// logger is Config.Logger as given (nil: slog.Default()).
	logger *slog.Logger
}

var registry = struct {
	mu      sync.Mutex
	entries map[registryKey]*entry
}{entries: make(map[registryKey]*entry)}

// newAzClient builds the azcosmos client for a resolved config. Tests replace it to count
// constructions.
var newAzClient = func(r *resolved, opts *azcosmos.ClientOptions) (*azcosmos.Client, error) {
	switch r.auth {
	case authKey:
		cred, err := azcosmos.NewKeyCredential(r.key)
		if err != nil {
			return nil, configError("Config.Key", "is not a valid account key", nil)
		}
		return azcosmos.NewClientWithKey(r.ep.url, cred, opts)
	case authToken:
		return azcosmos.NewClient(r.ep.url, r.cred, opts)
	default:
		cred, err := azidentity.NewDefaultAzureCredential(nil)
		if err != nil {
			return nil, fmt.Errorf("cosmoskit: no Key, ConnectionString or Credential was set for %s, and the default Azure credential is unavailable: %w", r.ep.url, err)
		}
		return azcosmos.NewClient(r.ep.url, cred, opts)
	}
}

// acquire returns the shared entry for r, creating it on first use, and takes a reference. A
// config that differs from the open entry's is a *cosmoserr.ConfigConflictError.
func acquire(r *resolved) (*entry, error) {
	k := registryKey{endpoint: r.ep.key, identity: r.identity}
	if r.auth == authToken {
		k.cred = r.cred
		if r.identity == "token:unshared" {
			k.cred = new(int) // unique: a credential that cannot be compared is never shared
		}
	}
	s := settingsOf(r)

	registry.mu.Lock()
	defer registry.mu.Unlock()
	if e, ok := registry.entries[k]; ok {
		if d := e.settings.diff(s); len(d) > 0 {
			return nil, &cosmoserr.ConfigConflictError{Differences: d}
		}
		e.refs++
		return e, nil
	}
	e, err := build(r, k, s)
	if err != nil {
		return nil, err
	}
	registry.entries[k] = e
	return e, nil
}

// build makes the azcosmos client and policies of a new entry with one reference, and logs its
// creation. The caller records it in the registry, or not (NewIndependent).
func build(r *resolved, k registryKey, s settings) (*entry, error) {
	opts, b, err := r.clientOptions()
	if err != nil {
		return nil, err
	}
	c, err := newAzClient(r, opts)
	if err != nil {
		return nil, err
	}
	e := &entry{key: k, cosmos: c, refs: 1, settings: s, endpoint: r.ep.url, preferred: slices.Clone(r.preferred), diag: b.diag, retry: b.retry,
		session: b.session, conns: b.conns, access: newAccess(r, opts), logger: r.cfg.Logger}
	if (r.base == nil || r.base.Transport == nil) && opts.Transport != nil {
		if ci, ok := opts.Transport.(interface{ CloseIdleConnections() }); ok {
			e.closeIdle = ci.CloseIdleConnections
		}
	}
	ex := slices.Clone(r.excluded)
	e.excluded.Store(&ex)
	attrs := []any{"endpoint", r.ep.url, "credential", r.authSource, "loopback", r.ep.loopback}
	if len(r.preferred) > 0 {
		attrs = append(attrs, "preferredRegions", r.preferred)
	}
	if len(r.excluded) > 0 {
		attrs = append(attrs, "excludedRegions", r.excluded)
	}
	msg := "cosmoskit: Cosmos DB client created"
	if k == (registryKey{}) {
		msg = "cosmoskit: independent Cosmos DB client created"
	}
	r.logger.Info(msg, attrs...)
	checkSDKLayout(r, c)
	if !r.ep.loopback && len(r.preferred) == 0 {
		msg := "cosmoskit: no PreferredRegions: reads go to the account's regions in the account's order, not nearest first; list the regions nearest first"
		if r.cfg.Retry.Disable {
			msg = "cosmoskit: no PreferredRegions: the SDK reads from the account's first read region only, with no regional failover; list at least two regions, nearest first"
		}
		r.logger.Warn(msg, "endpoint", r.ep.url)
	}
	return e, nil
}

// release drops a reference; the last one closes the azcosmos client.
func release(e *entry) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	e.refs--
	if e.refs > 0 {
		return
	}
	if registry.entries[e.key] == e {
		delete(registry.entries, e.key)
	}
	e.cosmos.Close()
	if e.closeIdle != nil {
		e.closeIdle()
	}
}
