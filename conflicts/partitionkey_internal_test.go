package conflicts

import (
	"encoding/json"
	"testing"
)

func TestHeaderValue(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(`{"id":"a","t":"tenant-é😀","n":{"u":3,"z":null},"b":true}`), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{[]string{"/t"}, `["tenant-\u00e9\ud83d\ude00"]`},
		{[]string{"/n/u", "/b"}, `[3,true]`},
		{[]string{"/n/z"}, `[null]`},
		{[]string{"/missing", "/n/u/deeper"}, `[{},{}]`},
	} {
		got := headerValue(tc.paths, doc)
		if got != tc.want {
			t.Errorf("headerValue(%q) = %s, want %s", tc.paths, got, tc.want)
		}
		var back []any
		if err := json.Unmarshal([]byte(got), &back); err != nil || len(back) != len(tc.paths) {
			t.Errorf("headerValue(%q) = %s is not a JSON array of %d values: %v", tc.paths, got, len(tc.paths), err)
		}
	}
}
