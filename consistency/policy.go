package consistency

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
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
	// reads again). Default (0): DefaultMaxContainers (1000); negative is refused.
	MaxContainers int
	// Disable turns the session container off: cosmoskit.New installs none (requests carry a
	// session token or a consistency level only when the caller sets them in the SDK's options,
	// and the context options of this package do nothing), and a Policy built with it passes
	// every request through. Default: false.
	Disable bool
}

func (o Options) withDefaults() Options {
	if o.MaxContainers == 0 {
		o.MaxContainers = DefaultMaxContainers
	}
	return o
}

// Policy is the session container of an azcosmos client, as the .NET and Java SDKs have one. It is a
// per-call azcore policy that captures x-ms-session-token from every document response and sends
// the container's merged token with the requests that need it, so that one client reads its own
// writes in every region. It also applies the context options of this package (WithSessionToken,
// WithLevel, Capture). cosmoskit.New installs one by default (Config.Session.Disable leaves it out); for
// a client built without cosmoskit, add it to azcosmos.ClientOptions.PerCallPolicies:
//
//	opts := &azcosmos.ClientOptions{}
//	session, err := consistency.NewPolicy(consistency.Options{})
//	...
//	opts.PerCallPolicies = append(opts.PerCallPolicies, session)
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
// container's tokens are dropped when this client deletes it or its database, and when a request
// that carried them is still answered 404/1002 after the SDK's write-region retry (a container
// re-created by another process under the same name starts its LSNs again): the policy then
// clears them and sends the request once more, once per request, as .NET's
// ClearingSessionContainerClientRetryPolicy does.
type Policy struct {
	opts     Options
	store    *store
	accounts sync.Map // account host → azcosmos.ConsistencyLevel (the default, from GET /)
}

// NewPolicy returns a session container configured by o. Errors: a *cosmoserr.ValidationError
// (matching cosmoserr.ErrValidation) for a negative Options.MaxContainers.
func NewPolicy(o Options) (*Policy, error) {
	if o.MaxContainers < 0 {
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "Options.MaxContainers",
			Reason: "must not be negative (0 means the default, 1000)"}
	}
	o = o.withDefaults()
	return &Policy{opts: o, store: newStore(o.MaxContainers)}, nil
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

// sessionHeaderKey is the canonical form of x-ms-session-token, as http.Header.Set writes it.
var sessionHeaderKey = http.CanonicalHeaderKey(wire.HeaderSessionToken)

func storeKey(host, l string) string { return host + "/" + l }

// Do implements policy.Policy.
func (p *Policy) Do(req *policy.Request) (*http.Response, error) {
	if p.opts.Disable {
		return req.Next()
	}
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
	key := storeKey(host, link(op.Database, op.Container)) // one allocation for both
	l := key[len(host)+1:]
	given, err := givenFor(ctx, l)
	if err != nil {
		return nil, err
	}
	kind := classify(op.Name)
	if kind == other || op.Container == "" {
		return req.Next()
	}
	h := raw.Header
	levelSet := false
	if hasLevel && kind == read && h.Get(wire.HeaderConsistency) == "" {
		h.Set(wire.HeaderConsistency, string(lv.level))
		levelSet = true
	}
	fromStore := false // the request carries the container's tokens
	if h.Get(wire.HeaderSessionToken) == "" && p.sessionApplies(host, h.Get(wire.HeaderConsistency)) &&
		(kind != write || h.Get(wire.HeaderAllowTentativeWrites) == "true") {
		own, header := p.store.get(key)
		fromStore = len(own) > 0
		if len(given) > 0 {
			given = wire.MergeSessionTokenLists(given, own)
			header = wire.FormatSessionTokens(given)
		} else if v := p.store.value(key); len(v) == 1 && v[0] == header {
			h[sessionHeaderKey] = v // the store's tokens as they are: no new slice (h.Set's)
			header = ""
		}
		if header != "" {
			h.Set(wire.HeaderSessionToken, header)
		}
	}
	resp, err := req.Next()
	if fromStore && sessionNotAvailable(resp, err) {
		// Every region the SDK tried is behind the container's tokens: the container may have
		// been re-created by another process, its LSNs starting again. Clear its tokens and retry
		// once, as .NET's ClearingSessionContainerClientRetryPolicy does (tokens the caller gave
		// with WithSessionToken stay).
		p.store.forget(key, false)
		h.Del(wire.HeaderSessionToken)
		if len(given) > 0 {
			h.Set(wire.HeaderSessionToken, wire.FormatSessionTokens(given))
		}
		if rerr := req.RewindBody(); rerr == nil {
			if resp != nil && resp.Body != nil {
				resp.Body.Close()
			}
			resp, err = req.Next()
		}
	}
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

// sessionNotAvailable reports whether a request ended with 404/1002 (read session not available),
// as a response or as the SDK's error after its own retry.
func sessionNotAvailable(resp *http.Response, err error) bool {
	if err != nil {
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.RawResponse == nil {
			return false
		}
		resp = re.RawResponse
	}
	return resp != nil && resp.StatusCode == http.StatusNotFound &&
		wire.SubStatus(resp.Header) == wire.SubStatusReadSessionNotAvailable
}

// capture merges the response's session token into the container's and the context's sessions.
func (p *Policy) capture(ctx context.Context, key, l string, resp *http.Response) {
	tok := resp.Header.Get(wire.HeaderSessionToken)
	if tok == "" || sessionNotAvailable(resp, nil) {
		return
	}
	s, _ := ctx.Value(sessionKey{}).(*Session)
	if s == nil && p.store.holdsRaw(key, tok) {
		return // a token the container holds already, byte for byte (most reads): nothing to parse
	}
	ts, err := wire.ParseSessionTokens(tok)
	if err != nil {
		return // not the service's format: nothing to merge
	}
	p.store.merge(key, ts)
	if s != nil {
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
