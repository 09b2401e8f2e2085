package query

import "math"

// Edges of a Geography (the default geospatial configuration) run along great circles, as the
// service's geography library draws them: the edge from (-60, 20) to (70, 20) passes north of
// (0, 40). Geometry edges are straight lines in the coordinates' plane.

type vec3 struct{ x, y, z float64 }

func unit(p lonLat) vec3 {
	sinLat, cosLat := math.Sincos(rad(p.lat))
	sinLon, cosLon := math.Sincos(rad(p.lon))
	return vec3{cosLat * cosLon, cosLat * sinLon, sinLat}
}

func (a vec3) dot(b vec3) float64 { return a.x*b.x + a.y*b.y + a.z*b.z }
func (a vec3) cross(b vec3) vec3 {
	return vec3{a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x}
}
func (a vec3) scale(f float64) vec3 { return vec3{a.x * f, a.y * f, a.z * f} }
func (a vec3) sub(b vec3) vec3      { return vec3{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a vec3) norm() float64        { return math.Sqrt(a.dot(a)) }

// sphereEps is the tolerance of the great-circle tests (about 6 mm on the Earth's surface).
const sphereEps = 1e-9

// ringHas reports whether ring holds p: even-odd in the plane for Geometry, the winding of the
// ring around p on the sphere for Geography.
func (g geometry) ringHas(ring []lonLat, p lonLat) bool {
	if g.planar {
		return ringHas(ring, p)
	}
	u := unit(p)
	sum := 0.0
	for i := 1; i < len(ring); i++ {
		a, b := unit(ring[i-1]), unit(ring[i])
		ta, tb := a.sub(u.scale(a.dot(u))), b.sub(u.scale(b.dot(u)))
		sum += math.Atan2(u.dot(ta.cross(tb)), ta.dot(tb))
	}
	return math.Abs(sum) > math.Pi
}

// onEdge reports whether p lies on the edge a-b.
func (g geometry) onEdge(p, a, b lonLat) bool {
	if g.planar {
		return onSegment(p, a, b)
	}
	ua, ub, up := unit(a), unit(b), unit(p)
	n := ua.cross(ub)
	if l := n.norm(); l > 0 {
		n = n.scale(1 / l)
	} else {
		return up.sub(ua).norm() < sphereEps
	}
	return math.Abs(up.dot(n)) < sphereEps && onArc(up, ua, ub, n)
}

// edgesCross reports whether the edges a-b and c-d meet.
func (g geometry) edgesCross(a, b, c, d lonLat) bool {
	if g.planar {
		return segmentsCross(a, b, c, d)
	}
	if g.onEdge(a, c, d) || g.onEdge(b, c, d) || g.onEdge(c, a, b) || g.onEdge(d, a, b) {
		return true
	}
	ua, ub, uc, ud := unit(a), unit(b), unit(c), unit(d)
	n1, n2 := ua.cross(ub), uc.cross(ud)
	x := n1.cross(n2)
	l := x.norm()
	if l < sphereEps {
		return false // the same great circle, and no endpoint on the other edge: disjoint
	}
	x = x.scale(1 / l)
	for _, cand := range []vec3{x, x.scale(-1)} {
		if onArc(cand, ua, ub, n1) && onArc(cand, uc, ud, n2) {
			return true
		}
	}
	return false
}

// onArc reports whether x, on the great circle with normal n through a and b, lies on the shorter
// arc from a to b.
func onArc(x, a, b, n vec3) bool {
	return a.cross(x).dot(n) >= -sphereEps && x.cross(b).dot(n) >= -sphereEps
}

// planarEdgeDistance is the distance in coordinate units from p to the segment a-b.
func planarEdgeDistance(p, a, b lonLat) float64 {
	dx, dy := b.lon-a.lon, b.lat-a.lat
	t := 0.0
	if l := dx*dx + dy*dy; l > 0 {
		t = math.Max(0, math.Min(1, ((p.lon-a.lon)*dx+(p.lat-a.lat)*dy)/l))
	}
	return math.Hypot(p.lon-(a.lon+t*dx), p.lat-(a.lat+t*dy))
}

// slerp is the position a fraction t of the way from a to b along the great circle.
func slerp(a, b lonLat, t float64) lonLat {
	ua, ub := unit(a), unit(b)
	omega := math.Acos(math.Max(-1, math.Min(1, ua.dot(ub))))
	if omega < sphereEps || math.Pi-omega < sphereEps {
		return a // one position, or antipodes (no one great circle): the start stands for the edge
	}
	s := math.Sin(omega)
	v := ua.scale(math.Sin((1-t)*omega) / s)
	w := ub.scale(math.Sin(t*omega) / s)
	x := vec3{v.x + w.x, v.y + w.y, v.z + w.z}
	return lonLat{lon: math.Atan2(x.y, x.x) * 180 / math.Pi, lat: math.Atan2(x.z, math.Hypot(x.x, x.y)) * 180 / math.Pi}
}
