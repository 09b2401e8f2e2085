package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"net/http"
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
// lower-cased, and an empty line. It is StringToSignDates with date as x-ms-date.
//
// resourceType is the type of the resource the request targets, or for a feed (list, query,
// create) the child type listed: "dbs", "colls", "docs", "pkranges", "offers", "conflicts", or ""
// for the account. resourceLink is the path of the resource itself, or of the feed's parent:
// "dbs/db/colls/c" for a read of container c and for the docs feed under it.
func StringToSign(verb, resourceType, resourceLink, date string) string {
	return StringToSignDates(verb, resourceType, resourceLink, Dates{XMsDate: date})
}

// Dates are the request dates a master-key signature covers: the x-ms-date header, which azcosmos
// and every SDK send, and the standard Date header, the fallback for a request without x-ms-date
// (the REST API's access control page: a request carries one of them). The service's gateway
// builds the signed text as the .NET SDK's AuthorizationHelper does (the Java and Python SDKs
// sign the same text): x-ms-date lower-cased on the fourth line and, only when x-ms-date is
// empty, Date lower-cased on the fifth. With x-ms-date the fifth line is empty, which is
// StringToSign's text.
type Dates struct {
	XMsDate string // the x-ms-date header (HeaderDate)
	Date    string // the Date header (HeaderHTTPDate): signed and checked only when XMsDate is empty
}

// RequestDates returns the dates a request carries.
func RequestDates(h http.Header) Dates {
	return Dates{XMsDate: h.Get(HeaderDate), Date: h.Get(HeaderHTTPDate)}
}

// Signed returns the date the signature covers, the one the service's time window is checked
// against: x-ms-date, or without it Date; "" when the request carries neither.
func (d Dates) Signed() string {
	if d.XMsDate != "" {
		return d.XMsDate
	}
	return d.Date
}

// StringToSignDates is the text a master-key signature covers for a request with these dates:
// StringToSign's, with Date on the fifth line when x-ms-date is empty (see Dates).
func StringToSignDates(verb, resourceType, resourceLink string, d Dates) string {
	n := len(verb) + len(resourceType) + len(resourceLink) + len(d.XMsDate) + len(d.Date) + 5
	return string(appendStringToSign(make([]byte, 0, n), verb, resourceType, resourceLink, d))
}

// appendStringToSign appends StringToSignDates's text to b (the one place its format is written).
func appendStringToSign(b []byte, verb, resourceType, resourceLink string, d Dates) []byte {
	b = appendLower(b, verb)
	b = append(b, '\n')
	b = appendLower(b, resourceType)
	b = append(b, '\n')
	b = append(b, resourceLink...)
	b = append(b, '\n')
	b = appendLower(b, d.XMsDate)
	b = append(b, '\n')
	if d.XMsDate == "" {
		b = appendLower(b, d.Date)
	}
	return append(b, '\n')
}

// Sign returns the master-key signature of a request: base64 of HMAC-SHA256 under the decoded
// account key of StringToSign(verb, resourceType, resourceLink, date). key is the decoded key;
// it never appears in the result beyond the MAC.
func Sign(key []byte, verb, resourceType, resourceLink, date string) string {
	return SignDates(key, verb, resourceType, resourceLink, Dates{XMsDate: date})
}

// SignDates is Sign for a request with these dates (StringToSignDates's text).
func SignDates(key []byte, verb, resourceType, resourceLink string, d Dates) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(StringToSignDates(verb, resourceType, resourceLink, d)))
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
	return v.VerifyDates(verb, resourceType, resourceLink, Dates{XMsDate: date}, sig)
}

// VerifyDates reports, in time independent of where they differ, whether sig is the signature
// SignDates computes for a request with these dates.
func (v *Verifier) VerifyDates(verb, resourceType, resourceLink string, d Dates, sig string) bool {
	st := v.pool.Get().(*verifyState)
	defer v.pool.Put(st)
	b := appendStringToSign(st.buf[:0], verb, resourceType, resourceLink, d)
	st.buf = b
	st.mac.Reset()
	st.mac.Write(b)
	sum := st.mac.Sum(st.sum[:0])
	base64.StdEncoding.Encode(st.b64[:], sum)
	if len(sig) != len(st.b64) {
		return false
	}
	var diff byte
	for i, c := range st.b64 {
		diff |= c ^ sig[i]
	}
	return diff == 0
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
