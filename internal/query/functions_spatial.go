package query

import "math"

// Spatial functions over GeoJSON (WGS-84 longitude, latitude):
// https://learn.microsoft.com/azure/cosmos-db/nosql/query/st-distance and its siblings.
//
//   - ST_ISVALID and ST_ISVALIDDETAILED check Point, LineString, Polygon and MultiPolygon: positions
//     of two or three numbers, longitudes in [-180, 180], latitudes in [-90, 90] (the reason texts for
//     these two are the service's, the others cosmostest's), LineStrings of two positions or more,
//     Polygon rings closed with four positions or more. Anything that is not a GeoJSON object of
//     those types is undefined.
//   - An invalid geometry is undefined to the other functions (as the service documents).
//   - In a Geography container (the default geospatialConfig): ST_DISTANCE is in meters on the WGS-84
//     ellipsoid (Vincenty's inverse formula; a point and a line or polygon: the nearest of 65
//     samples along each edge; 0 inside a polygon); ST_WITHIN and ST_INTERSECTS draw edges along
//     great circles (spatial_sphere.go: the edge from (-60, 20) to (70, 20) passes north of (0, 40),
//     as the service's plans show); holes are honoured, and a polygon whose outer ring runs
//     clockwise is its inverse (the rest of the globe), as the reference says; ST_AREA is in square
//     meters on the WGS-84 ellipsoid (the excess on the authalic sphere at authalic latitudes:
//     the reference's example to 1e-10).
//   - In a Geometry container: coordinates are planar x and y of any size, distances and areas in
//     coordinate units, edges straight.
//
// Unsure: the service computes on its own geography library; distances agree with Vincenty to
// well under a meter for points, the other answers can differ near edges and for long edges.
func init() {
	register("ST_ISVALID", 1, 1, func(ev *evaluator, a []any) any {
		g, ok := geoOf(a[0], ev.geometry)
		if !ok {
			return undefined
		}
		return g.invalid() == ""
	})
	register("ST_ISVALIDDETAILED", 1, 1, func(ev *evaluator, a []any) any {
		g, ok := geoOf(a[0], ev.geometry)
		if !ok {
			return undefined
		}
		if reason := g.invalid(); reason != "" {
			return &record{keys: []string{"valid", "reason"}, vals: []any{false, reason}}
		}
		return &record{keys: []string{"valid"}, vals: []any{true}}
	})
	register("ST_DISTANCE", 2, 2, func(ev *evaluator, a []any) any {
		x, ok1 := ev.geo(a[0])
		y, ok2 := ev.geo(a[1])
		if !ok1 || !ok2 {
			return undefined
		}
		if x.kind != "Point" {
			x, y = y, x
		}
		if x.kind != "Point" {
			return undefined // two lines or polygons: not supported (undefined)
		}
		p := x.points()[0]
		if y.kind == "Point" {
			if x.planar {
				q := y.points()[0]
				return math.Hypot(q.lon-p.lon, q.lat-p.lat)
			}
			return geodesic(p, y.points()[0])
		}
		if y.contains(p) {
			return 0.0
		}
		best := math.Inf(1)
		for _, e := range y.edges() {
			if x.planar {
				best = math.Min(best, planarEdgeDistance(p, e[0], e[1]))
				continue
			}
			best = math.Min(best, edgeDistance(p, e[0], e[1]))
		}
		return best
	})
	register("ST_WITHIN", 2, 2, func(ev *evaluator, a []any) any {
		x, ok1 := ev.geo(a[0])
		y, ok2 := ev.geo(a[1])
		if !ok1 || !ok2 {
			return undefined
		}
		if y.kind != "Polygon" && y.kind != "MultiPolygon" {
			return x.kind == "Point" && y.kind == "Point" && x.points()[0] == y.points()[0]
		}
		for _, p := range x.points() {
			if !y.contains(p) {
				return false
			}
		}
		return true
	})
	register("ST_INTERSECTS", 2, 2, func(ev *evaluator, a []any) any {
		x, ok1 := ev.geo(a[0])
		y, ok2 := ev.geo(a[1])
		if !ok1 || !ok2 {
			return undefined
		}
		return x.intersects(y) || y.intersects(x)
	})
	register("ST_AREA", 1, 1, func(ev *evaluator, a []any) any {
		g, ok := validGeo(a[0], ev.geometry)
		if !ok || (g.kind != "Polygon" && g.kind != "MultiPolygon") {
			return undefined
		}
		area := 0.0
		for _, poly := range g.polygons() {
			for i, ring := range poly {
				s := math.Abs(sphericalArea(ring))
				if g.planar {
					s = math.Abs(planarArea(ring))
				}
				if i > 0 {
					s = -s
				}
				area += s
			}
		}
		return area
	})
}

