package cosmostest

import (
	"crypto/hmac"
	"net/http"
	"net/url"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// authenticate verifies the master-key signature (rest_protocol §2.1; the string-to-sign and HMAC
// are internal/wire's, the one home clients sign with too) of a classified request. AAD tokens are
// accepted only with WithAADTokens.
func (srv *server) authenticate(r *http.Request, c *classification) *statusError {
	raw := r.Header.Get(wire.HeaderAuthorization)
	if raw == "" {
		return newError(http.StatusUnauthorized, subNone, "Required Header authorization is missing. Ensure a valid Authorization token is passed.")
	}
	auth, err := url.QueryUnescape(raw)
	if err != nil {
		auth = raw
	}
	if strings.HasPrefix(auth, "type=aad&") {
		if srv.cfg.aad {
			return srv.checkAADToken(auth)
		}
		return newError(http.StatusUnauthorized, subNone, "cosmostest: AAD (Entra ID) tokens are refused; start the server with WithAADTokens to accept them, or use the master key.")
	}
	if !strings.HasPrefix(auth, wire.AuthMasterPrefix) {
		return newError(http.StatusUnauthorized, subNone, "The input authorization token can't serve the request. Please check that the expected payload is built as per the protocol, and check the key being used.")
	}
	sig := auth[len(wire.AuthMasterPrefix):]
	date := r.Header.Get(wire.HeaderDate)
	resourceType := string(c.ResourceType)
	if c.ResourceType == resourceUnknownVal && len(c.segs) > 0 {
		// Unknown resource types still sign with their own segment name.
		n := len(c.segs)
		resourceType = c.segs[n-1]
		if n%2 == 0 {
			resourceType = c.segs[n-2]
		}
	}
	want := wire.Sign(srv.key, r.Method, resourceType, c.link, date)
	if !hmac.Equal([]byte(want), []byte(sig)) {
		payload := wire.StringToSign(r.Method, resourceType, c.link, date)
		return newError(http.StatusUnauthorized, subNone,
			"The input authorization token can't serve the request. The wrong key is being used or the expected payload is not built as per the protocol. For more info: https://aka.ms/cosmosdb-tsg-unauthorized. Server used the following payload to sign: '%s'",
			strings.ReplaceAll(payload, "\n", "\\n"))
	}
	return nil
}
