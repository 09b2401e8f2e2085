package query

import (
	"testing"
	"time"
	"unicode/utf8"
)

// TestAgoAndNow: the AGO page's examples, with the clock the page assumes
// (2024-10-14T14:20:30.6668888Z): AGO(part, n) is that time minus n parts; NOW is the time.
// https://learn.microsoft.com/azure/cosmos-db/nosql/query/ago
func TestAgoAndNow(t *testing.T) {
	now := time.Date(2024, 10, 14, 14, 20, 30, 666888800, time.UTC)
	q := mustParse(t, `SELECT VALUE [AGO("yyyy", 1), AGO("yyyy", -1), AGO("ss", 30), AGO("ms", 4), NOW(), AGO("fortnight", 1), AGO("dd", "1")]`)
	p := mustExecute(t, q, nil, Options{Now: now})
	const want = `["2023-10-14T14:20:30.6668888Z","2025-10-14T14:20:30.6668888Z","2024-10-14T14:20:00.6668888Z","2024-10-14T14:20:30.6628888Z","2024-10-14T14:20:30.6668888Z"]`
	if got := string(p.Results[0]); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestDateTimeFormatSpecifiers: the .NET custom specifiers beyond the page's examples.
func TestDateTimeFormatSpecifiers(t *testing.T) {
	tm := time.Date(2024, 3, 5, 7, 8, 9, 120_000_000, time.UTC)
	for f, want := range map[string]string{
		"yyyy-M-d H:m:s":       "2024-3-5 7:8:9",
		"yy MMM MMMM ddd dddd": "24 Mar March Tue Tuesday",
		"hh tt, h t":           "07 AM, 7 A",
		"fffffff|FFFFFFF|f|F":  "1200000|12|1|1",
		`'yyyy' "MM" \y`:       "yyyy MM y",
		"":                     "",
		`x\`:                   "x",
	} {
		if got := formatCustom(tm, f); got != want {
			t.Errorf("formatCustom(%q) = %q, want %q", f, got, want)
		}
	}
}

func FuzzDateTimeFormat(f *testing.F) {
	for _, s := range []string{"yyyyMMdd", "yyyy-MM-dd [HH:mm:ss]", `To\da\y i\s: yyyy-MM-ddTHH:mm:ss.FFF`, `'x`, `"`, `\`, "fffffffff", "yyyyyyyyyy"} {
		f.Add(s)
	}
	tm := time.Date(2024, 10, 10, 14, 40, 20, 0, time.UTC)
	f.Fuzz(func(t *testing.T, format string) {
		out := formatCustom(tm, format)
		if utf8.ValidString(format) && !utf8.ValidString(out) {
			t.Fatalf("formatCustom(%q) = %q: not UTF-8", format, out)
		}
		if len(out) > 10*len(format)+10 {
			t.Fatalf("formatCustom(%q) wrote %d bytes", format, len(out))
		}
	})
}
