package cosmostest

import (
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/query"
)

// Geospatial configuration and spatial indexes of a container, as the service keeps them:
// geospatialConfig.type is Geography (the default, returned on every container) or Geometry; the
// indexing policy's spatialIndexes list a path and the GeoJSON types indexed there (Point, Polygon,
// LineString, MultiPolygon), and under Geometry each needs a boundingBox (xmin, ymin, xmax, ymax)
// the planar coordinates are indexed within. The service refuses a Geometry spatial index without
// one; the reason texts here are cosmostest's (unsure of the service's wording).
//
// Spatial indexes do not change answers: cosmostest evaluates the spatial functions on every
// document the query reads, with or without one.

var spatialTypes = []string{"Point", "Polygon", "LineString", "MultiPolygon"}

// validateSpatialPolicy checks geospatialConfig and the spatial indexes of a container body and
// sets the default geospatialConfig.
func validateSpatialPolicy(props map[string]any) error {
	geo := "Geography"
	if raw, ok := props["geospatialConfig"]; ok && raw != nil {
		m, _ := raw.(map[string]any)
		t, _ := m["type"].(string)
		switch {
		case strings.EqualFold(t, "Geography"):
		case strings.EqualFold(t, "Geometry"):
			geo = "Geometry"
		default:
			return badRequest("The geospatialConfig type must be Geography or Geometry.")
		}
	}
	props["geospatialConfig"] = map[string]any{"type": geo}
	ip, _ := props["indexingPolicy"].(map[string]any)
	raw, ok := ip["spatialIndexes"]
	if !ok || raw == nil {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		return badRequest("The indexing policy's spatialIndexes must be an array.")
	}
	for _, x := range list {
		m, _ := x.(map[string]any)
		path, _ := m["path"].(string)
		if !strings.HasPrefix(path, "/") || len(path) < 2 {
			return badRequest("A spatial index needs a path (such as /location/?).")
		}
		types, _ := m["types"].([]any)
		if len(types) == 0 {
			return badRequest("The spatial index on %q needs types (Point, Polygon, LineString, MultiPolygon).", path)
		}
		for _, t := range types {
			s, _ := t.(string)
			if !containsFold(spatialTypes, s) {
				return badRequest("The spatial index on %q has an invalid type: the types are Point, Polygon, LineString and MultiPolygon.", path)
			}
		}
		bb, hasBox := m["boundingBox"]
		switch {
		case geo == "Geometry" && !hasBox:
			return badRequest("The spatial index on %q needs a boundingBox (xmin, ymin, xmax, ymax): the container's geospatialConfig type is Geometry.", path)
		case hasBox && !validBoundingBox(bb):
			return badRequest("The spatial index on %q has an invalid boundingBox: xmin, ymin, xmax and ymax must be numbers with xmin < xmax and ymin < ymax.", path)
		}
	}
	return nil
}

func validBoundingBox(v any) bool {
	m, _ := v.(map[string]any)
	var n [4]float64
	for i, k := range []string{"xmin", "ymin", "xmax", "ymax"} {
		f, ok := m[k].(float64)
		if !ok {
			return false
		}
		n[i] = f
	}
	return n[0] < n[2] && n[1] < n[3]
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// geospatial is the container's geospatial configuration, the coordinate system of its queries'
// spatial functions.
func (c *container) geospatial() query.Geospatial {
	m, _ := c.props["geospatialConfig"].(map[string]any)
	if t, _ := m["type"].(string); t == "Geometry" {
		return query.Geometry
	}
	return query.Geography
}
