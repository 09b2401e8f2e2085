package cosmostest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
)

// authenticate verifies the master-key signature (rest_protocol §2.1) of a classified request.
// AAD tokens are accepted only with WithAADTokens.
func (srv *server) authenticate(r *http.Request, c *classification) *statusError {
	raw := r.Header.Get("Authorization")
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
	const prefix = "type=master&ver=1.0&sig="
	if !strings.HasPrefix(auth, prefix) {
		return newError(http.StatusUnauthorized, subNone, "The input authorization token can't serve the request. Please check that the expected payload is built as per the protocol, and check the key being used.")
	}
	sig := auth[len(prefix):]
	date := r.Header.Get("x-ms-date")
	payload := strings.ToLower(r.Method) + "\n" + strings.ToLower(string(c.ResourceType)) + "\n" + c.link + "\n" + strings.ToLower(date) + "\n" + "" + "\n"
	if c.ResourceType == resourceUnknownVal && len(c.segs) > 0 {
		// Unknown resource types still sign with their own segment name.
		n := len(c.segs)
		t := c.segs[n-1]
		if n%2 == 0 {
			t = c.segs[n-2]
		}
		payload = strings.ToLower(r.Method) + "\n" + strings.ToLower(t) + "\n" + c.link + "\n" + strings.ToLower(date) + "\n" + "" + "\n"
	}
	mac := hmac.New(sha256.New, srv.key)
	mac.Write([]byte(payload))
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return newError(http.StatusUnauthorized, subNone,
			"The input authorization token can't serve the request. The wrong key is being used or the expected payload is not built as per the protocol. For more info: https://aka.ms/cosmosdb-tsg-unauthorized. Server used the following payload to sign: '%s'",
			strings.ReplaceAll(payload, "\n", "\\n"))
	}
	return nil
}
