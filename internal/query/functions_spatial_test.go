package query

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestSpatial: distances on the WGS-84 ellipsoid (a degree of longitude on the equator is
// 111,319.49 m, of latitude 110,574.39 m), containment with holes and orientation, validity.
func TestSpatial(t *testing.T) {
	const square = `{"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], [[4, 4], [4, 6], [6, 6], [6, 4], [4, 4]]]}`
	const clockwise = `{"type": "Polygon", "coordinates": [[[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]]]}`
	pt := func(lon, lat string) string { return `{"type": "Point", "coordinates": [` + lon + `, ` + lat + `]}` }
	num := []struct {
		q    string
		want float64
		tol  float64
	}{
		{`ST_DISTANCE(` + pt("0", "0") + `, ` + pt("1", "0") + `)`, 111319.49, 0.01},
		{`ST_DISTANCE(` + pt("0", "0") + `, ` + pt("0", "1") + `)`, 110574.39, 0.01},
		{`ST_DISTANCE(` + pt("2", "2") + `, ` + square + `)`, 0, 0},
		{`ST_DISTANCE(` + pt("5", "5") + `, ` + square + `)`, 110574.39, 200}, // to the hole's edge at lat 4 or 6
		{`ST_DISTANCE(` + pt("-1", "5") + `, ` + square + `)`, 110900, 600},
		// On the ellipsoid (the sphere of the same radius gives 1.2364e10).
		{`ST_AREA({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]})`, 1.2308777e10, 5e4},
		// The reference's example (st-area page): 735,970,283.0522614 m².
		{`ST_AREA({"type": "Polygon", "coordinates": [[[31.8, -5], [32, -5], [32, -4.7], [31.8, -4.7], [31.8, -5]]]})`, 735970283.0522614, 0.5},
		// Across the antimeridian: the same square as from 179.5 to 180.5.
		{`ST_AREA({"type": "Polygon", "coordinates": [[[179.5, 0], [-179.5, 0], [-179.5, 1], [179.5, 1], [179.5, 0]]]})`, 1.2308777e10, 5e4},
	}
	for _, c := range num {
		p := mustExecute(t, mustParse(t, "SELECT VALUE "+c.q), nil, Options{})
		var got float64
		if len(p.Results) != 1 || !parseFloat(string(p.Results[0]), &got) || math.Abs(got-c.want) > c.tol {
			t.Errorf("%s = %s, want %v ± %v", c.q, p.Results, c.want, c.tol)
		}
	}
	other := map[string]string{
		`ST_WITHIN(` + pt("2", "2") + `, ` + square + `)`:                                            "true",
		`ST_WITHIN(` + pt("5", "5") + `, ` + square + `)`:                                            "false", // in the hole
		`ST_WITHIN(` + pt("20", "20") + `, ` + square + `)`:                                          "false",
		`ST_WITHIN(` + pt("20", "20") + `, ` + clockwise + `)`:                                       "true", // clockwise: the inverse
		`ST_INTERSECTS(` + square + `, ` + pt("2", "2") + `)`:                                        "true",
		`ST_INTERSECTS({"type": "LineString", "coordinates": [[-5, 5], [15, 5]]}, ` + square + `)`:   "true",
		`ST_INTERSECTS({"type": "LineString", "coordinates": [[-5, 50], [15, 50]]}, ` + square + `)`: "false",
		`ST_ISVALID(` + pt("-84.38876194345323", "33.75682784306348") + `)`:                          "true",
		`ST_ISVALIDDETAILED(` + pt("200", "0") + `)`:                                                 `{"valid":false,"reason":"Longitude values must be between -180 and 180 degrees."}`,
		`ST_ISVALID({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0.5]]]})`:       "false",
		`ST_DISTANCE(` + pt("0", "95") + `, ` + pt("0", "0") + `)`:                                   "undefined",
		`ST_ISVALID("Point")`: "undefined",
	}
	for q, want := range other {
		p := mustExecute(t, mustParse(t, "SELECT VALUE "+q), nil, Options{})
		got := "undefined"
		if len(p.Results) == 1 {
			got = string(p.Results[0])
		}
		if got != want {
			t.Errorf("%s = %s, want %s", q, got, want)
		}
	}
}

func parseFloat(s string, f *float64) bool {
	v, err := strconv.ParseFloat(s, 64)
	*f = v
	return err == nil
}

// FuzzSpatial: any JSON value given to the spatial functions answers a boolean, a number, an
// object or undefined, never a panic, in either geospatial configuration.
func FuzzSpatial(f *testing.F) {
	for _, s := range []string{`{"type":"Point","coordinates":[1,2]}`, `{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}`,
		`{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]]]}`, `{"type":"LineString","coordinates":[[0,0],[1,1]]}`,
		`{"type":"Polygon","coordinates":[]}`, `{"type":"Point","coordinates":[1]}`, `[1,2]`, `null`} {
		f.Add(s, `{"type":"Point","coordinates":[0.5,0.5]}`)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var x, y any
		if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
			return
		}
		x, y = normalize(x), normalize(y)
		for _, ev := range []*evaluator{newEvaluator(Options{}), newEvaluator(Options{Geospatial: Geometry})} {
			for _, name := range []string{"ST_DISTANCE", "ST_WITHIN", "ST_INTERSECTS"} {
				builtins[name].call(ev, []any{x, y})
			}
			for _, name := range []string{"ST_ISVALID", "ST_ISVALIDDETAILED", "ST_AREA"} {
				builtins[name].call(ev, []any{x})
			}
		}
	})
}

// TestSpatialPointLimit: a geometry of more than 256 positions (the account's
// spatialMaxGeometryPointCount) fails the query with 400 naming cosmostest, instead of costing a
// quadratic comparison per document; 256 positions are served.
func TestSpatialPointLimit(t *testing.T) {
	ring := func(n int) []any {
		var pts []any
		for i := range n - 1 {
			a := 2 * math.Pi * float64(i) / float64(n-1)
			pts = append(pts, []any{math.Cos(a), math.Sin(a)})
		}
		return append(pts, pts[0])
	}
	point := map[string]any{"type": "Point", "coordinates": []any{0.0, 0.0}}
	for _, n := range []int{256, 257} {
		poly := map[string]any{"type": "Polygon", "coordinates": []any{ring(n)}}
		q := mustParse(t, "SELECT VALUE ST_WITHIN(@p, @poly)")
		page, err := q.Execute(nil, Options{Params: map[string]any{"@p": point, "@poly": poly}})
		switch {
		case n <= maxGeometryPoints && (err != nil || len(page.Results) != 1 || string(page.Results[0]) != "true"):
			t.Errorf("%d positions: %v %v, want [true]", n, page, err)
		case n > maxGeometryPoints && (err == nil || !strings.Contains(err.Error(), "cosmostest")):
			t.Errorf("%d positions: %v, want a 400 naming cosmostest", n, err)
		}
	}
}
