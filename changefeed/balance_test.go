package changefeed

import (
	"testing"
	"time"
)

func TestBalance(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	exp := time.Minute
	mk := func(spec ...string) []*lease { // "owner" or "owner!" (expired) or "" (free)
		var out []*lease
		for i, s := range spec {
			l := &lease{LeaseToken: string(rune('a' + i)), Timestamp: leaseTime{now}}
			if s != "" {
				o := s
				if s[len(s)-1] == '!' {
					o = s[:len(s)-1]
					l.Timestamp = leaseTime{now.Add(-2 * exp)}
				}
				l.Owner = &o
			}
			out = append(out, l)
		}
		return out
	}
	cases := []struct {
		name     string
		leases   []*lease
		min, max int
		take     int
		steal    string // owner stolen from
	}{
		{"all free", mk("", "", "", ""), 0, 0, 4, ""},
		{"second instance takes half by stealing one", mk("a", "a", "a", "a"), 0, 0, 0, "a"},
		{"balanced", mk("a", "a", "me", "me"), 0, 0, 0, ""},
		{"within one", mk("a", "a", "b", "me"), 0, 0, 0, ""},
		{"expired first", mk("a", "a!", "a", "a"), 0, 0, 1, ""},
		{"dead instance", mk("a!", "a!", "me", "me"), 0, 0, 2, ""},
		{"no steal at target", mk("a", "a", "b", "b", "me"), 0, 0, 0, ""},
		{"max bounds", mk("", "", "", ""), 0, 1, 1, ""},
		{"min raises target", mk("a", "a", "a", "a"), 3, 0, 0, "a"},
		{"free and expired", mk("", "b!", "me"), 0, 0, 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := balance(c.leases, "me", now, exp, c.min, c.max)
			if len(p.take) != c.take {
				t.Errorf("take %d, want %d", len(p.take), c.take)
			}
			switch {
			case c.steal == "" && p.steal != nil:
				t.Errorf("stole %s from %s", p.steal.LeaseToken, p.steal.owner())
			case c.steal != "" && (p.steal == nil || p.steal.owner() != c.steal):
				t.Errorf("steal = %v, want one from %s", p.steal, c.steal)
			}
			if c.name == "free and expired" && p.take[0].owner() != "" {
				t.Errorf("took the expired lease before the free one")
			}
		})
	}
}
