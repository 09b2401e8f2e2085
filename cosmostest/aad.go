package cosmostest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// aadClockSkew is how far a token's nbf may lie in the future and its exp in the past.
const aadClockSkew = 5 * time.Minute

// checkAADToken checks an AAD (Microsoft Entra ID) authorization, "type=aad&ver=1.0&sig=<token>",
// the way the emulator does with AAD authentication on: the token must be a JWT (three base64url
// parts, a JSON header naming its alg, a JSON claims object) within its lifetime (exp, and nbf
// when present, on the server clock). Like the emulator, it does not verify the signature (there
// is no tenant to trust) and does not tie the token to the account's scope: the emulator's own
// test tokens carry "aud":"https://localhost.localhost" whatever endpoint they are sent to.
// WithAADAudience makes the server require an audience.
func (srv *server) checkAADToken(auth string) *statusError {
	prefix := wire.AuthAADPrefix
	if !strings.HasPrefix(auth, prefix) {
		return aadRefused("the authorization is not type=aad&ver=1.0&sig=<token>")
	}
	parts := strings.Split(auth[len(prefix):], ".")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return aadRefused("the token is not a JWT (header.claims.signature)")
	}
	var header struct {
		Alg string `json:"alg"`
	}
	if err := decodeJWTPart(parts[0], &header); err != nil || header.Alg == "" {
		return aadRefused("the token header is not a base64url JSON object naming its alg")
	}
	var claims map[string]any
	if err := decodeJWTPart(parts[1], &claims); err != nil || claims == nil {
		return aadRefused("the token claims are not a base64url JSON object")
	}
	now := srv.now()
	if v, ok := claims["exp"]; ok {
		exp, isNum := v.(float64)
		if !isNum {
			return aadRefused("the token's exp claim is not a number")
		}
		if now.After(time.Unix(int64(exp), 0).Add(aadClockSkew)) {
			return aadRefused("the token has expired")
		}
	}
	if v, ok := claims["nbf"]; ok {
		nbf, isNum := v.(float64)
		if !isNum {
			return aadRefused("the token's nbf claim is not a number")
		}
		if now.Add(aadClockSkew).Before(time.Unix(int64(nbf), 0)) {
			return aadRefused("the token is not valid yet (nbf)")
		}
	}
	if len(srv.cfg.aadAudiences) > 0 && !audienceMatches(claims["aud"], srv.cfg.aadAudiences) {
		return aadRefused("the token's audience (aud) is not one this server requires (WithAADAudience)")
	}
	return nil
}

// aadRefused is the 401 for an AAD token the server does not accept. The reason names the check;
// the token itself is never echoed.
func aadRefused(reason string) *statusError {
	return newError(http.StatusUnauthorized, subNone, "The AAD token can't serve the request: %s.", reason)
}

// decodeJWTPart decodes one base64url part of a JWT (padding tolerated) into v.
func decodeJWTPart(part string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(part, "="))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// audienceMatches reports whether aud (a string or an array of strings) names one of want,
// ignoring a trailing slash and ASCII case.
func audienceMatches(aud any, want []string) bool {
	norm := func(s string) string { return strings.ToLower(strings.TrimSuffix(s, "/")) }
	var got []string
	switch a := aud.(type) {
	case string:
		got = []string{a}
	case []any:
		for _, x := range a {
			if s, ok := x.(string); ok {
				got = append(got, s)
			}
		}
	}
	for _, g := range got {
		if slices.ContainsFunc(want, func(w string) bool { return norm(w) == norm(g) }) {
			return true
		}
	}
	return false
}
