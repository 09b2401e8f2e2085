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
	// The date checked is the date signed (wire.Dates): x-ms-date, or without it Date.
	dates := wire.RequestDates(r.Header)
	if err := srv.checkDate(dates.Signed()); err != nil {
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
	verify := func(link string) bool {
		if srv.verifier.VerifyDates(r.Method, resourceType, link, dates, sig) {
			return true
		}
		// Leniency: a request with Date alone whose signature has that date on the fourth line
		// (the x-ms-date line, as the REST page's one date line reads) is accepted too. The
		// gateway, verifying as the .NET SDK's AuthorizationHelper signs, would answer 401;
		// nothing in azcosmos sends Date alone. The date signed is still the date checked.
		return dates.XMsDate == "" && dates.Date != "" && srv.verifier.Verify(r.Method, resourceType, link, dates.Date, sig)
	}
	ok := verify(c.link)
	if !ok && c.emptyID && r.Method == http.MethodGet {
		// GET …/docs/ is a point read of the empty id as azcosmos signs it ("…/docs/"), or the
		// document feed with a trailing slash as other clients send it, signed over the
		// container's link: the signature tells which.
		feed := strings.Join(c.segs[:len(c.segs)-1], "/")
		if verify(feed) {
			c.emptyID, c.link, c.verb, c.Operation = false, feed, verbReadFeed, OpReadAllItems
			return nil
		}
	}
	if !ok {
		payload := wire.StringToSignDates(r.Method, resourceType, c.link, dates)
		return newError(http.StatusUnauthorized, subNone,
			"The input authorization token can't serve the request. The wrong key is being used or the expected payload is not built as per the protocol. For more info: https://aka.ms/cosmosdb-tsg-unauthorized. Server used the following payload to sign: '%s'",
			strings.ReplaceAll(payload, "\n", "\\n"))
	}
	return nil
}

// defaultClockSkew is the service's window around a request's date (WithClockSkew).
const defaultClockSkew = 15 * time.Minute

// checkDate refuses a replayed or missing request date as the service does. date is the date the
// signature covers (wire.Dates.Signed: x-ms-date, or without it Date), never another header: a
// signature over no date must not be rescued by an unsigned Date. The service serves a master-key
// signature only within its window around its own time. The answers are the .NET SDK's
// AuthorizationHelper.ValidateInputRequestTime ones (the gateway validates with it):
//   - no date at all: 401, "Authorization token mandates Date headers..." (MissingDateForAuthorization);
//   - a date that does not parse: 401, "The input date header is invalid format..." (InvalidDateHeader;
//     the value is not quoted);
//   - a date outside the window: 403 (Forbidden, not 401), "The authorization token is not valid
//     at the current time..." naming the token's start and expiry and the server time
//     (InvalidTokenTimeRange).
//
// Sub-status 0 for all three: the helper throws them without one, and no trace of the service
// answering with another was found; unverified against the live service.
// The window is WithClockSkew's (the REST page's 15 minutes by default; the helper allows a skew
// around a token lifetime, which this does not model). The time compared against is the
// machine's wall clock (time.Now), not the server clock of WithClock and Advance: clients sign
// with their wall clock, and tests that move the server clock keep working.
func (srv *server) checkDate(date string) *statusError {
	skew := srv.cfg.clockSkew
	if skew < 0 {
		return nil
	}
	if strings.TrimSpace(date) == "" {
		return newError(http.StatusUnauthorized, subNone, "Authorization token mandates Date headers. Please pass in RFC 1123 style date format.")
	}
	t, err := http.ParseTime(strings.TrimSpace(date))
	if err != nil {
		return newError(http.StatusUnauthorized, subNone, "The input date header is invalid format. Please pass in RFC 1123 style date format.")
	}
	now := time.Now()
	if now.Before(t.Add(-skew)) || now.After(t.Add(skew)) {
		return newError(http.StatusForbidden, subNone, "The authorization token is not valid at the current time. Please create another token and retry (token start time: %s, token expiry time: %s, current server time: %s).",
			t.UTC().Format(http.TimeFormat), t.Add(skew).UTC().Format(http.TimeFormat), now.UTC().Format(http.TimeFormat))
	}
	return nil
}
