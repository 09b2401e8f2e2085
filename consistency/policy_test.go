package consistency_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// TestTokensCapturedPerContainerAndAttached: a write's token is captured for its container and
// sent with the next read, query and change feed read of that container, never of another one;
// the write itself (single-write account) carries none.
func TestTokensCapturedPerContainerAndAttached(t *testing.T) {
	p := newPolicy(t, consistency.Options{})
	e := newEnv(t, p, nil)
	ctx := context.Background()
	a, b := e.container(t, "a"), e.container(t, "b")

	tokA := upsert(t, ctx, a, "1", "x")
	if w := e.log.last(t); w.session != "" {
		t.Errorf("a write on a single-write account carried session token %q", w.session)
	}
	if got := p.Token(e.s.Endpoint(), "db", "a"); !covers(t, got, tokA) {
		t.Fatalf("the policy holds %q for a, want it to cover the write's %q", got, tokA)
	}
	if got := p.Token(e.s.Endpoint(), "db", "b"); got != "" {
		t.Errorf("the policy holds %q for b, which has not answered yet", got)
	}

	if _, err := a.ReadItem(ctx, pk, "1", nil); err != nil {
		t.Fatal(err)
	}
	if r := e.log.last(t); !covers(t, r.session, tokA) {
		t.Errorf("the read of a carried %q, want a token covering %q", r.session, tokA)
	}
	pager := a.NewQueryItemsPager("SELECT * FROM c", pk, nil)
	if _, err := pager.NextPage(ctx); err != nil {
		t.Fatal(err)
	}
	if r := e.log.last(t); !covers(t, r.session, tokA) {
		t.Errorf("the query of a carried %q, want a token covering %q", r.session, tokA)
	}

	if _, err := b.ReadItem(ctx, pk, "1", nil); !errors.Is(cosmoserr.FromError("", err), cosmoserr.ErrNotFound) {
		t.Fatalf("read in b: %v", err)
	}
	if r := e.log.last(t); r.session != "" {
		t.Errorf("the read of b carried %q: a's token leaked to another container", r.session)
	}
	tokB := upsert(t, ctx, b, "1", "y")
	if _, err := b.ReadItem(ctx, pk, "1", nil); err != nil {
		t.Fatal(err)
	}
	if r := e.log.last(t); r.session != p.Token(e.s.Endpoint(), "db", "b") || !covers(t, r.session, tokB) {
		t.Errorf("the read of b carried %q, want b's own %q", r.session, p.Token(e.s.Endpoint(), "db", "b"))
	}
}

// TestCapture: every response of a context's requests is recorded, per container, and nested
// sessions both see it.
func TestCapture(t *testing.T) {
	p := newPolicy(t, consistency.Options{})
	e := newEnv(t, p, nil)
	outerCtx, outer := consistency.Capture(context.Background())
	ctx, inner := consistency.Capture(outerCtx)
	tok := upsert(t, ctx, e.container(t, "a"), "1", "x")
	if got := inner.Token("db", "a"); !covers(t, got, tok) || !covers(t, tok, got) {
		t.Errorf("inner session %q, want the write's %q", got, tok)
	}
	if got := outer.Token("db", "a"); !covers(t, got, tok) {
		t.Errorf("outer session %q, want the write's %q", got, tok)
	}
	if got := inner.Token("db", "b"); got != "" {
		t.Errorf("session for b = %q, want none", got)
	}
	// A read is recorded too (the token it saw).
	ctx2, reads := consistency.Capture(context.Background())
	if _, err := e.container(t, "a").ReadItem(ctx2, pk, "1", nil); err != nil {
		t.Fatal(err)
	}
	if reads.Token("db", "a") == "" {
		t.Error("a read's token was not recorded")
	}
	var none *consistency.Session
	if none.Token("db", "a") != "" {
		t.Error("a nil session has a token")
	}
}

