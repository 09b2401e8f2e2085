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

func TestSpatialFilterPaths(t *testing.T) {
	const pt = `{"type": "Point", "coordinates": [1, 2]}`
	for q, want := range map[string][]string{
		"SELECT * FROM c WHERE ST_DISTANCE(c.loc, " + pt + ") < 10 AND ST_WITHIN(c.a.b, @poly) AND c.n = 1": {"/loc", "/a/b"},
		"SELECT * FROM c WHERE ST_INTERSECTS(@g, c.area) AND 5 >= ST_DISTANCE(" + pt + ", c.loc)":           {"/area", "/loc"},
		"SELECT * FROM c WHERE ST_WITHIN(c.a, @p) OR ST_WITHIN(c.b, @p)":                                    nil,
		"SELECT * FROM c WHERE ST_DISTANCE(c.loc, " + pt + ")":                                              nil,
		"SELECT * FROM c WHERE ST_ISVALID(c.loc) AND ST_WITHIN(c.loc, @p) AND ST_WITHIN(c.loc, @q)":         {"/loc"},
		"SELECT * FROM c WHERE c.n = 1":                                                                     nil,
		"SELECT * FROM c":                                                                                   nil,
	} {
		parsed, err := Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := parsed.SpatialFilterPaths(); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
}
