package consistency

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// DefaultMaxContainers is the number of containers whose session tokens a Policy keeps when
// Options.MaxContainers is 0.
const DefaultMaxContainers = 1000

// Options configures [NewPolicy]. The zero value is the default.
type Options struct {
	// MaxContainers bounds the containers (over every account the policy serves) whose session
	// tokens are kept; one more evicts the least recently used, whose next read then goes without
	// a token (it may not see this client's latest writes in another region until it writes or
	// reads again). If 0 or negative, DefaultMaxContainers (1000).
	MaxContainers int
}

func (o Options) withDefaults() Options {
	if o.MaxContainers <= 0 {
		o.MaxContainers = DefaultMaxContainers
	}
	return o
}

// Policy is the session container of an azcosmos client, as the .NET and Java SDKs have one: a
// per-call azcore policy that captures x-ms-session-token from every document response and sends
// the container's merged token with the requests that need it, so that one client reads its own
// writes in every region. It also applies the context options of this package (WithSessionToken,
// WithLevel, Capture). cosmoskit.New installs one by default (Config.DisableSessionTokens); for
// a client built without cosmoskit, add it to azcosmos.ClientOptions.PerCallPolicies:
//
//	opts := &azcosmos.ClientOptions{}
//	opts.PerCallPolicies = append(opts.PerCallPolicies, consistency.NewPolicy(consistency.Options{}))
//
// Without it the context options do nothing. One Policy may serve several clients and accounts
// (tokens are kept per account endpoint and container); it is safe for concurrent use.
//
// What it sends, as the .NET SDK's gateway mode does (GatewayStoreModel.ApplySessionTokenAsync):
// a request that carries no x-ms-session-token of its own gets the container's tokens (merged
// with those of WithSessionToken for the container) when session consistency applies to it (its
// x-ms-consistency-level is Session, or it has none and the account's default is Session or not
// yet known), and it is a read of documents (point read, query, read many, read all, change feed),
// a transactional batch (which may read), or, on a multi-write account, a document write. A
// request with a weaker level (Eventual, ConsistentPrefix) or a stronger one gets none. The
// composite token names every physical partition the container has answered from; the gateway
// uses the one of the partition it serves.
//
// What it captures: the x-ms-session-token of every document response (success, 404, 409, 412,
// ...) except 404/1002, merged per physical partition (the higher LSN, per region on multi-write
// accounts), into the container's tokens and into each Session of the request's context. A
// container's tokens are dropped when this client deletes it or its database;
// a container re-created by another process under the same name keeps its old tokens until
// eviction, and its reads may answer 404/1002 (cosmoserr.ErrSessionNotAvailable) meanwhile.
type Policy struct {
	opts     Options
	store    *store
	accounts sync.Map // account host → azcosmos.ConsistencyLevel (the default, from GET /)
}

// NewPolicy returns a session container configured by o.
func NewPolicy(o Options) *Policy {
	o = o.withDefaults()
	return &Policy{opts: o, store: newStore(o.MaxContainers)}
}

// Options returns the options in effect, defaults filled in.
func (p *Policy) Options() Options { return p.opts }

// Token returns the merged session token the policy holds for a container of the account at
// endpoint (the URL the client was built with), "" if none.
func (p *Policy) Token(endpoint, database, container string) string {
	_, h := p.store.get(storeKey(hostOf(endpoint), link(database, container)))
	return h
}

// AccountLevel returns the default consistency level of the account at endpoint, as its metadata
// said, "" until the client has read it.
func (p *Policy) AccountLevel(endpoint string) azcosmos.ConsistencyLevel {
	return p.accountLevel(hostOf(endpoint))
}

func (p *Policy) accountLevel(host string) azcosmos.ConsistencyLevel {
	l, _ := p.accounts.Load(host)
	lv, _ := l.(azcosmos.ConsistencyLevel)
	return lv
}

func hostOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint
	}
	return u.Host
}

func storeKey(host, l string) string { return host + "/" + l }