// TestHandOff: a token captured through one client and handed to another (another instance) is
// sent by the second, merged with the second's own token.
func TestHandOff(t *testing.T) {
	p1 := newPolicy(t, consistency.Options{})
	e := newEnv(t, p1, nil)
	p2 := newPolicy(t, consistency.Options{})
	db2 := newDB(t, e.s, p2)
	a2, _ := db2.NewContainer("a")
	own := upsert(t, context.Background(), a2, "other", "z") // the second instance's own write

	ctx, s := consistency.Capture(context.Background())
	tok := upsert(t, ctx, e.container(t, "a"), "1", "x")
	handed := s.Token("db", "a")
	if !covers(t, handed, tok) {
		t.Fatalf("captured %q, want it to cover %q", handed, tok)
	}
	rctx, err := consistency.WithSessionToken(context.Background(), "db", "a", handed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a2.ReadItem(rctx, pk, "1", nil); err != nil {
		t.Fatal(err)
	}
	r := e.log.last(t)
	if !covers(t, r.session, handed) || !covers(t, r.session, own) {
		t.Errorf("the second instance sent %q, want the merge of the handed %q and its own %q", r.session, handed, own)
	}
	// The handed token is for a only.
	b2, _ := db2.NewContainer("b")
	if _, err := b2.ReadItem(rctx, pk, "1", nil); err == nil {
		t.Fatal("read an item never written")
	}
	if r := e.log.last(t); r.session != "" {
		t.Errorf("the read of b sent %q: a token handed for a went to b", r.session)
	}
}

// TestExplicitTokenWins: a token the request sets itself (ItemOptions.SessionToken) is sent as is.
func TestExplicitTokenWins(t *testing.T) {
	p := newPolicy(t, consistency.Options{})
	e := newEnv(t, p, nil)
	a := e.container(t, "a")
	upsert(t, context.Background(), a, "1", "x")
	explicit := "0:-1#1"
	if _, err := a.ReadItem(context.Background(), pk, "1", &azcosmos.ItemOptions{SessionToken: &explicit}); err != nil {
		t.Fatal(err)
	}
	if r := e.log.last(t); r.session != explicit {
		t.Errorf("sent %q, want the request's own %q", r.session, explicit)
	}
}

// TestMalformedTokenRefused: a bad token from an end user is a typed validation error, and a
// request made with the context anyway is refused before anything is sent.
func TestMalformedTokenRefused(t *testing.T) {
	p := newPolicy(t, consistency.Options{})
	e := newEnv(t, p, nil)
	a := e.container(t, "a")
	upsert(t, context.Background(), a, "1", "x")
	bad := []string{"garbage", "0:", "0:abc", "0:-1#x", "0:-1#1#0=1#0=2", ":1", "0:-1#1,", "0:-1#1\n#", strings.Repeat("0:-1#1,", 4000)}
	for _, tok := range bad {
		before := e.log.count()
		ctx, err := consistency.WithSessionToken(context.Background(), "db", "a", tok)
		var ve *cosmoserr.ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, cosmoserr.ErrInvalidSessionToken) || !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("%.20q: err = %v, want a ValidationError matching ErrInvalidSessionToken", tok, err)
			continue
		}
		if strings.Contains(err.Error(), tok) && len(tok) > 3 {
			t.Errorf("%.20q: the error echoes the token", tok)
		}
		_, err = a.ReadItem(ctx, pk, "1", nil)
		if !errors.Is(err, cosmoserr.ErrInvalidSessionToken) {
			t.Errorf("%.20q: read with the context: %v, want ErrInvalidSessionToken", tok, err)
		}
		if n := e.log.count() - before; n != 0 {
			t.Errorf("%.20q: %d requests reached the server", tok, n)
		}
	}
	for _, tt := range []struct{ db, c string }{{"", "a"}, {"db", ""}} {
		if _, err := consistency.WithSessionToken(context.Background(), tt.db, tt.c, "0:-1#1"); !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("WithSessionToken(%q, %q): %v, want ErrValidation", tt.db, tt.c, err)
		}
	}
	if ctx, err := consistency.WithSessionToken(context.Background(), "db", "a", ""); err != nil || ctx != context.Background() {
		t.Errorf("an empty token: %v", err)
	}
}

