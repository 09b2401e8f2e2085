package cosmostest_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// getDates sends GET / with the given x-ms-date and Date headers ("" for none), signed with
// sig, and returns the status and the body's code and message.
func getDates(t *testing.T, s *cosmostest.Server, d wire.Dates, sig string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.Endpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.XMsDate != "" {
		req.Header.Set(wire.HeaderDate, d.XMsDate)
	}
	if d.Date != "" {
		req.Header.Set(wire.HeaderHTTPDate, d.Date)
	}
	req.Header.Set(wire.HeaderVersion, wire.APIVersion)
	req.Header.Set(wire.HeaderAuthorization, url.QueryEscape(wire.AuthMasterPrefix+sig))
	resp, err := (&http.Client{Transport: s.ClientOptions().Transport.(*http.Client).Transport}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var body struct{ Code, Message string }
	_ = json.Unmarshal(b, &body)
	return resp.StatusCode, body.Code, body.Message
}

// TestSignedDateIsCheckedDate: the date the window is checked against is the date the signature
// covers: x-ms-date, or without it Date (on the fifth line of the signed text, as the gateway and
// the .NET, Java and Python SDKs build it). A signature over no date stays refused whatever
// unsigned Date header comes with it (else one captured request would be valid for ever), and a
// request signed over Date alone is served.
func TestSignedDateIsCheckedDate(t *testing.T) {
	s := cosmostest.NewServer(t)
	key, _ := base64.StdEncoding.DecodeString(s.Key())
	now := time.Now().UTC().Format(http.TimeFormat)
	old := time.Now().UTC().Add(-time.Hour).Format(http.TimeFormat)
	sign := func(d wire.Dates) string { return wire.SignDates(key, http.MethodGet, "", "", d) }
	for _, tc := range []struct {
		name   string
		sent   wire.Dates // the headers sent
		signed wire.Dates // the dates the signature was computed over
		status int
		msg    string // part of the message, "" for any
	}{
		{"signed over no date, fresh unsigned Date", wire.Dates{Date: now}, wire.Dates{}, 401, "can't serve the request"},
		{"signed over no date, fresh unsigned x-ms-date", wire.Dates{XMsDate: now}, wire.Dates{}, 401, "can't serve the request"},
		{"signed over Date", wire.Dates{Date: now}, wire.Dates{Date: now}, 200, ""},
		{"signed over an old Date", wire.Dates{Date: old}, wire.Dates{Date: old}, 403, "not valid at the current time"},
		{"signed over x-ms-date, stale Date ignored", wire.Dates{XMsDate: now, Date: old}, wire.Dates{XMsDate: now, Date: old}, 200, ""},
		{"signed over an old x-ms-date, fresh Date", wire.Dates{XMsDate: old, Date: now}, wire.Dates{XMsDate: old, Date: now}, 403, "not valid at the current time"},
		{"no date at all", wire.Dates{}, wire.Dates{}, 401, "mandates Date headers"},
		{"Date not a date", wire.Dates{Date: "yesterday"}, wire.Dates{Date: "yesterday"}, 401, "RFC 1123"},
	} {
		st, code, msg := getDates(t, s, tc.sent, sign(tc.signed))
		if st != tc.status || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: %d %s %q, want %d with %q", tc.name, st, code, msg, tc.status, tc.msg)
		}
		if strings.Contains(msg, "yesterday") {
			t.Errorf("%s: the message quotes the date header: %q", tc.name, msg)
		}
	}
	// The fourth-line form (StringToSign over the Date value, as the REST page's single date
	// line reads) is accepted too, for the same date: cosmostest's leniency, see auth.go.
	if st, _, msg := getDates(t, s, wire.Dates{Date: now}, wire.Sign(key, http.MethodGet, "", "", now)); st != 200 {
		t.Errorf("Date signed on the fourth line: %d %q", st, msg)
	}
	if st, _, _ := getDates(t, s, wire.Dates{Date: old}, wire.Sign(key, http.MethodGet, "", "", old)); st != 403 {
		t.Errorf("an old Date signed on the fourth line: %d, want 403", st)
	}
}
