package wire

import (
	"encoding/base64"
	"net/http"
	"testing"
)

// TestStringToSignDates: the Date header is signed on the fifth line, and only without x-ms-date
// (the .NET SDK's AuthorizationHelper, which the gateway verifies with); with x-ms-date the text
// is StringToSign's, whatever Date says. Signed is the date that text covers.
func TestStringToSignDates(t *testing.T) {
	const x, d = "Thu, 27 Apr 2017 00:51:12 GMT", "Fri, 28 Apr 2017 00:00:00 GMT"
	for _, tc := range []struct {
		dates  Dates
		text   string
		signed string
	}{
		{Dates{XMsDate: x}, "get\ndbs\ndbs/A\nthu, 27 apr 2017 00:51:12 gmt\n\n", x},
		{Dates{XMsDate: x, Date: d}, "get\ndbs\ndbs/A\nthu, 27 apr 2017 00:51:12 gmt\n\n", x},
		{Dates{Date: d}, "get\ndbs\ndbs/A\n\nfri, 28 apr 2017 00:00:00 gmt\n", d},
		{Dates{}, "get\ndbs\ndbs/A\n\n\n", ""},
	} {
		if got := StringToSignDates("GET", "dbs", "dbs/A", tc.dates); got != tc.text {
			t.Errorf("%+v: StringToSignDates = %q, want %q", tc.dates, got, tc.text)
		}
		if got := tc.dates.Signed(); got != tc.signed {
			t.Errorf("%+v: Signed = %q, want %q", tc.dates, got, tc.signed)
		}
	}
	if StringToSign("GET", "dbs", "dbs/A", x) != StringToSignDates("GET", "dbs", "dbs/A", Dates{XMsDate: x}) {
		t.Error("StringToSign is not the x-ms-date case of StringToSignDates")
	}
	h := http.Header{}
	h.Set(HeaderDate, x)
	h.Set(HeaderHTTPDate, d)
	if got := RequestDates(h); got != (Dates{XMsDate: x, Date: d}) {
		t.Errorf("RequestDates = %+v", got)
	}

	key, _ := base64.StdEncoding.DecodeString(EmulatorKey)
	v := NewVerifier(key)
	onlyDate := Dates{Date: d}
	sig := SignDates(key, "GET", "dbs", "dbs/A", onlyDate)
	if !v.VerifyDates("GET", "dbs", "dbs/A", onlyDate, sig) {
		t.Error("VerifyDates refuses SignDates's signature")
	}
	// A signature over no date at all does not cover a Date added afterwards.
	if v.VerifyDates("GET", "dbs", "dbs/A", onlyDate, SignDates(key, "GET", "dbs", "dbs/A", Dates{})) {
		t.Error("a signature over no date verifies with a Date header")
	}
	if v.VerifyDates("GET", "dbs", "dbs/A", onlyDate, Sign(key, "GET", "dbs", "dbs/A", d)) {
		t.Error("Date on the fourth line verifies as the service's text")
	}
}

// BenchmarkVerifyDates measures checking one request's signature, as cosmostest does for every
// request: it must not allocate (the MAC states are pooled), whichever date header is signed.
func BenchmarkVerifyDates(b *testing.B) {
	key, _ := base64.StdEncoding.DecodeString(EmulatorKey)
	v := NewVerifier(key)
	for _, d := range []Dates{{XMsDate: "Thu, 27 Apr 2017 00:51:12 GMT"}, {Date: "Thu, 27 Apr 2017 00:51:12 GMT"}} {
		name := "x-ms-date"
		if d.XMsDate == "" {
			name = "Date"
		}
		sig := SignDates(key, "GET", "docs", "dbs/db/colls/c/docs/a", d)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !v.VerifyDates("GET", "docs", "dbs/db/colls/c/docs/a", d, sig) {
					b.Fatal("refused")
				}
			}
		})
	}
}
