package query

import (
	"slices"
	"testing"
)

func TestFilterPaths(t *testing.T) {
	for q, want := range map[string][]string{
		"SELECT * FROM c WHERE c.a = 1 AND (c.b.c > @x AND c.d IN (1, 2)) AND c.e BETWEEN 1 AND 2": {"/a", "/b/c", "/d", "/e"},
		"SELECT * FROM c WHERE c.a = 1 OR c.b = 2":                                                 nil,
		"SELECT * FROM c WHERE 3 < c.a AND c.a != 4":                                               {"/a"},
		"SELECT * FROM c": nil,
		"SELECT * FROM c WHERE CONTAINS(c.name, 'x')": nil,
	} {
		parsed, err := Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := parsed.FilterPaths(); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
}
