// Package consistency gives an azcosmos client read-your-writes in every region, and session
// tokens and consistency levels chosen per request.
//
//	ctx, session := consistency.Capture(ctx)      // instance 1: record this request's tokens
//	// ... writes ...
//	token := session.Token("shop", "orders")      // hand it on in a cookie or a header
//	ctx, err := consistency.WithSessionToken(ctx, "shop", "orders", token) // instance 2: reads see those writes
//
// It is the client side of session tokens and consistency levels: a session container ([Policy])
// that gives one azcosmos client read-your-writes in every region, as the .NET and Java SDKs'
// session containers do (azcosmos has none: it sends a session token only when the caller sets
// ItemOptions.SessionToken), and context options for the requests of a unit of work:
//
//   - [Capture] records the session token of every response, per container: hand
//     Session.Token to another instance of the service (a cookie or a header), so that its next
//     read sees this instance's writes even in another region;
//   - [WithSessionToken] sends such a token (checked before anything is sent: it may be an end
//     user's input), merged with the client's own;
//   - [WithLevel] relaxes the consistency level of reads (Eventual for a dashboard), never
//     strengthens it (the service refuses; [cosmoserr.ErrLevelTooStrong]).
//
// # Where it works
//
// Everything lives in [Policy], an azcore per-call policy: it sees every request of the client's
// pipeline, so package repository, vector, changefeed and crosspartition get it with no code of
// their own. cosmoskit.New installs it by default (turn it off with
// cosmoskit.Config.Session.Disable; read it back with cosmoskit.Client.Session). A client
// built without cosmoskit needs it in azcosmos.ClientOptions.PerCallPolicies; without it the
// context options of this package do nothing (nothing else reads them).
//
// Errors: a bad token or level is a [*cosmoserr.ValidationError] (cosmoserr.ErrValidation and its Kind) before any
// request; the service's refusal of a stronger level is a [*LevelError]; a read whose token is
// ahead of every region it reached, after the retries of package retry and azcosmos, is
// cosmoserr.ErrSessionNotAvailable (404/1002).
//
// Tokens from end users: a session token only orders reads, it grants no access (the container and
// the key decide what is read), and WithSessionToken bounds it (16 KiB) and checks its format. A
// well-formed token far ahead of the service (a forged LSN) still costs each read of that context
// the in-region session retries (package retry, 500 ms by default) and one read in the write
// region before cosmoserr.ErrSessionNotAvailable; 404/1002 never counts against a region's circuit
// breaker, so it cannot take a region out. Sign the cookie or header that carries a token between
// instances (examples/global signs it with HMAC-SHA256) so that only tokens the service issued
// come back.
//
// A Session and the tokens of WithSessionToken are kept by database and container name, not by
// account: use one context per account when one unit of work reads two accounts that share
// container names (a migration, a dual write).
//
// The token format (parse, merge, covers) has one home, internal/wire, shared with cosmostest.
package consistency
