package wire

import (
	"strings"
	"testing"
)

func TestSessionTokenRange(t *testing.T) {
	for tok, want := range map[string]string{
		"0:-1#12":       "0",
		"17:1#99#3=5":   "17",
		"3:42":          "3",
		"0:-1#5,1:-1#3": "",
		"":              "",
		"nocolon":       "",
		":-1#1":         "",
		"5:":            "",
	} {
		got, ok := SessionTokenRange(tok)
		if got != want || ok != (want != "") {
			t.Errorf("SessionTokenRange(%q) = %q, %v; want %q", tok, got, ok, want)
		}
	}
}

func FuzzSessionTokenRange(f *testing.F) {
	f.Add("0:-1#12")
	f.Add("0:-1#5,1:-1#3")
	f.Fuzz(func(t *testing.T, tok string) {
		id, ok := SessionTokenRange(tok)
		if ok && (id == "" || strings.ContainsAny(id, ":,") || !strings.HasPrefix(tok, id+":")) {
			t.Fatalf("SessionTokenRange(%q) = %q", tok, id)
		}
		if !ok && id != "" {
			t.Fatalf("an id with false: %q", id)
		}
	})
}
