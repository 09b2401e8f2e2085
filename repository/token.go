package repository

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Page tokens are base64url(binding ‖ service continuation), where the binding is the first
// bindingSize bytes of a SHA-256 over everything that decides which results a continuation is a
// position in: the query text, its parameters (names and values, as canonical JSON) and its scope
// (the typed partition key, or cross-partition). They are opaque, URL-safe, and refused for
// another query, other values or another partition key before any request. Tokens are
// short-lived page positions, so tokens of the earlier format (bound to the text only) are
// refused too.
const bindingSize = 16

// tokenBinding identifies one query run: text, parameter values and scope.
type tokenBinding [bindingSize]byte

// tokenDomain separates the binding hash from any other SHA-256 use, and names the format.
const tokenDomain = "cosmoskit-go/repository page token v2\x00"

// bindToken returns the binding of rq (q rendered) run in q's scope.
//
// A scope given as an azcosmos.PartitionKey cannot be read (the SDK keeps its values unexported
// and the repository reflects into no other module's types), so such tokens bind the text,
// parameters and the fact that the scope is an SDK key, not its values: the service still runs
// the query in the partition key given, so a token can at most move the position within it.
// Scope per-tenant queries with partitionkey.Of to have tokens bound to the tenant.
func bindToken(q *Query, rq *rendered) tokenBinding {
	h := sha256.New()
	field := func(b []byte) {
		_, _ = h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(b))))
		_, _ = h.Write(b)
	}
	_, _ = h.Write([]byte(tokenDomain))
	field([]byte(rq.text))
	field(canonicalParams(rq.params))
	switch {
	case q.hasPK:
		if _, k, typed, err := resolve(q.pk); typed && err == nil {
			vals, err := json.Marshal(k.Values()) // strings, finite float64s, bools, nulls
			if err != nil {
				vals = []byte(err.Error())
			}
			field(append([]byte("key:"), vals...))
		} else {
			field([]byte("sdk key"))
		}
	case q.cross:
		field([]byte("cross-partition"))
	default:
		field([]byte("no scope"))
	}
	var b tokenBinding
	copy(b[:], h.Sum(nil))
	return b
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
func encodeToken(bind tokenBinding, cont string) string {
	b := make([]byte, 0, bindingSize+len(cont))
	b = append(b, bind[:]...)
	b = append(b, cont...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeToken returns the service continuation of a page token. Tokens come from end users, so
// everything that would not reach the service as a plain header value is refused here, before
// anything is sent: a token of another query, of other parameter values or of another partition
// key, and continuation bytes other than printable ASCII (the service's continuations are JSON or
// resource ids; a control character or a byte above 0x7e would fail inside the HTTP client, or
// worse, split the header).
func decodeToken(bind tokenBinding, token string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) <= bindingSize || tokenBinding(b[:bindingSize]) != bind {
		return "", invalid(cosmoserr.ErrInvalidToken, "token", "was not returned by Page for this query, these parameter values and this partition key")
	}
	cont := string(b[bindingSize:])
	if !wire.ValidHeaderValue(cont) {
		return "", invalid(cosmoserr.ErrInvalidToken, "token", "was not returned by Page: it holds bytes no continuation has")
	}
	return cont, nil
}