type lonLat struct{ lon, lat float64 }

// geometry is a GeoJSON Point, LineString, Polygon or MultiPolygon.
type geometry struct {
	kind   string
	coords any
	planar bool // the container's geospatial configuration is Geometry
}

func geoOf(v any, planar bool) (geometry, bool) {
	kind, ok := property(v, "type").(string)
	if !ok {
		return geometry{}, false
	}
	coords := property(v, "coordinates")
	if isUndef(coords) {
		coords = nil // as a map lookup of a missing key gave
	}
	return geometry{kind: kind, coords: coords, planar: planar}, true
}

// maxGeometryPoints bounds the positions of a geometry the spatial functions compare, so that a
// query's cost stays that of a legitimate one (ST_INTERSECTS of two polygons is quadratic): the
// spatialMaxGeometryPointCount the account reports (cosmostest/region.go). Unsure whether the
// service applies it to query arguments; the refusal names cosmostest.
const maxGeometryPoints = 256

// geo is validGeo in the container's configuration; a geometry of more than maxGeometryPoints
// positions fails the query (400).
func (ev *evaluator) geo(v any) (geometry, bool) {
	g, ok := validGeo(v, ev.geometry)
	if ok && g.kind != "Point" {
		if n := len(g.points()); n > maxGeometryPoints {
			ev.fail(badRequest("cosmostest does not support spatial function arguments of more than %d positions (the account's spatialMaxGeometryPointCount); this one has %d.", maxGeometryPoints, n))
			return geometry{}, false
		}
	}
	return g, ok
}

func validGeo(v any, planar bool) (geometry, bool) {
	g, ok := geoOf(v, planar)
	return g, ok && g.invalid() == ""
}

func position(v any, planar bool) (lonLat, string) {
	arr, ok := v.([]any)
	if !ok || len(arr) < 2 || len(arr) > 3 {
		return lonLat{}, "A position must be an array of two or three numbers."
	}
	lon, ok1 := arr[0].(float64)
	lat, ok2 := arr[1].(float64)
	if !ok1 || !ok2 {
		return lonLat{}, "A position must be an array of two or three numbers."
	}
	if planar {
		return lonLat{lon, lat}, ""
	}
	if lat < -90 || lat > 90 {
		return lonLat{}, "Latitude values must be between -90 and 90 degrees."
	}
	if lon < -180 || lon > 180 {
		return lonLat{}, "Longitude values must be between -180 and 180 degrees."
	}
	return lonLat{lon, lat}, ""
}

func positions(v any, min int, what string, planar bool) ([]lonLat, string) {
	arr, ok := v.([]any)
	if !ok || len(arr) < min {
		return nil, what
	}
	out := make([]lonLat, len(arr))
	for i, e := range arr {
		p, reason := position(e, planar)
		if reason != "" {
			return nil, reason
		}
		out[i] = p
	}
	return out, ""
}

func polygon(v any, planar bool) ([][]lonLat, string) {
	rings, ok := v.([]any)
	if !ok || len(rings) == 0 {
		return nil, "A Polygon must have at least one ring."
	}
	out := make([][]lonLat, len(rings))
	for i, r := range rings {
		ring, reason := positions(r, 4, "A Polygon ring must have at least four positions.", planar)
		if reason != "" {
			return nil, reason
		}
		if ring[0] != ring[len(ring)-1] {
			return nil, "A Polygon ring must be closed: its first and last positions must be the same."
		}
		out[i] = ring
	}
	return out, ""
}

// invalid is the reason g is not a valid geometry, "" when it is.
func (g geometry) invalid() string {
	switch g.kind {
	case "Point":
		_, reason := position(g.coords, g.planar)
		return reason
	case "LineString":
		_, reason := positions(g.coords, 2, "A LineString must have at least two positions.", g.planar)
		return reason
	case "Polygon":
		_, reason := polygon(g.coords, g.planar)
		return reason
	case "MultiPolygon":
		polys, ok := g.coords.([]any)
		if !ok || len(polys) == 0 {
			return "A MultiPolygon must have at least one Polygon."
		}
		for _, p := range polys {
			if _, reason := polygon(p, g.planar); reason != "" {
				return reason
			}
		}
		return ""
	}
	return "The GeoJSON type is not supported: Point, LineString, Polygon and MultiPolygon are."
}

