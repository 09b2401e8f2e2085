package crosspartition

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func TestResumeFilter(t *testing.T) {
	user := []azcosmos.QueryParameter{{Name: "@x", Value: 1}}
	for _, tc := range []struct {
		desc   bool
		last   any
		want   string
		params int
	}{
		{false, 5.0, "((IS_NUMBER(c.n) AND (c.n) >= @__crosspartitionResume) OR IS_STRING(c.n) OR IS_ARRAY(c.n) OR IS_OBJECT(c.n))", 2},
		{true, 5.0, "((IS_NUMBER(c.n) AND (c.n) <= @__crosspartitionResume) OR NOT IS_DEFINED(c.n) OR IS_NULL(c.n) OR IS_BOOL(c.n))", 2},
		{false, "abc", "(IS_STRING(c.n) OR IS_ARRAY(c.n) OR IS_OBJECT(c.n))", 1},
		{true, nil, "(IS_NULL(c.n) OR NOT IS_DEFINED(c.n))", 1},
		{false, undefined, "(NOT IS_DEFINED(c.n) OR IS_NULL(c.n) OR IS_BOOL(c.n) OR IS_NUMBER(c.n) OR IS_STRING(c.n) OR IS_ARRAY(c.n) OR IS_OBJECT(c.n))", 1},
	} {
		got, ps := resumeFilter("c.n", tc.desc, []any{tc.last}, user)
		if got != tc.want || len(ps) != tc.params {
			t.Errorf("desc=%v last=%v: %q with %d parameters, want %q", tc.desc, tc.last, got, len(ps), tc.want)
		}
		if len(ps) == 2 && ps[1].Value != tc.last {
			t.Errorf("the value travels as a parameter: %v", ps)
		}
	}
	if len(user) != 1 {
		t.Fatal("the caller's parameters were changed")
	}
	// A caller's parameter of the same name turns the filter off rather than shadow it.
	if got, _ := resumeFilter("c.n", false, []any{1.0}, []azcosmos.QueryParameter{{Name: resumeParam, Value: 0}}); got != "true" {
		t.Fatalf("filter with a clashing parameter: %q", got)
	}
}