// TestWithLevel: a relaxed level goes on reads only and leaves the session token off; an unknown
// level is refused before sending.
func TestWithLevel(t *testing.T) {
	p := newPolicy(t, consistency.Options{})
	e := newEnv(t, p, nil)
	a := e.container(t, "a")
	upsert(t, context.Background(), a, "1", "x")
	ctx, err := consistency.WithLevel(context.Background(), azcosmos.ConsistencyLevelEventual)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.ReadItem(ctx, pk, "1", nil); err != nil {
		t.Fatal(err)
	}
	if r := e.log.last(t); r.level != "Eventual" || r.session != "" {
		t.Errorf("an Eventual read sent level %q and token %q; want Eventual and none", r.level, r.session)
	}
	upsert(t, ctx, a, "2", "y")
	if r := e.log.last(t); r.level != "" {
		t.Errorf("a write sent level %q", r.level)
	}
	ctx, err = consistency.WithLevel(context.Background(), azcosmos.ConsistencyLevelSession)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.ReadItem(ctx, pk, "1", nil); err != nil {
		t.Fatal(err)
	}
	if r := e.log.last(t); r.level != "Session" || r.session == "" {
		t.Errorf("a Session read sent level %q and token %q", r.level, r.session)
	}

	before := e.log.count()
	ctx, err = consistency.WithLevel(context.Background(), "Linearizable")
	if !errors.Is(err, cosmoserr.ErrInvalidLevel) || !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("err = %v, want ErrInvalidLevel", err)
	}
	if _, err := a.ReadItem(ctx, pk, "1", nil); !errors.Is(err, cosmoserr.ErrInvalidLevel) {
		t.Errorf("read: %v, want ErrInvalidLevel", err)
	}
	if n := e.log.count() - before; n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// TestLevelTooStrong: the service's 400 for a level stronger than the account's is a LevelError.
