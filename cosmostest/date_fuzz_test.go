package cosmostest

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// FuzzCheckDate: checking any signed date never panics, serves only a date that parses and lies
// within the window of the wall clock, answers 401 or 403 otherwise, and never quotes the header.
func FuzzCheckDate(f *testing.F) {
	now := time.Now().UTC()
	for _, s := range []string{
		now.Format(http.TimeFormat), now.Add(-time.Hour).Format(http.TimeFormat), now.Format(time.RFC850),
		now.Format(time.ANSIC), "", " ", "yesterday", "Mon, 32 Nov 2026 05:03:13 GMT", "\x00",
	} {
		f.Add(s)
	}
	srv := &server{cfg: config{clockSkew: defaultClockSkew}}
	f.Fuzz(func(t *testing.T, date string) {
		err := srv.checkDate(date)
		if err == nil {
			d, perr := http.ParseTime(strings.TrimSpace(date))
			if perr != nil {
				t.Fatalf("%q: served without parsing", date)
			}
			if off := time.Since(d); off > defaultClockSkew+time.Minute || off < -defaultClockSkew-time.Minute {
				t.Fatalf("%q: served %v away from now", date, off)
			}
			return
		}
		if err.status != http.StatusUnauthorized && err.status != http.StatusForbidden {
			t.Fatalf("%q: %v", date, err)
		}
		if len(strings.TrimSpace(date)) > 3 && err.status == http.StatusUnauthorized && strings.Contains(err.message, date) {
			t.Fatalf("%q: refusal quotes the header", date)
		}
	})
}
