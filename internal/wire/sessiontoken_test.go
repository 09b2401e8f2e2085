package wire

import (
	"errors"
	"testing"
)

func TestParseSessionToken(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // String() of the parse, "" for an error
		g    int64
		regs int
	}{
		{"0:-1#12", "0:-1#12", 12, 0},
		{"3:5", "3:5", 5, 0},
		{"0:-1#40#1=15#0=25", "0:-1#40#0=25#1=15", 40, 2},
		{"12:0#7#2=-1", "12:0#7#2=-1", 7, 1},
		{"", "", 0, 0},
		{"0", "", 0, 0},
		{"a:-1#1", "", 0, 0},
		{"0:-1#", "", 0, 0},
		{"0:x#1", "", 0, 0},
		{"0:-1#1#1", "", 0, 0},
		{"0:-1#1#1=2#1=3", "", 0, 0},
		{"0:-2#1", "", 0, 0},
		{"0:-1#1,1:-1#2", "", 0, 0},
	} {
		got, err := ParseSessionToken(tc.in)
		if tc.want == "" {
			if !errors.Is(err, ErrSessionToken) {
				t.Errorf("ParseSessionToken(%q) = %v, %v; want ErrSessionToken", tc.in, got, err)
			}
			continue
		}
		if err != nil || got.String() != tc.want || got.GlobalLSN != tc.g || len(got.Regional) != tc.regs {
			t.Errorf("ParseSessionToken(%q) = %+v (%q), %v; want %q", tc.in, got, got.String(), err, tc.want)
		}
	}
}

func TestSessionTokenMergeAndCovers(t *testing.T) {
	p := func(s string) SessionToken {
		t.Helper()
		tok, err := ParseSessionToken(s)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	if got := p("0:-1#5").Merge(p("0:-1#9")).String(); got != "0:-1#9" {
		t.Errorf("merge = %s", got)
	}
	if got := p("0:-1#5#0=5#1=2").Merge(p("0:-1#4#1=7#2=1")).String(); got != "0:-1#5#0=5#1=7#2=1" {
		t.Errorf("vector merge = %s", got)
	}
	if got := p("0:-1#5").Merge(p("1:-1#9")).String(); got != "0:-1#5" {
		t.Errorf("merge of another range = %s", got)
	}
	if !p("0:-1#9").Covers(p("0:-1#9")) || p("0:-1#8").Covers(p("0:-1#9")) {
		t.Error("single-write Covers wrong")
	}
	if !p("0:-1#3#0=5#1=7").Covers(p("0:-1#90#1=7")) || p("0:-1#99#0=5#1=6").Covers(p("0:-1#1#1=7")) ||
		p("0:-1#99#0=5").Covers(p("0:-1#1#1=0")) {
		t.Error("multi-write Covers wrong")
	}
}

func TestParseSessionTokens(t *testing.T) {
	ts, err := ParseSessionTokens("1:-1#3, 0:-1#5,1:-1#7")
	if err != nil || FormatSessionTokens(ts) != "0:-1#5,1:-1#7" {
		t.Fatalf("ParseSessionTokens = %v, %v", FormatSessionTokens(ts), err)
	}
	merged := MergeSessionToken(ts, SessionToken{Range: "0", Version: -1, GlobalLSN: 9})
	if FormatSessionTokens(merged) != "0:-1#9,1:-1#7" || FormatSessionTokens(ts) != "0:-1#5,1:-1#7" {
		t.Errorf("MergeSessionToken = %s (input now %s)", FormatSessionTokens(merged), FormatSessionTokens(ts))
	}
	for _, bad := range []string{"", ",", "0:-1#1,", "0:-1#1,x"} {
		if _, err := ParseSessionTokens(bad); !errors.Is(err, ErrSessionToken) {
			t.Errorf("ParseSessionTokens(%q) err = %v", bad, err)
		}
	}
}

func FuzzParseSessionTokens(f *testing.F) {
	for _, s := range []string{"0:-1#12", "0:-1#40#0=25#1=15", "3:5", "0:-1#1,1:-1#2", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseSessionTokens(s)
		if err != nil {
			return
		}
		again, err := ParseSessionTokens(FormatSessionTokens(ts))
		if err != nil || FormatSessionTokens(again) != FormatSessionTokens(ts) {
			t.Fatalf("%q: round trip %q -> %v, %v", s, FormatSessionTokens(ts), FormatSessionTokens(again), err)
		}
	})
}
