package jsonfields

import (
	"reflect"
	"slices"
	"testing"
)

type inner struct {
	Shared string `json:"shared"`
	Deep   int
}

type outer struct {
	inner
	ID      string `json:"id"`
	Skip    string `json:"-"`
	hidden  string
	Dotted  string `json:"a.b"`
	Renamed string `json:"name,omitempty"`
	Shared  string `json:"shared"`
	Ptr     *int
}

func TestOf(t *testing.T) {
	want := []string{"shared", "Deep", "id", "name", "Ptr"}
	for _, typ := range []reflect.Type{reflect.TypeFor[outer](), reflect.TypeFor[*outer]()} {
		if got := Of(typ); !slices.Equal(got, want) {
			t.Errorf("Of(%v) = %v, want %v", typ, got, want)
		}
	}
	if got := Of(reflect.TypeFor[int]()); got != nil {
		t.Errorf("Of(int) = %v, want nil", got)
	}
	_ = outer{}.hidden
}
