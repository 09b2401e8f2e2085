package crosspartition

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func TestResumeFilter(t *testing.T) {
	user := []azcosmos.QueryParameter{{Name: "@x", Value: 1}}
	one := []string{"c.n"}
	for _, tc := range []struct {
		desc   bool
		last   any
		strict bool
		want   string
		params int
	}{
		{false, 5.0, false, "(((c.n) >= @__crosspartitionResume0 OR IS_STRING(c.n) OR IS_ARRAY(c.n) OR IS_OBJECT(c.n)))", 2},
		{false, 5.0, true, "(((c.n) > @__crosspartitionResume0 OR IS_STRING(c.n) OR IS_ARRAY(c.n) OR IS_OBJECT(c.n)))", 2},
		{true, 5.0, false, "(((c.n) <= @__crosspartitionResume0 OR NOT IS_DEFINED(c.n) OR IS_NULL(c.n) OR IS_BOOL(c.n)))", 2},
		{false, "abc", true, "(((c.n) > @__crosspartitionResume0 OR IS_ARRAY(c.n) OR IS_OBJECT(c.n)))", 2},
		{true, nil, false, "((IS_NULL(c.n) OR NOT IS_DEFINED(c.n)))", 1},
		{true, nil, true, "(NOT IS_DEFINED(c.n))", 1},
		{false, true, true, "((IS_NUMBER(c.n) OR IS_STRING(c.n) OR IS_ARRAY(c.n) OR IS_OBJECT(c.n)))", 1},
		{false, false, true, "(((c.n) = true OR IS_NUMBER(c.n) OR IS_STRING(c.n) OR IS_ARRAY(c.n) OR IS_OBJECT(c.n)))", 1},
		{false, undefined, false, "true", 1},
		{true, map[string]any{}, true, "true", 1}, // objects (the merge drops those before) and every type before them
		{false, []any{1.0}, true, "((IS_ARRAY(c.n) OR IS_OBJECT(c.n)))", 1},
	} {
		got, ps, ok := resumeFilter(one, []bool{tc.desc}, []any{tc.last}, tc.strict, user)
		if got != tc.want || len(ps) != tc.params || !ok {
			t.Errorf("desc=%v last=%v strict=%v: %q with %d parameters, want %q", tc.desc, tc.last, tc.strict, got, len(ps), tc.want)
		}
		if len(ps) == 2 && ps[1].Value != tc.last {
			t.Errorf("the value travels as a parameter: %v", ps)
		}
	}
	if len(user) != 1 {
		t.Fatal("the caller's parameters were changed")
	}
	// Two keys: (a after x) OR (a = x AND b at or after y).
	got, ps, _ := resumeFilter([]string{"c.a", "c.b"}, []bool{false, true}, []any{"x", 2.0}, false, nil)
	if want := "(((c.a) > @__crosspartitionResume0 OR IS_ARRAY(c.a) OR IS_OBJECT(c.a)) OR ((c.a) = @__crosspartitionResume0 AND ((c.b) <= @__crosspartitionResume1 OR NOT IS_DEFINED(c.b) OR IS_NULL(c.b) OR IS_BOOL(c.b))))"; got != want || len(ps) != 2 {
		t.Fatalf("two keys: %q (%d parameters), want %q", got, len(ps), want)
	}
	// A caller's parameter of the reserved name turns the filter off rather than shadow it.
	if got, _, ok := resumeFilter(one, []bool{false}, []any{1.0}, false, []azcosmos.QueryParameter{{Name: resumeParam + "0", Value: 0}}); got != "true" || ok {
		t.Fatalf("filter with a clashing parameter: %q", got)
	}
}
