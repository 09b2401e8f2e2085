package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Authorization header prefixes (before URL-encoding): a master-key signature and a Microsoft
// Entra ID (AAD) bearer token.
const (
	AuthMasterPrefix = "type=master&ver=1.0&sig="
	AuthAADPrefix    = "type=aad&ver=1.0&sig="
	// APIVersion is the REST API version (HeaderVersion) azcosmos v1.5.0 sends.
	APIVersion = "2020-11-05"
)

// StringToSign is the text a master-key signature covers (rest_protocol §2.1; azcosmos
// shared_key_credential.go): the verb and the resource type lower-cased, the resource link as is
// (unescaped; lower-cased only for rid-based links, which the caller does), the x-ms-date value
// lower-cased, and an empty line.
//
// resourceType is the type of the resource the request targets, or for a feed (list, query,
// create) the child type listed: "dbs", "colls", "docs", "pkranges", "offers", "conflicts", or ""
// for the account. resourceLink is the path of the resource itself, or of the feed's parent:
// "dbs/db/colls/c" for a read of container c and for the docs feed under it.
func StringToSign(verb, resourceType, resourceLink, date string) string {
	n := len(verb) + len(resourceType) + len(resourceLink) + len(date) + 5
	return string(appendStringToSign(make([]byte, 0, n), verb, resourceType, resourceLink, date))
}

// appendStringToSign appends StringToSign's text to b (the one place its format is written).
func appendStringToSign(b []byte, verb, resourceType, resourceLink, date string) []byte {
	b = appendLower(b, verb)
	b = append(b, '\n')
	b = appendLower(b, resourceType)
	b = append(b, '\n')
	b = append(b, resourceLink...)
	b = append(b, '\n')
	b = appendLower(b, date)
	return append(b, '\n', '\n')
}

// Sign returns the master-key signature of a request: base64 of HMAC-SHA256 under the decoded
// account key of StringToSign(verb, resourceType, resourceLink, date). key is the decoded key;
// it never appears in the result beyond the MAC.
func Sign(key []byte, verb, resourceType, resourceLink, date string) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(StringToSign(verb, resourceType, resourceLink, date)))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// MasterKeyAuthorization is the Authorization header value for a master-key signature,
// URL-encoded as azcosmos sends it.
func MasterKeyAuthorization(key []byte, verb, resourceType, resourceLink, date string) string {
	return url.QueryEscape(AuthMasterPrefix + Sign(key, verb, resourceType, resourceLink, date))
}

// AADAuthorization is the Authorization header value for a Microsoft Entra ID access token, as
// azcosmos's bearer token policy sends it (not URL-encoded).
func AADAuthorization(token string) string { return AuthAADPrefix + token }

// EmulatorKey is the well-known master key of the Azure Cosmos DB emulator, also cosmostest's
// default. Its public name is cosmoskit.EmulatorKey.
const EmulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

// A Verifier checks master-key signatures under one key (the signature Sign computes) without
// allocating per request: its MAC states are pooled. It is safe for concurrent use.
type Verifier struct{ pool sync.Pool }

type verifyState struct {
	mac hash.Hash
	buf []byte
	sum [sha256.Size]byte
	b64 [44]byte // base64 of a SHA-256 MAC
}

// NewVerifier returns a Verifier for the decoded key.
func NewVerifier(key []byte) *Verifier {
	k := slices.Clone(key)
	v := &Verifier{}
	v.pool.New = func() any { return &verifyState{mac: hmac.New(sha256.New, k)} }
	return v
}

// Verify reports, in time independent of where they differ, whether sig is the signature Sign
// computes for the request.
func (v *Verifier) Verify(verb, resourceType, resourceLink, date, sig string) bool {
	st := v.pool.Get().(*verifyState)
	defer v.pool.Put(st)
	b := appendStringToSign(st.buf[:0], verb, resourceType, resourceLink, date)
	st.buf = b
	st.mac.Reset()
	st.mac.Write(b)
	sum := st.mac.Sum(st.sum[:0])
	base64.StdEncoding.Encode(st.b64[:], sum)
	if len(sig) != len(st.b64) {
		return false
	}
	var d byte
	for i, c := range st.b64 {
		d |= c ^ sig[i]
	}
	return d == 0
}

// appendLower appends s lower-cased as strings.ToLower does for ASCII; other text is appended
// through strings.ToLower.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return append(b, strings.ToLower(s)...)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}
