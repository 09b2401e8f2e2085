package wire

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxIDBytes is the longest item id the service stores, in bytes (Azure Cosmos DB service quotas:
// "Maximum length of id: 1,023 bytes").
const MaxIDBytes = 1023

// MaxNameChars is the longest database or container id the service accepts, in characters
// (service quotas: "Maximum length of database or container name: 255"; its 400 reads "Ensure to
// provide a unique non-empty string less than '255' characters"). A character is a Unicode code
// point: 255 of "€" (765 bytes) is within the limit. Whether the service counts UTF-16 code units
// instead (a character outside the Basic Multilingual Plane, an emoji, would count twice) is not
// documented and unverified.
const MaxNameChars = 255

// ForbiddenIDChars are the characters a database or container id may not contain (the REST API's
// resource naming rules; the SDKs refuse them too; the id may not end with a space either), and
// that no item id may contain to be addressable by id (IDProblem).
const ForbiddenIDChars = `/\?#`

// NameProblem returns why the service refuses id as a database or container id, or "" when it
// accepts it: empty, not UTF-8 (the JSON body would carry another name), more than MaxNameChars
// characters, one of ForbiddenIDChars, or a trailing space. The reason counts characters, as the
// limit does, and never quotes the id. cosmoskit refuses these before sending; cosmostest answers
// them with the service's 400.
func NameProblem(id string) string {
	switch {
	case id == "":
		return "is empty"
	case !utf8.ValidString(id):
		return "is not valid UTF-8"
	}
	if n := utf8.RuneCountInString(id); n > MaxNameChars {
		return fmt.Sprintf("is %d characters; at most %d", n, MaxNameChars)
	}
	switch {
	case strings.ContainsAny(id, ForbiddenIDChars):
		return `contains one of / \ ? #`
	case strings.HasSuffix(id, " "):
		return "ends with a space"
	}
	return ""
}

// IDProblem returns why the routing gateway cannot address an item with this id by id (read,
// replace, patch, delete), or "" when it can. The service stores such an item (the id travels in
// the body) and a query finds it, but every point operation on it fails for ever. The azcosmos
// module's TestItemIdEncodingRoutingGW (and cosmostest's TestItemIDThroughTheGateway) list what
// the gateway does with each id in the request path:
//   - white space at the end is trimmed before the signature is checked: 401;
//   - a percent sequence (%2F, %20, %E9...) is unescaped once more than the SDK escaped it: 401;
//   - "/", "\" and "#" split or cut the resource link: 401 ("?" is served, but other SDKs cut
//     the path at it, so it is refused too);
//   - a control character (tab, line feed, carriage return, NUL, DEL, C1) is a malformed URL: 400;
//   - "." and ".." are path segments the URL normalises away: the link names another resource.
//
// Bytes that are not UTF-8 do not survive the JSON body (they become U+FFFD) and are refused too.
// The reason never quotes the id.
func IDProblem(id string) string {
	switch {
	case id == "":
		return "is empty"
	case len(id) > MaxIDBytes:
		return "is longer than 1,023 bytes"
	case !utf8.ValidString(id):
		return "is not valid UTF-8"
	case id == "." || id == "..":
		return "is one or two dots, a path segment the gateway normalises away"
	case strings.ContainsAny(id, ForbiddenIDChars):
		return `contains one of / \ ? #`
	}
	for i, r := range id {
		switch {
		case unicode.IsControl(r):
			return "contains a control character (the gateway answers 400 when it is addressed by id)"
		case r == '%' && i+2 < len(id) && isHex(id[i+1]) && isHex(id[i+2]):
			return "contains a percent sequence (%XX), which the gateway unescapes once more (401 when addressed by id)"
		}
	}
	if r, _ := utf8.DecodeLastRuneInString(id); unicode.IsSpace(r) {
		return "ends with white space, which the gateway trims (401 when addressed by id)"
	}
	return ""
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
