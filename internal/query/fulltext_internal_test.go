package query

import "testing"

func TestFullTextMatch(t *testing.T) {
	text := "Waterproof hiking BOOTS, for rocky mountain-trails!"
	cases := []struct {
		fn    string
		terms []any
		want  any
	}{
		{"FULLTEXTCONTAINS", []any{"boots"}, true},
		{"FULLTEXTCONTAINS", []any{"boot"}, false}, // no stemming
		{"FULLTEXTCONTAINS", []any{"Mountain Trails"}, true},
		{"FULLTEXTCONTAINS", []any{"trails mountain"}, false},
		{"FULLTEXTCONTAINS", []any{"!!"}, false},
		{"FULLTEXTCONTAINS", []any{3.0}, undefined},
		{"FULLTEXTCONTAINSALL", []any{"hiking", "rocky"}, true},
		{"FULLTEXTCONTAINSALL", []any{"hiking", "sandy"}, false},
		{"FULLTEXTCONTAINSANY", []any{"sandy", "rocky"}, true},
		{"FULLTEXTCONTAINSANY", []any{"sandy", "beach"}, false},
	}
	for _, c := range cases {
		got := builtins[c.fn].call(nil, append([]any{text}, c.terms...))
		if got != c.want {
			t.Errorf("%s(%q, %v) = %v, want %v", c.fn, text, c.terms, got, c.want)
		}
	}
	if got := builtins["FULLTEXTCONTAINS"].call(nil, []any{3.0, "x"}); got != false {
		t.Errorf("non-string text: %v", got)
	}
}
