package crosspartition

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/tokenmac"
)

// tokenVersion is the version of this package's continuation tokens. Version 3 resumes ORDER BY
// from the last row's ORDER BY values and _rid (orderResume) and holds no backend page size; a
// token of an earlier version is refused (cosmoserr.ErrInvalidToken).
const tokenVersion = 3

// Token kinds: the shape of the query the token belongs to.
const (
	kindPlain   = "p" // rows range by range
	kindOrderBy = "o" // streaming ORDER BY
	kindNone    = "x" // a query that cannot resume (the token only continues its own pager)
)

// maxTokenBytes bounds what is decoded at all.
const maxTokenBytes = 1 << 20

// tokenRange is one partition key range's position (plain queries).
type tokenRange struct {
	ID   string `json:"i"`
	Min  string `json:"a"`
	Max  string `json:"b"`
	Tok  string `json:"c,omitempty"` // backend continuation of the page being read ("" = first page)
	N    int    `json:"n,omitempty"` // rows of that page already consumed
	Open bool   `json:"f,omitempty"` // the page was fetched (else the range is not started)
	Done bool   `json:"d,omitempty"` // every row of the range was consumed
	Seen string `json:"s,omitempty"` // hashes of those N rows (a split of the range drops them from its children)
	Drop int    `json:"g"`           // index+1 of the drop group it still applies, 0 for none
}

// tokenGroup is what the children of a split range still drop: rows of the parent's page that
// the parent had consumed (at most one backend page).
type tokenGroup struct {
	Hashes string `json:"s,omitempty"`
}

// token is this package's continuation token: base64url of its JSON.
type token struct {
	V      int          `json:"v"`
	Bind   string       `json:"q"` // binds the token to container, query text and parameters
	Kind   string       `json:"k"`
	Ranges []tokenRange `json:"r,omitempty"` // plain queries
	Groups []tokenGroup `json:"g,omitempty"` // plain queries
	Order  *orderResume `json:"y,omitempty"` // ORDER BY: where the merge stopped
	Skip   int          `json:"o,omitempty"` // OFFSET still to skip
	Take   int          `json:"t"`           // TOP/LIMIT still to return, -1 for no limit
	Dist   string       `json:"h,omitempty"` // DISTINCT: hashes returned (unordered) or the last (ordered)
}

// A token is base64url(JSON ‖ tag): the tag is 16 bytes of HMAC-SHA256 (internal/tokenmac)
// over the container's identity (account endpoint, database, container) and every byte of the
// JSON, keyed with Options.TokenSigningKey (unkeyed without one: see the package doc). The JSON's
// Bind field binds it to the container, the query text and every parameter value.
const tokenDomain = "cosmoskit-go/crosspartition token v3"

// tokenEncoding is strict: one token has one spelling.
var tokenEncoding = base64.RawURLEncoding.Strict()

// binding is a digest of what a token may be used with: the container (account, database,
// container), the query text and every parameter value. A token of another query, tenant,
// container or database does not match.
func binding(identity []byte, query string, params []azcosmos.QueryParameter) string {
	p, _ := json.Marshal(params)
	tag := tokenmac.Tag(nil, []byte("binding"), identity, []byte(query), p)
	return base64.RawURLEncoding.EncodeToString(tag[:12])
}

func (t *token) encode(key, identity []byte) string {
	t.V = tokenVersion
	b, _ := json.Marshal(t)
	tag := tokenmac.Tag(key, []byte(tokenDomain), identity, b)
	return tokenEncoding.EncodeToString(append(b, tag[:]...))
}

func bad(reason string) error {
	return &cosmoserr.ValidationError{Kind: cosmoserr.ErrInvalidToken, Field: "ContinuationToken", Reason: reason}
}

// decodeToken parses and validates a token for the query bound as bind; nothing is sent first.
func decodeToken(s, bind string, key, identity []byte) (*token, error) {
	if s == "" {
		return nil, bad("is empty")
	}
	if len(s) > maxTokenBytes {
		return nil, bad("is too long")
	}
	b, err := tokenEncoding.DecodeString(s)
	if err != nil || len(b) <= tokenmac.TagSize {
		return nil, bad("not a token of this package")
	}
	b, tag := b[:len(b)-tokenmac.TagSize], b[len(b)-tokenmac.TagSize:]
	if want := tokenmac.Tag(key, []byte(tokenDomain), identity, b); !tokenmac.Equal(tag, want[:]) {
		return nil, bad("it was not returned for this container (or was altered or truncated)")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var t token
	if err := dec.Decode(&t); err != nil || dec.More() {
		return nil, bad("is not a token of this package")
	}
	if t.V != tokenVersion {
		return nil, bad("has a version this package does not support")
	}
	if t.Bind != bind {
		return nil, bad("was returned for another query, parameters or container")
	}
	switch t.Kind {
	case kindNone:
		return &t, nil
	case kindPlain, kindOrderBy:
	default:
		return nil, bad("has an unknown kind")
	}
	if t.Skip < 0 || t.Take < -1 {
		return nil, bad("is out of range")
	}
	if t.Kind == kindOrderBy {
		if len(t.Ranges) > 0 || len(t.Groups) > 0 || t.Order == nil {
			return nil, bad("is not a token of this package")
		}
		if err := t.Order.validate(); err != nil {
			return nil, err
		}
	} else if err := validatePlainRanges(&t); err != nil {
		return nil, err
	}
	if _, err := hashes(t.Dist); err != nil {
		return nil, err
	}
	return &t, nil
}

// validEPK accepts "", and upper-case hex of at most 128 characters.
func validEPK(s string) bool {
	if len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

func packHashes(hs []uint64) string {
	if len(hs) == 0 {
		return ""
	}
	b := make([]byte, 8*len(hs))
	for i, h := range hs {
		binary.BigEndian.PutUint64(b[8*i:], h)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func hashes(s string) ([]uint64, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b)%8 != 0 || len(b)/8 > defaultMaxTokenHashes {
		return nil, bad("has malformed row hashes")
	}
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.BigEndian.Uint64(b[8*i:])
	}
	return out, nil
}

// multiset is a counted set of row hashes.
type multiset map[uint64]int

func (m multiset) add(h uint64) { m[h]++ }

// take removes one h and reports whether there was one.
func (m multiset) take(h uint64) bool {
	if m[h] == 0 {
		return false
	}
	if m[h]--; m[h] == 0 {
		delete(m, h)
	}
	return true
}

func (m multiset) list() []uint64 {
	out := make([]uint64, 0, len(m))
	for h, n := range m {
		for range n {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

func (m multiset) clone() multiset {
	c := make(multiset, len(m))
	for h, n := range m {
		c[h] = n
	}
	return c
}

func multisetOf(hs []uint64) multiset {
	m := make(multiset, len(hs))
	for _, h := range hs {
		m.add(h)
	}
	return m
}
