package cosmostest

import (
	"net/http"
	"net/url"
	"strings"
	"time"

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
	if err := srv.checkDate(date, r.Header.Get("Date")); err != nil {
		return err
	}
	resourceType := string(c.ResourceType)
	if c.ResourceType == resourceUnknownVal && len(c.segs) > 0 {
		// Unknown resource types still sign with their own segment name.
		n := len(c.segs)
		resourceType = c.segs[n-1]
		if n%2 == 0 {
			resourceType = c.segs[n-2]
		}
	}
	ok := srv.verifier.Verify(r.Method, resourceType, c.link, date, sig)
	if !ok && c.emptyID && r.Method == http.MethodGet {
		// GET …/docs/ is a point read of the empty id as azcosmos signs it ("…/docs/"), or the
		// document feed with a trailing slash as other clients send it, signed over the
		// container's link: the signature tells which.
		feed := strings.Join(c.segs[:len(c.segs)-1], "/")
		if srv.verifier.Verify(r.Method, resourceType, feed, date, sig) {
			c.emptyID, c.link, c.verb, c.Operation = false, feed, verbReadFeed, OpReadAllItems
			return nil
		}
	}
	if !ok {
		payload := wire.StringToSign(r.Method, resourceType, c.link, date)
		return newError(http.StatusUnauthorized, subNone,
			"The input authorization token can't serve the request. The wrong key is being used or the expected payload is not built as per the protocol. For more info: https://aka.ms/cosmosdb-tsg-unauthorized. Server used the following payload to sign: '%s'",
			strings.ReplaceAll(payload, "\n", "\\n"))
	}
	return nil
}

// defaultClockSkew is the service's window around a request's date (WithClockSkew).
const defaultClockSkew = 15 * time.Minute

// checkDate refuses a replayed or missing request date as the service does: a master-key
// signature covers x-ms-date (or, without it, Date), and the service serves it only within its
// window around its own time. No date at all is 401 ("Authorization token mandates Date header");
// a date outside the window is 403 ("The authorization token is not valid at the current time",
// naming the window and the server time; the service's answer is 403 Forbidden, not 401).
// The window is WithClockSkew's; the time compared against is the machine's wall clock (time.Now),
// not the server clock of WithClock and Advance: clients sign with their wall clock, and tests
// that move the server clock keep working.
func (srv *server) checkDate(xmsDate, date string) *statusError {
	skew := srv.cfg.clockSkew
	if skew < 0 {
		return nil
	}
	v := xmsDate
	if v == "" {
		v = date
	}
	if v == "" {
		return newError(http.StatusUnauthorized, subNone, "Authorization token mandates Date header. Please pass in RFC 1123 style date format.")
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return newError(http.StatusUnauthorized, subNone, "The date header value '%s' is not in RFC 1123 format. Please pass in RFC 1123 style date format.", v)
	}
	now := time.Now()
	if now.Before(t.Add(-skew)) || now.After(t.Add(skew)) {
		return newError(http.StatusForbidden, subNone, "The authorization token is not valid at the current time. Please create another token and retry (token start time: %s, token expiry time: %s, current server time: %s).",
			t.UTC().Format(http.TimeFormat), t.Add(skew).UTC().Format(http.TimeFormat), now.UTC().Format(http.TimeFormat))
	}
	return nil
}
