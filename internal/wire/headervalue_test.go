package wire

import (
	"strings"
	"testing"
)

func TestValidHeaderValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", true},
		{"+RID:~abc#RT:1#TRC:3", true},
		{" ~", true},
		{strings.Repeat("a", MaxHeaderValueBytes), true},
		{strings.Repeat("a", MaxHeaderValueBytes+1), false},
		{"a\r\nb", false},
		{"a\nb", false},
		{"a\tb", false},
		{"a\x00b", false},
		{"a\x7fb", false},
		{"é", false},
	} {
		if got := ValidHeaderValue(tc.in); got != tc.want {
			t.Errorf("ValidHeaderValue(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestValidRangeID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"0", true},
		{"1234", true},
		{strings.Repeat("9", 20), true},
		{strings.Repeat("9", 21), false},
		{"", false},
		{"-1", false},
		{" 1", false},
		{"1\r\n", false},
		{"1a", false},
	} {
		if got := ValidRangeID(tc.in); got != tc.want {
			t.Errorf("ValidRangeID(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestServiceSpelling(t *testing.T) {
	for in, want := range map[string]string{
		HeaderContinuation: "x-ms-continuation", HeaderSessionToken: "x-ms-session-token", HeaderETag: "etag",
		HeaderLSN: "lsn", HeaderSubStatus: "x-ms-substatus", "x-ms-request-charge": "x-ms-request-charge",
		HeaderContentType: "Content-Type", "content-length": "Content-Length", HeaderRetryAfter: "Retry-After",
	} {
		if got := ServiceSpelling(in); got != want {
			t.Errorf("ServiceSpelling(%q) = %q, want %q", in, got, want)
		}
	}
}