// points are the positions of a valid geometry.
func (g geometry) points() []lonLat {
	switch g.kind {
	case "Point":
		p, _ := position(g.coords, g.planar)
		return []lonLat{p}
	case "LineString":
		ps, _ := positions(g.coords, 2, "", g.planar)
		return ps
	}
	var out []lonLat
	for _, poly := range g.polygons() {
		for _, ring := range poly {
			out = append(out, ring...)
		}
	}
	return out
}

func (g geometry) polygons() [][][]lonLat {
	switch g.kind {
	case "Polygon":
		p, _ := polygon(g.coords, g.planar)
		return [][][]lonLat{p}
	case "MultiPolygon":
		var out [][][]lonLat
		for _, c := range g.coords.([]any) {
			p, _ := polygon(c, g.planar)
			out = append(out, p)
		}
		return out
	}
	return nil
}

// edges are the segments of a line or of every ring of a polygon.
func (g geometry) edges() [][2]lonLat {
	var out [][2]lonLat
	add := func(ps []lonLat) {
		for i := 1; i < len(ps); i++ {
			out = append(out, [2]lonLat{ps[i-1], ps[i]})
		}
	}
	switch g.kind {
	case "LineString":
		add(g.points())
	case "Polygon", "MultiPolygon":
		for _, poly := range g.polygons() {
			for _, ring := range poly {
				add(ring)
			}
		}
	}
	return out
}

// contains reports whether a polygon holds p (even-odd in each ring; inverted when the outer ring
// runs clockwise).
func (g geometry) contains(p lonLat) bool {
	for _, poly := range g.polygons() {
		in := g.ringHas(poly[0], p)
		if planarArea(poly[0]) < 0 {
			in = !in
		}
		for _, hole := range poly[1:] {
			if g.ringHas(hole, p) {
				in = false
			}
		}
		if in {
			return true
		}
	}
	return false
}

func (g geometry) intersects(o geometry) bool {
	switch {
	case g.kind == "Point" && o.kind == "Point":
		return g.points()[0] == o.points()[0]
	case g.kind == "Point":
		p := g.points()[0]
		if o.contains(p) {
			return true
		}
		for _, e := range o.edges() {
			if g.onEdge(p, e[0], e[1]) {
				return true
			}
		}
		return false
	}
	for _, p := range g.points() {
		if o.contains(p) {
			return true
		}
	}
	for _, e := range g.edges() {
		for _, f := range o.edges() {
			if g.edgesCross(e[0], e[1], f[0], f[1]) {
				return true
			}
		}
	}
	return false
}

func ringHas(ring []lonLat, p lonLat) bool {
	in := false
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		a, b := ring[i], ring[j]
		if (a.lat > p.lat) != (b.lat > p.lat) && p.lon < (b.lon-a.lon)*(p.lat-a.lat)/(b.lat-a.lat)+a.lon {
			in = !in
		}
	}
	return in
}

// planarArea is the shoelace area of a ring in degrees: positive counterclockwise.
func planarArea(ring []lonLat) float64 {
	s := 0.0
	for i := 1; i < len(ring); i++ {
		s += ring[i-1].lon*ring[i].lat - ring[i].lon*ring[i-1].lat
	}
	return s / 2
}

func cross(o, a, b lonLat) float64 {
	return (a.lon-o.lon)*(b.lat-o.lat) - (a.lat-o.lat)*(b.lon-o.lon)
}

func onSegment(p, a, b lonLat) bool {
	return cross(a, b, p) == 0 && math.Min(a.lon, b.lon) <= p.lon && p.lon <= math.Max(a.lon, b.lon) &&
		math.Min(a.lat, b.lat) <= p.lat && p.lat <= math.Max(a.lat, b.lat)
}

func segmentsCross(a, b, c, d lonLat) bool {
	d1, d2, d3, d4 := cross(c, d, a), cross(c, d, b), cross(a, b, c), cross(a, b, d)
	if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) {
		return true
	}
	return onSegment(a, c, d) || onSegment(b, c, d) || onSegment(c, a, b) || onSegment(d, a, b)
}

const (
	wgs84A       = 6378137.0
	wgs84F       = 1 / 298.257223563
	wgs84B       = wgs84A * (1 - wgs84F)
	authalicR    = 6371007.2
	edgeSamples  = 64
	vincentyIter = 200
)

func rad(d float64) float64 { return d * math.Pi / 180 }

