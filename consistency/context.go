package consistency

import (
	"context"
	"slices"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

type tokenKey struct{}
type levelKey struct{}
type sessionKey struct{}

// given is a session token a caller handed in for one container (WithSessionToken), or the error
// that refuses every request made with the context.
type given struct {
	parent *given
	link   string
	tokens []wire.SessionToken
	err    error
}

// link names a container as its resource path does: "dbs/<db>/colls/<coll>".
func link(database, container string) string { return "dbs/" + database + "/colls/" + container }

// WithSessionToken returns a context whose requests to container (in database) carry token, a
// session token captured by another instance (Session.Token there).
//
// With it, a read here sees every write that token covers, in whichever region it lands. The policy
// sends it merged with the container's own token, on the requests it sends session tokens with (see
// Policy). Calling it again adds tokens: for another container, or merged with the first for the
// same one.
//
// The token is checked at once, since it may be an end user's cookie: a malformed token, or one
// longer than 16 KiB, is a *cosmoserr.ValidationError matching cosmoserr.ErrInvalidSessionToken,
// and the returned context makes every item, query and feed request fail with that error before
// anything is sent (so a caller that ignores the error does not read without it; account reads and
// database or container deletes still pass). An empty token is no token: ctx is returned as is.
// Empty database or container ids are a *cosmoserr.ValidationError too.
//
// A token is scoped to one container because its range ids and LSNs mean nothing elsewhere: sent
// to another container it would make reads wait for LSNs that container never reaches.
func WithSessionToken(ctx context.Context, database, container, token string) (context.Context, error) {
	parent, _ := ctx.Value(tokenKey{}).(*given)
	var err error
	switch {
	case database == "":
		err = &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "database", Reason: "is empty"}
	case container == "":
		err = &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "container", Reason: "is empty"}
	case token == "":
		return ctx, nil
	}
	var ts []wire.SessionToken
	if err == nil {
		var perr error
		if ts, perr = wire.ParseSessionTokens(token); perr != nil {
			err = &cosmoserr.ValidationError{Kind: cosmoserr.ErrInvalidSessionToken, Field: "token",
				Reason: "is not a session token in the service's format (<range>:<version>#<lsn>[#<region>=<lsn>...], comma-separated, at most 16 KiB)"}
		}
	}
	if err != nil {
		return context.WithValue(ctx, tokenKey{}, &given{parent: parent, err: err}), err
	}
	return context.WithValue(ctx, tokenKey{}, &given{parent: parent, link: link(database, container), tokens: ts}), nil
}

// givenFor returns the tokens ctx carries for the container, merged, and the refusal error of a
// bad token if ctx carries one.
func givenFor(ctx context.Context, l string) ([]wire.SessionToken, error) {
	var out []wire.SessionToken
	for g, _ := ctx.Value(tokenKey{}).(*given); g != nil; g = g.parent {
		if g.err != nil {
			return nil, g.err
		}
		if g.link == l {
			out = wire.MergeSessionTokenLists(out, g.tokens)
		}
	}
	return out, nil
}

// level is a consistency level for the requests made with a context, or the error refusing them.
type level struct {
	level azcosmos.ConsistencyLevel
	err   error
}

// WithLevel returns a context whose reads (point reads, queries, read many, change feed) ask for
// consistency level l (the x-ms-consistency-level header), e.g. Eventual for a dashboard that
// may lag. A request may only relax the account's level: the service refuses a stronger one,
// which the policy reports as a *LevelError matching cosmoserr.ErrLevelTooStrong. A level the request sets
// itself (ItemOptions.ConsistencyLevel) wins. A level that is not one of
// azcosmos.ConsistencyLevelValues() is a *cosmoserr.ValidationError matching cosmoserr.ErrInvalidLevel, and the
// returned context refuses every item, query and feed request with it before anything is sent
// (account reads and database or container deletes still pass).
func WithLevel(ctx context.Context, l azcosmos.ConsistencyLevel) (context.Context, error) {
	if !slices.Contains(azcosmos.ConsistencyLevelValues(), l) {
		err := &cosmoserr.ValidationError{Kind: cosmoserr.ErrInvalidLevel, Field: "level",
			Reason: "is not one of Strong, BoundedStaleness, Session, ConsistentPrefix, Eventual"}
		return context.WithValue(ctx, levelKey{}, level{err: err}), err
	}
	return context.WithValue(ctx, levelKey{}, level{level: l}), nil
}

func levelFrom(ctx context.Context) (level, bool) {
	l, ok := ctx.Value(levelKey{}).(level)
	return l, ok
}

// Session records the session tokens of every response to the requests made with a context from
// [Capture], per container. Each is the token to hand to another instance of the service (a
// cookie or a header) so that its reads see this instance's writes. It is safe for concurrent use; the
// methods of a nil *Session return zero values.
type Session struct {
	parent *Session
	mu     sync.Mutex
	tokens map[string][]wire.SessionToken
}

// Capture returns a context carrying a new [Session], and the session. Every response to a
// request made with the context (or one derived from it) through a client with [Policy]
// installed merges its session token into it. Sessions nest: a response is recorded in every
// session of the context.
func Capture(ctx context.Context) (context.Context, *Session) {
	s := &Session{parent: sessionFrom(ctx)}
	return context.WithValue(ctx, sessionKey{}, s), s
}

func sessionFrom(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// Token returns the composite session token recorded for the container, "" if none: pass it to
// WithSessionToken in the other instance, or as ItemOptions.SessionToken. It holds one token per
// physical partition, comma-separated, in the service's format.
func (s *Session) Token(database, container string) string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := s.tokens[link(database, container)]
	if len(ts) == 0 {
		return ""
	}
	return wire.FormatSessionTokens(ts)
}

func (s *Session) record(l string, ts []wire.SessionToken) {
	for ; s != nil; s = s.parent {
		s.mu.Lock()
		if s.tokens == nil {
			s.tokens = make(map[string][]wire.SessionToken)
		}
		cur := s.tokens[l]
		s.tokens[l] = wire.MergeSessionTokenLists(cur, ts)
		s.mu.Unlock()
	}
}
