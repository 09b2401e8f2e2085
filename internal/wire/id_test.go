package wire

import (
	"strings"
	"testing"
)

func TestIDProblem(t *testing.T) {
	for _, id := range []string{"Test", "This is a test", " Test", "a,=.:~+-@()^${}[]!_b", "鱀", "100%", "a%2", "%zz", "a.", "...", strings.Repeat("a", MaxIDBytes)} {
		if p := IDProblem(id); p != "" {
			t.Errorf("IDProblem(%q) = %q, want none", id, p)
		}
	}
	for _, id := range []string{"", strings.Repeat("a", MaxIDBytes+1), "Test ", "Test  ", "a\t", "a\u00a0", "a%20", "a%2Fb", "%2F", "x%E9%B1%80", "%2f",
		".", "..", "a/b", `a\b`, "a?b", "a#b", "a\rb", "a\tb", "a\nb", "a\x00b", "a\x01b", "a\x7fb", "a\u0085b", "\xff"} {
		p := IDProblem(id)
		if p == "" {
			t.Errorf("IDProblem(%q) = none, want a reason", id)
		}
		if len(id) > 1 && id != ".." && strings.Contains(p, id) {
			t.Errorf("IDProblem(%q) quotes the id: %q", id, p)
		}
	}
}

func FuzzIDProblem(f *testing.F) {
	for _, s := range []string{"Test", "Test ", "a%2Fb", ".", "..", "a\x00", "100%", "鱀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		p := IDProblem(id)
		if p != "" {
			return
		}
		// An accepted id is addressable: no white space at the end, no escape, no control
		// character, UTF-8, 1 to 1,023 bytes.
		if id == "" || len(id) > MaxIDBytes || strings.TrimRightFunc(id, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }) != id ||
			strings.ContainsAny(id, "/\\?#\x00\r\n\t\x7f") || id == "." || id == ".." {
			t.Fatalf("accepted %q", id)
		}
	})
}