// Do implements policy.Policy.
func (p *Policy) Do(req *policy.Request) (*http.Response, error) {
	raw := req.Raw()
	ctx := raw.Context()
	op := wire.Classify(raw)
	host := raw.URL.Host // the account endpoint: regional routing happens below, per retry
	switch op.Name {
	case wire.OpReadAccount:
		resp, err := req.Next()
		if err == nil {
			p.learnAccount(host, resp)
		}
		return resp, err
	case wire.OpDeleteContainer, wire.OpDeleteDatabase:
		resp, err := req.Next()
		if err == nil && resp.StatusCode < 300 {
			if op.Name == wire.OpDeleteContainer {
				p.store.forget(storeKey(host, link(op.Database, op.Container)), false)
			} else {
				p.store.forget(storeKey(host, "dbs/"+op.Database+"/"), true)
			}
		}
		return resp, err
	}
	lv, hasLevel := levelFrom(ctx)
	if hasLevel && lv.err != nil {
		return nil, lv.err
	}
	l := link(op.Database, op.Container)
	given, err := givenFor(ctx, l)
	if err != nil {
		return nil, err
	}
	kind := classify(op.Name)
	if kind == other || op.Container == "" {
		return req.Next()
	}
	key := storeKey(host, l)
	h := raw.Header
	levelSet := false
	if hasLevel && kind == read && h.Get(wire.HeaderConsistency) == "" {
		h.Set(wire.HeaderConsistency, string(lv.level))
		levelSet = true
	}
	if h.Get(wire.HeaderSessionToken) == "" && p.sessionApplies(host, h.Get(wire.HeaderConsistency)) &&
		(kind != write || h.Get(wire.HeaderAllowTentativeWrites) == "true") {
		own, header := p.store.get(key)
		if len(given) > 0 {
			given = wire.MergeSessionTokenLists(given, own)
			header = wire.FormatSessionTokens(given)
		}
		if header != "" {
			h.Set(wire.HeaderSessionToken, header)
		}
	}
	resp, err := req.Next()
	if err != nil {
		return resp, err
	}
	p.capture(ctx, key, l, resp)
	if levelSet && resp.StatusCode == http.StatusBadRequest && p.levelRefused(host, lv.level, resp) {
		return nil, &LevelError{Requested: lv.level, Account: p.accountLevel(host),
			Err: runtime.NewResponseErrorWithErrorCode(resp, resp.Status)}
	}
	return resp, nil
}

// capture merges the response's session token into the container's and the context's sessions.
func (p *Policy) capture(ctx context.Context, key, l string, resp *http.Response) {
	tok := resp.Header.Get(wire.HeaderSessionToken)
	if tok == "" || (resp.StatusCode == http.StatusNotFound && wire.SubStatus(resp.Header) == wire.SubStatusReadSessionNotAvailable) {
		return
	}
	ts, err := wire.ParseSessionTokens(tok)
	if err != nil {
		return // not the service's format: nothing to merge
	}
	p.store.merge(key, ts)
	if s, _ := ctx.Value(sessionKey{}).(*Session); s != nil {
		s.record(l, ts)
	}
}

// sessionApplies reports whether session consistency applies to a request with the given
// x-ms-consistency-level header on the account at host.
func (p *Policy) sessionApplies(host, requested string) bool {
	if requested != "" {
		return requested == string(azcosmos.ConsistencyLevelSession)
	}
	acct := p.accountLevel(host)
	return acct == "" || acct == azcosmos.ConsistencyLevelSession
}

// strength orders the levels, strongest first.
var strength = map[azcosmos.ConsistencyLevel]int{
	azcosmos.ConsistencyLevelStrong: 5, azcosmos.ConsistencyLevelBoundedStaleness: 4,
	azcosmos.ConsistencyLevelSession: 3, azcosmos.ConsistencyLevelConsistentPrefix: 2,
	azcosmos.ConsistencyLevelEventual: 1,
}

// levelRefused reports whether a 400 to a request whose level the policy set is the service's
// refusal of a level stronger than the account's: the account's level is known and weaker, or,
// when it is not known, the error message names the consistency level.
func (p *Policy) levelRefused(host string, requested azcosmos.ConsistencyLevel, resp *http.Response) bool {
	if acct := p.accountLevel(host); acct != "" {
		return strength[requested] > strength[acct]
	}
	return strings.Contains(strings.ToLower(wire.ResponseMessage(resp)), "consistency")
}

// learnAccount reads the account's default consistency from a GET / response, leaving the body
// readable for the SDK.
func (p *Policy) learnAccount(host string, resp *http.Response) {
	if resp.StatusCode != http.StatusOK || resp.Body == nil {
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return
	}
	if a, ok := wire.ParseAccount(body); ok && a.DefaultConsistency != "" {
		p.accounts.Store(host, azcosmos.ConsistencyLevel(a.DefaultConsistency))
	}
}

type opKind int

const (
	other opKind = iota
	read         // document reads: session token and the context's level
	batch        // a transactional batch: session token only
	write        // document writes: session token on multi-write accounts only
)

func classify(name string) opKind {
	switch name {
	case wire.OpReadItem, wire.OpQueryItems, wire.OpReadAllItems, wire.OpReadChangeFeed:
		return read
	case wire.OpExecuteBatch:
		return batch
	case wire.OpCreateItem, wire.OpUpsertItem, wire.OpReplaceItem, wire.OpPatchItem, wire.OpDeleteItem:
		return write
	}
	return other
}
