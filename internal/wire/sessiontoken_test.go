package wire

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
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

// bigSessionHeader returns a header of n-byte at most made of distinct ranges' tokens, in
// descending range order (the worst order for insertion one by one).
func bigSessionHeader(n int) string {
	var parts []string
	size := 0
	for i := 0; ; i++ {
		p := strconv.Itoa(100000-i) + ":-1#" + strconv.Itoa(i)
		if size+len(p)+1 > n {
			break
		}
		parts = append(parts, p)
		size += len(p) + 1
	}
	return strings.Join(parts, ",")
}

// bigRegionalToken returns one range's multi-write token of at most n bytes naming many regions,
// in descending region order.
func bigRegionalToken(n int) string {
	b := []byte("0:-1#1")
	for r := 100000; ; r-- {
		seg := "#" + strconv.Itoa(r) + "=" + strconv.Itoa(r)
		if len(b)+len(seg) > n {
			break
		}
		b = append(b, seg...)
	}
	return string(b)
}

func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestParseSessionTokensLinearMemory: a 16 KiB header of ~2,400 ranges (or of one range naming
// ~1,500 regions twice) is parsed and merged with memory proportional to its length. Each entry
// used to clone the whole list (193 MB for one header).
func TestParseSessionTokensLinearMemory(t *testing.T) {
	many := bigSessionHeader(16 << 10)
	half := bigRegionalToken(8<<10 - 1)
	regional := half + "," + half
	for name, s := range map[string]string{"ranges": many, "regions": regional} {
		var ts []SessionToken
		var err error
		got := allocatedBytes(func() { ts, err = ParseSessionTokens(s) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if limit := uint64(64 * len(s)); got > limit {
			t.Errorf("%s: parsing %d bytes allocated %d bytes, want at most %d", name, len(s), got, limit)
		}
		if name == "ranges" && len(ts) != strings.Count(s, ",")+1 {
			t.Errorf("ranges: got %d tokens", len(ts))
		}
		if name == "regions" && (len(ts) != 1 || len(ts[0].Regional) != strings.Count(half, "=")) {
			t.Errorf("regions: got %d tokens", len(ts))
		}
		// Merging the parsed list into itself (what the consistency policy does per request) is linear too.
		got = allocatedBytes(func() { _ = MergeSessionTokenLists(ts, ts) })
		if limit := uint64(64 * len(s)); got > limit {
			t.Errorf("%s: merging allocated %d bytes, want at most %d", name, got, limit)
		}
	}
}

func TestMergeSessionTokenListsMatchesOneByOne(t *testing.T) {
	a, _ := ParseSessionTokens("0:-1#5#1=3#2=4,2:-1#7,5:3")
	b, _ := ParseSessionTokens("1:-1#1,2:-1#9#0=1,5:2,9:-1#1")
	want := a
	for _, tk := range b {
		want = MergeSessionToken(want, tk)
	}
	got := MergeSessionTokenLists(a, b)
	if FormatSessionTokens(got) != FormatSessionTokens(want) {
		t.Fatalf("lists merge %q, one by one %q", FormatSessionTokens(got), FormatSessionTokens(want))
	}
	if FormatSessionTokens(a) != "0:-1#5#1=3#2=4,2:-1#7,5:3" {
		t.Fatalf("input modified: %q", FormatSessionTokens(a))
	}
}

func FuzzMergeSessionTokenLists(f *testing.F) {
	f.Add("0:-1#5#1=3#2=4,2:-1#7", "2:-1#9#0=1#2=1,1:4")
	f.Add("3:5", "3:-1#2")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, err1 := ParseSessionTokens(x)
		b, err2 := ParseSessionTokens(y)
		if err1 != nil || err2 != nil {
			return
		}
		want := a
		for _, tk := range b {
			want = MergeSessionToken(want, tk)
		}
		if got := MergeSessionTokenLists(a, b); FormatSessionTokens(got) != FormatSessionTokens(want) {
			t.Fatalf("lists merge %q, one by one %q", FormatSessionTokens(got), FormatSessionTokens(want))
		}
	})
}

// BenchmarkParseSessionTokens shows parsing linear in the header's length up to the 16 KiB limit.
func BenchmarkParseSessionTokens(b *testing.B) {
	for _, n := range []int{1 << 10, 4 << 10, 16 << 10} {
		for name, s := range map[string]string{"ranges": bigSessionHeader(n), "regions": bigRegionalToken(n)} {
			b.Run(fmt.Sprintf("%s/%dKiB", name, n>>10), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					if _, err := ParseSessionTokens(s); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
