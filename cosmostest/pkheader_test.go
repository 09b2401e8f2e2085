package cosmostest

import (
	"errors"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePartitionKeyHeader(t *testing.T) {
	tests := []struct {
		in   string
		want []any
		bad  bool
	}{
		{`["p1"]`, []any{"p1"}, false},
		{`["t1","u1"]`, []any{"t1", "u1"}, false},
		{`[null]`, []any{nil}, false},
		{`[1.5,true,"\u00e9\"q"]`, []any{1.5, true, "é\"q"}, false},
		{`[1]`, []any{1.0}, false},
		{`[{}]`, []any{undefinedValue}, false},
		{`[]`, []any{}, false},
		{"[" + strconv.QuoteToASCII("😀") + "]", []any{"😀"}, false},
		{"[" + strconv.QuoteToASCII("a\a\vb\x00") + "]", []any{"a\a\vb\x00"}, false},
		{"[" + strconv.QuoteToASCII("x😀") + ",2,false]", []any{"x😀", 2.0, false}, false},
		{`["a\/b"]`, []any{"a/b"}, false},
		{`p1`, nil, true},
		{`["unterminated]`, nil, true},
		{`[[1]]`, nil, true},
		{`[{"a":1}]`, nil, true},
		{`["a" "b"]`, nil, true},
		{`null`, nil, true},
		{"[\"\\U0001f600\" x]", nil, true},
	}
	for _, tt := range tests {
		got, err := parsePartitionKeyHeader(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("%q: no error, got %v", tt.in, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b undefinedT) bool { return true })); diff != "" {
			t.Errorf("%q: %s", tt.in, diff)
		}
	}
}

func FuzzPartitionKeyHeader(f *testing.F) {
	for _, s := range []string{`["p1"]`, `["t1","u1","s1"]`, `[null]`, `[1.5,true,"\u00e9\"q"]`, `[{}]`, `[]`,
		"[" + strconv.QuoteToASCII("😀\a\x00") + "]", `["a\/b"]`, `[`, `]`, `["\`, `[1e999]`, `[-0]`, `[,]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vals, err := parsePartitionKeyHeader(s)
		if err != nil {
			var se *statusError
			if !errors.As(err, &se) || se.status != 400 || se.message == "" {
				t.Fatalf("%q: error is not a 400 with a message: %v", s, err)
			}
			return
		}
		for _, v := range vals {
			switch v.(type) {
			case nil, bool, float64, string, undefinedT:
			default:
				t.Fatalf("%q: component of type %T", s, v)
			}
		}
		// Whatever parses must key items deterministically.
		if k1, k2 := itemKey(vals, "id"), itemKey(vals, "id"); k1 != k2 {
			t.Fatal("itemKey not deterministic")
		}
	})
}
