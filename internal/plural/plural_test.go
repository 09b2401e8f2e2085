package plural

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 levels"}, {1, "1 level"}, {2, "2 levels"}, {-1, "-1 level"}} {
		if got := Count(tc.n, "level", "levels"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
