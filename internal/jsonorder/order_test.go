package jsonorder

import (
	"math"
	"testing"
)

// TestCompare: every value is after every value before it in the list, and equal to itself.
func TestCompare(t *testing.T) {
	ordered := []any{
		Undefined{}, nil, false, true, math.Inf(-1), -1.5, 0.0, 2.0, "", "A", "a", "ab", "é",
		[]any{}, []any{nil}, []any{1.0}, []any{1.0, 2.0}, []any{"a"},
		// Objects by their JSON, byte-wise: `{"` sorts before `{}`.
		map[string]any{"a": 1.0}, map[string]any{"a": 2.0}, map[string]any{"b": 0.0}, map[string]any{},
	}
	var o Order
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := o.Compare(a, b); got != want {
				t.Errorf("Compare(%#v, %#v) = %d, want %d", a, b, got, want)
			}
		}
	}
	if o.Compare(math.NaN(), 1.0) != 0 || o.Compare(1.0, math.NaN()) != 0 {
		t.Error("NaN is not equal to every number")
	}
}

func TestCompareKeys(t *testing.T) {
	var o Order
	if got := o.CompareKeys([]any{1.0, "b"}, []any{1.0, "a"}, []bool{false, true}); got != -1 {
		t.Errorf("descending second key: %d, want -1", got)
	}
	if got := o.CompareKeys([]any{1.0, 2.0}, []any{1.0}, []bool{false, false}); got != 1 {
		t.Errorf("longer vector: %d, want 1", got)
	}
}

// TestOrderHooks: a caller's own object type ranks as an object and compares by its encoding.
func TestOrderHooks(t *testing.T) {
	type obj struct{ json string }
	o := Order{
		Rank: func(v any) int {
			if _, ok := v.(obj); ok {
				return 6
			}
			return Rank(v)
		},
		Object: func(v any) []byte {
			if x, ok := v.(obj); ok {
				return []byte(x.json)
			}
			return []byte("{}")
		},
	}
	if o.Compare(obj{`{"a":1}`}, []any{}) != 1 || o.Compare(obj{`{"a":1}`}, obj{`{"a":2}`}) != -1 {
		t.Error("hooks not used")
	}
}
