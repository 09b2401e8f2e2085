package cosmostest_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// rawGet sends a master-key signed GET of path (resourceType and link as signed) with the given
// date ("" for no date header) and returns the status and the body's code.
func rawGet(t *testing.T, s *cosmostest.Server, path, resourceType, link, date string) (int, string) {
	t.Helper()
	st, _, b := rawDo(t, s, path, resourceType, link, date, nil)
	var body struct{ Code string }
	_ = json.Unmarshal(b, &body)
	return st, body.Code
}

// rawDo sends a master-key signed GET of path with extra headers and returns the status, the
// response headers and the body.
func rawDo(t *testing.T, s *cosmostest.Server, path, resourceType, link, date string, extra http.Header) (int, http.Header, []byte) {
	t.Helper()
	key, _ := base64.StdEncoding.DecodeString(s.Key())
	req, err := http.NewRequest(http.MethodGet, s.Endpoint()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if date != "" {
		req.Header[wire.HeaderDate] = []string{date}
	}
	req.Header[wire.HeaderVersion] = []string{wire.APIVersion}
	for k, v := range extra {
		req.Header[k] = v
	}
	req.Header.Set(wire.HeaderAuthorization, wire.MasterKeyAuthorization(key, http.MethodGet, resourceType, link, date))
	resp, err := (&http.Client{Transport: s.ClientOptions().Transport.(*http.Client).Transport}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// TestReplayedDates: a signature over a date outside ±15 minutes of the wall clock is refused
// with the service's 403, no date at all with 401; WithClockSkew widens or turns off the window,
// and the server clock (WithClock, Advance) does not matter.
func TestReplayedDates(t *testing.T) {
	now := time.Now().UTC()
	frozen := cosmostest.WithClock(func() time.Time { return time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC) })
	s := cosmostest.NewServer(t, frozen)
	s.Advance(48 * time.Hour)
	for _, tc := range []struct {
		name   string
		date   string
		status int
		code   string
	}{
		{"now", now.Format(http.TimeFormat), 200, ""},
		{"14 minutes old", now.Add(-14 * time.Minute).Format(http.TimeFormat), 200, ""},
		{"an hour old", now.Add(-time.Hour).Format(http.TimeFormat), 403, "Forbidden"},
		{"a day old", now.Add(-24 * time.Hour).Format(http.TimeFormat), 403, "Forbidden"},
		{"a year old", now.AddDate(-1, 0, 0).Format(http.TimeFormat), 403, "Forbidden"},
		{"an hour ahead", now.Add(time.Hour).Format(http.TimeFormat), 403, "Forbidden"},
		{"no date", "", 401, "Unauthorized"},
		{"not a date", "yesterday", 401, "Unauthorized"},
	} {
		if st, code := rawGet(t, s, "", "", "", tc.date); st != tc.status || code != tc.code {
			t.Errorf("%s: %d %q, want %d %q", tc.name, st, code, tc.status, tc.code)
		}
	}
	wide := cosmostest.NewServer(t, cosmostest.WithClockSkew(2*time.Hour))
	if st, _ := rawGet(t, wide, "", "", "", now.Add(-time.Hour).Format(http.TimeFormat)); st != 200 {
		t.Errorf("WithClockSkew(2h), an hour old: %d", st)
	}
	off := cosmostest.NewServer(t, cosmostest.WithClockSkew(-1))
	if st, _ := rawGet(t, off, "", "", "", now.AddDate(-1, 0, 0).Format(http.TimeFormat)); st != 200 {
		t.Errorf("WithClockSkew(-1), a year old: %d", st)
	}
}