// geodesic is the distance in meters between two positions on the WGS-84 ellipsoid (Vincenty's
// inverse formula; the great-circle distance on the authalic sphere where it does not converge,
// near antipodes).
func geodesic(p, q lonLat) float64 {
	if p == q {
		return 0
	}
	L := rad(q.lon - p.lon)
	U1 := math.Atan((1 - wgs84F) * math.Tan(rad(p.lat)))
	U2 := math.Atan((1 - wgs84F) * math.Tan(rad(q.lat)))
	sinU1, cosU1 := math.Sincos(U1)
	sinU2, cosU2 := math.Sincos(U2)
	lambda := L
	for range vincentyIter {
		sinL, cosL := math.Sincos(lambda)
		sinSigma := math.Hypot(cosU2*sinL, cosU1*sinU2-sinU1*cosU2*cosL)
		if sinSigma == 0 {
			return 0
		}
		cosSigma := sinU1*sinU2 + cosU1*cosU2*cosL
		sigma := math.Atan2(sinSigma, cosSigma)
		sinAlpha := cosU1 * cosU2 * sinL / sinSigma
		cos2Alpha := 1 - sinAlpha*sinAlpha
		cos2SigmaM := 0.0
		if cos2Alpha != 0 {
			cos2SigmaM = cosSigma - 2*sinU1*sinU2/cos2Alpha
		}
		C := wgs84F / 16 * cos2Alpha * (4 + wgs84F*(4-3*cos2Alpha))
		prev := lambda
		lambda = L + (1-C)*wgs84F*sinAlpha*(sigma+C*sinSigma*(cos2SigmaM+C*cosSigma*(-1+2*cos2SigmaM*cos2SigmaM)))
		if math.Abs(lambda-prev) < 1e-12 {
			u2 := cos2Alpha * (wgs84A*wgs84A - wgs84B*wgs84B) / (wgs84B * wgs84B)
			A := 1 + u2/16384*(4096+u2*(-768+u2*(320-175*u2)))
			B := u2 / 1024 * (256 + u2*(-128+u2*(74-47*u2)))
			deltaSigma := B * sinSigma * (cos2SigmaM + B/4*(cosSigma*(-1+2*cos2SigmaM*cos2SigmaM)-
				B/6*cos2SigmaM*(-3+4*sinSigma*sinSigma)*(-3+4*cos2SigmaM*cos2SigmaM)))
			return wgs84B * A * (sigma - deltaSigma)
		}
	}
	return greatCircle(p, q)
}

func greatCircle(p, q lonLat) float64 {
	dLat, dLon := rad(q.lat-p.lat), rad(q.lon-p.lon)
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(rad(p.lat))*math.Cos(rad(q.lat))*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * authalicR * math.Asin(math.Min(1, math.Sqrt(h)))
}

// edgeDistance is the distance from p to the edge a-b (along the great circle), sampled.
func edgeDistance(p, a, b lonLat) float64 {
	best := math.Inf(1)
	for i := 0; i <= edgeSamples; i++ {
		best = math.Min(best, geodesic(p, slerp(a, b, float64(i)/edgeSamples)))
	}
	return best
}

// sphericalArea is the signed area of a ring on the WGS-84 ellipsoid, in square meters: the
// spherical excess of the ring on the authalic sphere (the sphere of the ellipsoid's area), its
// vertices at their authalic latitudes, each edge's share exact (the tangent half-angle formula).
// This reproduces the reference's ST_AREA example to 1e-10 (735,970,283.11 m², the page
// 735,970,283.05: the service's edges are geodesics on the ellipsoid).
func sphericalArea(ring []lonLat) float64 {
	s := 0.0
	for i := 1; i < len(ring); i++ {
		t1, t2 := math.Tan(authalicLat(rad(ring[i-1].lat))/2), math.Tan(authalicLat(rad(ring[i].lat))/2)
		s += 2 * math.Atan2(math.Tan(rad(ring[i].lon-ring[i-1].lon)/2)*(t1+t2), 1+t1*t2)
	}
	return s * authalicRq * authalicRq
}

// The authalic latitude of WGS-84 (Snyder, Map Projections: A Working Manual, 3-11 and 3-12).
var (
	wgs84E2    = wgs84F * (2 - wgs84F)
	wgs84E     = math.Sqrt(wgs84E2)
	authalicQp = authalicQ(math.Pi / 2)
	// authalicRq is the radius of the sphere of the ellipsoid's area (6,371,007.18 m).
	authalicRq = wgs84A * math.Sqrt(authalicQp/2)
)

func authalicQ(phi float64) float64 {
	s := math.Sin(phi)
	return (1 - wgs84E2) * (s/(1-wgs84E2*s*s) - math.Log((1-wgs84E*s)/(1+wgs84E*s))/(2*wgs84E))
}

// authalicLat maps a geodetic latitude (radians) to the authalic sphere.
func authalicLat(phi float64) float64 {
	return math.Asin(math.Max(-1, math.Min(1, authalicQ(phi)/authalicQp)))
}
