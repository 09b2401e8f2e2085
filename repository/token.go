package repository

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/tokenmac"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Page tokens are base64url(tag ‖ service continuation). The tag is 16 bytes of HMAC-SHA256
// (internal/tokenmac) over everything that decides which results a continuation is a position in
// and over the continuation itself: the account endpoint, database and container the repository
// runs on, the query text, its parameters (names and values, as canonical JSON), its scope (the
// partition key, or cross-partition) and every byte of the continuation. A token truncated, with
// any byte changed, or of another account, database, container, query, parameter values or
// partition key is refused (cosmoserr.ErrInvalidToken) before any request. Options.TokenSigningKey keys the
// MAC: without it the tag is an integrity check anyone can recompute (see the package doc).
const bindingSize = 16

// tokenBinding identifies one query run: container, text, parameter values and scope.
type tokenBinding [bindingSize]byte

// tokenDomain separates the binding from any other use of the MAC, and names the format.
const tokenDomain = "cosmoskit-go/repository page token v3"

// bindToken returns the binding of rq (q rendered) run in q's scope on c's container. An
// azcosmos.PartitionKey scope is read (sdkKey) and bound by its values like a Key; one that
// cannot be read binds only the fact that the scope is an SDK key (the service still runs the
// query in the partition key given).
func (c *core) bindToken(q *Query, rq *rendered) tokenBinding {
	scope := []byte("no scope")
	switch {
	case q.hasPK:
		sdk, k, typed, err := resolve(q.pk)
		if !typed && err == nil {
			k, typed = sdkKey(sdk)
		}
		if typed && err == nil && k.Err() == nil {
			vals, err := json.Marshal(k.Values()) // strings, finite float64s, bools, nulls
			if err != nil {
				vals = []byte(err.Error())
			}
			scope = append([]byte("key:"), vals...)
		} else {
			scope = []byte("sdk key")
		}
	case q.cross:
		scope = []byte("cross-partition")
	}
	return tokenBinding(tokenmac.Tag(c.tokenKey, []byte(tokenDomain), c.identity, []byte(rq.text), canonicalParams(rq.params), scope))
}

// canonicalParams returns the parameters as JSON, sorted by name (their order does not change the
// query). A value that cannot be encoded fails the request in the SDK before it is sent; its
// error text stands in for it here.
func canonicalParams(ps []azcosmos.QueryParameter) []byte {
	type param struct {
		Name  string `json:"n"`
		Value any    `json:"v"`
	}
	sorted := make([]param, len(ps))
	for i, p := range ps {
		sorted[i] = param{p.Name, p.Value}
	}
	slices.SortStableFunc(sorted, func(a, b param) int { return cmp.Compare(a.Name, b.Name) })
	b, err := json.Marshal(sorted)
	if err != nil {
		return []byte("unencodable parameters: " + err.Error())
	}
	return b
}

// encodeToken returns the page token of continuation cont for a query run with binding bind.
func (c *core) encodeToken(bind tokenBinding, cont string) string {
	tag := tokenmac.Tag(c.tokenKey, bind[:], []byte(cont))
	b := make([]byte, 0, tokenmac.TagSize+len(cont))
	b = append(b, tag[:]...)
	b = append(b, cont...)
	return tokenEncoding.EncodeToString(b)
}

// tokenEncoding is strict: the unused bits of the last character must be zero, so one token has
// one spelling and no character can change without the decoded bytes changing.
var tokenEncoding = base64.RawURLEncoding.Strict()

// maxPageTokenBytes bounds what is decoded: a continuation is a header value of a few KB.
const maxPageTokenBytes = 64 << 10

// decodeToken returns the service continuation of a page token. Tokens come from end users, so
// everything that is not a token this repository returned for this query run is refused here,
// before anything is sent: the tag must be the one of this binding and of every continuation
// byte, and the continuation must be printable ASCII (a header value).
func (c *core) decodeToken(bind tokenBinding, token string) (string, error) {
	refused := invalid(cosmoserr.ErrInvalidToken, "token",
		"was not returned by Page for this container, query, parameter values and partition key (or was altered)")
	if len(token) > maxPageTokenBytes {
		return "", refused
	}
	b, err := tokenEncoding.DecodeString(token)
	if err != nil || len(b) <= tokenmac.TagSize {
		return "", refused
	}
	cont := b[tokenmac.TagSize:]
	want := tokenmac.Tag(c.tokenKey, bind[:], cont)
	if !tokenmac.Equal(b[:tokenmac.TagSize], want[:]) {
		return "", refused
	}
	if !wire.ValidHeaderValue(string(cont)) {
		return "", invalid(cosmoserr.ErrInvalidToken, "token", "holds bytes no continuation has")
	}
	return string(cont), nil
}
