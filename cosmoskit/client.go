package cosmoskit

import (
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// Client is a handle on the process's one azcosmos client for an account and identity. It is safe for
// concurrent use. Every Client from New must be closed; handles from NewFromClient need not be.
type Client struct {
	cosmos    *azcosmos.Client
	entry     *entry // nil for NewFromClient
	closed    atomic.Bool
	closeOnce sync.Once
	preferred []string
	excluded  *atomic.Pointer[[]string]
	// containers caches handles for NewFromClient clients (entry clients share entry.containers).
	containers *sync.Map
}

// New returns a Client for cfg. All Clients for the same account endpoint and identity (the same key,
// connection string key, TokenCredential value, or the default credential) share one *azcosmos.Client
// for the life of the process, as the SDK's guidance asks (one client per account, never one per
// request): the first New builds it, later ones take a reference, and the last Close closes it.
//
// Errors: a *cosmoserr.ValidationError (Kind cosmoserr.ErrInvalidConfig) says which field is wrong and how to fix it;
// a *cosmoserr.ConfigConflictError (matching cosmoserr.ErrConfigConflict and cosmoserr.ErrValidation) means
// a client for the account is already open with settings that differ, listed in its Differences
// (every field but the credentials, which pick the client, and Database, which New does not use:
// ClientOptions by content, loggers by handler, funcs, interfaces and pointers by identity; see
// cosmoserr.ErrConfigConflict): configure the account's clients alike, Close the open one first, or build a
// client outside the registry on purpose with NewIndependent. New does no network I/O: a wrong key
// or unreachable endpoint shows up on the first request.
func New(cfg Config) (*Client, error) {
	r, err := resolve(cfg)
	if err != nil {
		return nil, err
	}
	e, err := acquire(r)
	if err != nil {
		return nil, err
	}
	return &Client{cosmos: e.cosmos, entry: e, preferred: e.preferred, excluded: &e.excluded, containers: &e.containers}, nil
}

// NewIndependent returns a Client for cfg with its own azcosmos client, outside the process-wide
// registry.
//
// It is built with the same validation, policies (diagnostics, session container, retry) and
// defaults as New, but shared with no other Client and never compared with one, so it is never
// cosmoserr.ErrConfigConflict. Use it on purpose, where one process needs two clients for the same
// account and identity that must not share state: two instances of a service in one test, each with
// its own session container and preferred regions, or a migration tool talking to one account with
// two region orders. Everything else should use New (the SDK's guidance is one client per account
// per process: each independent client holds its own connections and account metadata). Close
// closes its azcosmos client. Errors are New's, except the conflict.
func NewIndependent(cfg Config) (*Client, error) {
	r, err := resolve(cfg)
	if err != nil {
		return nil, err
	}
	e, err := build(r, registryKey{}, nil) // registryKey{}: in no registry, compared with nothing
	if err != nil {
		return nil, err
	}
	return &Client{cosmos: e.cosmos, entry: e, preferred: e.preferred, excluded: &e.excluded, containers: &e.containers}, nil
}

// NewFromClient returns a Client around an existing azcosmos client, for code that already builds its
// own. The caller keeps ownership: Close on this Client does not close c. PreferredRegions is empty
// (the SDK does not expose it) and ExcludedRegions starts empty. If c is nil, the Client's methods
// return cosmoserr.ErrClosed.
func NewFromClient(c *azcosmos.Client) *Client {
	empty := []string{}
	cl := &Client{cosmos: c, excluded: new(atomic.Pointer[[]string]), containers: new(sync.Map)}
	cl.excluded.Store(&empty)
	if c == nil {
		cl.closed.Store(true)
	}
	return cl
}

// Cosmos returns the underlying azcosmos client, for everything cosmoskit does not wrap. It must not
// be closed directly; close the Client instead.
func (c *Client) Cosmos() *azcosmos.Client { return c.cosmos }

// Endpoint returns the account endpoint the client talks to.
func (c *Client) Endpoint() string {
	if c.entry != nil {
		return c.entry.endpoint
	}
	if c.cosmos == nil {
		return ""
	}
	return c.cosmos.Endpoint()
}

// Database returns a handle on database id. It does no I/O; use EnsureDatabase to create it. Errors:
// cosmoserr.ErrClosed, or the SDK's error for an empty id.
func (c *Client) Database(id string) (*azcosmos.DatabaseClient, error) {
	if c.closed.Load() {
		return nil, cosmoserr.ErrClosed
	}
	return c.cosmos.NewDatabase(id)
}

// Container returns a handle on container id in database db, cached per (db, id) so repeated calls are
// cheap. It does no I/O; use EnsureContainer to create it. Errors: cosmoserr.ErrClosed, or the SDK's error for
// an empty id.
//
// The handle is a plain azcosmos handle: its requests go through the client's pipeline (retry,
// diagnostics, session policies), but packages given only the handle (repository.New,
// crosspartition.New, vector.New, changefeed.New) use their own options' Logger and Diagnostics,
// whatever made it. Pass Logger() and Diagnostics() in those options, or build a repository with
// repository.NewFromClient, which takes both from the client.
func (c *Client) Container(db, id string) (*azcosmos.ContainerClient, error) {
	if c.closed.Load() {
		return nil, cosmoserr.ErrClosed
	}
	k := db + "\x00" + id
	if v, ok := c.containers.Load(k); ok {
		return v.(*azcosmos.ContainerClient), nil
	}
	cc, err := c.cosmos.NewContainer(db, id)
	if err != nil {
		return nil, err
	}
	v, _ := c.containers.LoadOrStore(k, cc)
	return v.(*azcosmos.ContainerClient), nil
}

// Diagnostics returns the diagnostics policy installed on the client, for logical operation spans
// (diagnostics.Policy.StartOperation). It is nil with Config.Diagnostics.Disable and for NewFromClient.
func (c *Client) Diagnostics() *diagnostics.Policy {
	if c.entry == nil {
		return nil
	}
	return c.entry.diag
}

// Logger returns the logger the client logs to: Config.Logger, or slog.Default() when it was
// unset and for NewFromClient. Packages built on the client's containers take it in their options
// (repository.NewFromClient does so itself).
func (c *Client) Logger() *slog.Logger { return c.logger() }

// Connections returns the connection limit in effect on the transport New built for the client
// (Config.Connections with its default filled in: MaxPerHost 50 unless Disable). It is the zero
// value when New built no transport (Config.ClientOptions had one) and for NewFromClient.
func (c *Client) Connections() ConnectionOptions {
	if c.entry == nil {
		return ConnectionOptions{}
	}
	return c.entry.conns
}

// Retry returns the retry policy installed on the client (its breakers and effective region order
// are there). It is nil with Config.Retry.Disable and for NewFromClient.
func (c *Client) Retry() *retry.PipelinePolicy {
	if c.entry == nil {
		return nil
	}
	return c.entry.retry
}

// Session returns the session container installed on the client (consistency.Policy: its
// options in effect, and the token it holds per container). It is nil with Config.Session.Disable
// and for NewFromClient.
func (c *Client) Session() *consistency.Policy {
	if c.entry == nil {
		return nil
	}
	return c.entry.session
}

// PreferredRegions returns a copy of the regions passed to the SDK, in order.
func (c *Client) PreferredRegions() []string { return slices.Clone(c.preferred) }

// ExcludedRegions returns a copy of the regions requests currently avoid. The list is shared by every
// Client of the same account in the process.
func (c *Client) ExcludedRegions() []string { return slices.Clone(*c.excluded.Load()) }

// SetExcludedRegions replaces the excluded regions for every Client of this account, at runtime and
// race-free: the retry policy routes requests that start afterwards around them (per-request
// exclusions: retry.WithExcludedRegions). Entries must be non-empty and distinct (a *cosmoserr.ValidationError
// otherwise); no regions clears the list. With Config.Retry.Disable the list is only recorded.
func (c *Client) SetExcludedRegions(regions ...string) error {
	checked, err := checkRegions(&Config{}, "ExcludedRegions", regions)
	if err != nil {
		return err
	}
	if checked == nil {
		checked = []string{}
	}
	if c.entry != nil {
		c.entry.excludedMu.Lock()
		defer c.entry.excludedMu.Unlock()
		if c.entry.retry != nil {
			c.entry.retry.SetExcludedRegions(checked...)
		}
	}
	c.excluded.Store(&checked)
	return nil
}

// Close releases this handle. The shared azcosmos client is closed when the last Client for its
// account and identity is closed. Close is idempotent (like azcosmos.Client.Close, it returns
// nothing); after it, the Client's methods return cosmoserr.ErrClosed.
func (c *Client) Close() {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		if c.entry != nil {
			release(c.entry)
		}
	})
}