// (The refusal is injected: the server's own validation of the header is the replica work.)
func TestLevelTooStrong(t *testing.T) {
	p := newPolicy(t, consistency.Options{})
	e := newEnv(t, p, nil)
	a := e.container(t, "a")
	upsert(t, context.Background(), a, "1", "x")
	e.s.InjectFault(cosmostest.Fault{Match: func(r *http.Request) bool { return r.Header.Get(wire.HeaderConsistency) == "Strong" },
		Status: http.StatusBadRequest, Message: "Invalid value 'Strong' for x-ms-consistency-level: stronger than the account's Session"})
	ctx, err := consistency.WithLevel(context.Background(), azcosmos.ConsistencyLevelStrong)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.ReadItem(ctx, pk, "1", nil)
	var le *consistency.LevelError
	if !errors.As(err, &le) || !errors.Is(err, cosmoserr.ErrLevelTooStrong) {
		t.Fatalf("err = %v, want a LevelError", err)
	}
	if le.Requested != azcosmos.ConsistencyLevelStrong || le.Account != azcosmos.ConsistencyLevelSession {
		t.Errorf("LevelError %+v", le)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusBadRequest || !errors.Is(err, cosmoserr.ErrBadRequest) ||
		!errors.Is(cosmoserr.FromError("", err), cosmoserr.ErrBadRequest) {
		t.Errorf("err does not unwrap to the service's 400: %v", err)
	}
	if got := p.AccountLevel(e.s.Endpoint()); got != azcosmos.ConsistencyLevelSession {
		t.Errorf("AccountLevel = %q", got)
	}
}

// TestAccountNotSession: on an Eventual account reads carry no token, and asking for Session (a
// stronger level) is the server's 400, reported as a LevelError.
func TestAccountNotSession(t *testing.T) {
	p := newPolicy(t, consistency.Options{})
	e := newEnv(t, p, nil, cosmostest.WithDefaultConsistency("Eventual"))
	a := e.container(t, "a")
	upsert(t, context.Background(), a, "1", "x")
	if _, err := a.ReadItem(context.Background(), pk, "1", nil); err != nil {
		t.Fatal(err)
	}
	if r := e.log.last(t); r.session != "" {
		t.Errorf("a read on an Eventual account carried %q", r.session)
	}
	ctx, _ := consistency.WithLevel(context.Background(), azcosmos.ConsistencyLevelSession)
	_, err := a.ReadItem(ctx, pk, "1", nil)
	var le *consistency.LevelError
	if !errors.As(err, &le) || le.Requested != azcosmos.ConsistencyLevelSession || le.Account != azcosmos.ConsistencyLevelEventual {
		t.Fatalf("a Session read on an Eventual account: %v, want a LevelError", err)
	}
}

// TestLevelErrorIsBadRequestOnAPlainClient: the server's own refusal of a level stronger than the
// account's, read through a plain azcosmos client (no repository, no cosmoserr.FromError), matches
// cosmoserr.ErrBadRequest and cosmoserr.ErrLevelTooStrong with errors.Is, as documented.
func TestLevelErrorIsBadRequestOnAPlainClient(t *testing.T) {
	p := newPolicy(t, consistency.Options{})
	e := newEnv(t, p, nil, cosmostest.WithDefaultConsistency("Eventual"))
	a := e.container(t, "a")
	upsert(t, context.Background(), a, "1", "x")
	ctx, err := consistency.WithLevel(context.Background(), azcosmos.ConsistencyLevelStrong)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.ReadItem(ctx, pk, "1", nil)
	if !errors.Is(err, cosmoserr.ErrBadRequest) || !errors.Is(err, cosmoserr.ErrLevelTooStrong) {
		t.Fatalf("a Strong read on an Eventual account: %v, want ErrBadRequest and ErrLevelTooStrong", err)
	}
	if errors.Is(err, cosmoserr.ErrValidation) || errors.Is(err, cosmoserr.ErrNotFound) {
		t.Errorf("%v matches a sentinel it is not", err)
	}
}

// TestMultiWriteWritesCarryTokens: on a multi-write account writes carry the token too.
func TestMultiWriteWritesCarryTokens(t *testing.T) {
	p := newPolicy(t, consistency.Options{})
	e := newEnv(t, p, nil, cosmostest.WithRegions("West US", "East US"), cosmostest.WithMultiWrite())
	a := e.container(t, "a")
	tok := upsert(t, context.Background(), a, "1", "x")
	upsert(t, context.Background(), a, "2", "y")
	if r := e.log.last(t); !covers(t, r.session, tok) {
		t.Errorf("a multi-write write carried %q, want a token covering %q", r.session, tok)
	}
}

// TestBoundedContainers: past MaxContainers the least recently used container is forgotten;
// deleting a container forgets it too.
func TestBoundedContainers(t *testing.T) {
	p := newPolicy(t, consistency.Options{MaxContainers: 2})
	if p.Options().MaxContainers != 2 || newPolicy(t, consistency.Options{}).Options().MaxContainers != consistency.DefaultMaxContainers {
		t.Errorf("Options() = %+v", p.Options())
	}
	if _, err := consistency.NewPolicy(consistency.Options{MaxContainers: -1}); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Errorf("NewPolicy(MaxContainers: -1) = %v, want a refusal matching ErrValidation", err)
	}
	e := newEnv(t, p, []string{"c"})
	ctx := context.Background()
	upsert(t, ctx, e.container(t, "a"), "1", "x")
	upsert(t, ctx, e.container(t, "b"), "1", "x")
	if _, err := e.container(t, "a").ReadItem(ctx, pk, "1", nil); err != nil { // a is now the most recent
		t.Fatal(err)
	}
	upsert(t, ctx, e.container(t, "c"), "1", "x")
	ep := e.s.Endpoint()
	if p.Token(ep, "db", "b") != "" || p.Token(ep, "db", "a") == "" || p.Token(ep, "db", "c") == "" {
		t.Errorf("after a third container: a %q, b %q, c %q; want b evicted", p.Token(ep, "db", "a"), p.Token(ep, "db", "b"), p.Token(ep, "db", "c"))
	}
	if _, err := e.container(t, "c").Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if p.Token(ep, "db", "c") != "" || p.Token(ep, "db", "a") == "" {
		t.Errorf("after deleting c: a %q, c %q", p.Token(ep, "db", "a"), p.Token(ep, "db", "c"))
	}
}

// TestDisabledPolicyPassesThrough: a Policy built with Options.Disable captures nothing and sends
// no token: the read after a write carries none.
func TestDisabledPolicyPassesThrough(t *testing.T) {
	p := newPolicy(t, consistency.Options{Disable: true})
	if !p.Options().Disable {
		t.Fatal("Options().Disable = false")
	}
	e := newEnv(t, p, nil)
	ctx := context.Background()
	a := e.container(t, "a")
	upsert(t, ctx, a, "1", "x")
	if got := p.Token(e.s.Endpoint(), "db", "a"); got != "" {
		t.Errorf("a disabled policy holds %q", got)
	}
	if _, err := a.ReadItem(ctx, pk, "1", nil); err != nil {
		t.Fatal(err)
	}
	if r := e.log.last(t); r.session != "" {
		t.Errorf("the read carried %q through a disabled policy", r.session)
	}
}
