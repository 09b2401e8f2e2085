package cosmostest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// geospatialPolicy adds a geospatialConfig (which azcosmos' ContainerProperties cannot carry) to
// the container create requests it sees, as a REST client or another SDK sends it.
type geospatialPolicy struct{ config map[string]any }

func (g geospatialPolicy) Do(req *policy.Request) (*http.Response, error) {
	r := req.Raw()
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/colls") && r.Body != nil {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		m["geospatialConfig"] = g.config
		b, _ := json.Marshal(m)
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(b)), "application/json"); err != nil {
			return nil, err
		}
	}
	return req.Next()
}

func spatialContainer(t *testing.T, s *cosmostest.Server, id string, geo map[string]any, spatial []azcosmos.SpatialIndex) (planClient, error) {
	t.Helper()
	cap := &bodyCapture{}
	c := newClient(t, s, func(o *azcosmos.ClientOptions) {
		o.PerRetryPolicies = append(o.PerRetryPolicies, cap)
		if geo != nil {
			o.PerCallPolicies = append(o.PerCallPolicies, geospatialPolicy{geo})
		}
	})
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		if st, _ := status(t, err); st != http.StatusConflict {
			t.Fatal(err)
		}
	}
	db, _ := c.NewDatabase("db")
	props := azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, SpatialIndexes: spatial}}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		return planClient{}, err
	}
	cc, _ := db.NewContainer(id)
	return planClient{cc: cc, cap: cap}, nil
}

// TestSpatialIndexesAndGeospatialConfig: spatial indexes are kept and returned; every container
// reports its geospatialConfig (Geography by default); Geometry needs a bounding box on each
// spatial index; bad types and boxes are refused with 400.
func TestSpatialIndexesAndGeospatialConfig(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t)
	all := []azcosmos.SpatialType{azcosmos.SpatialTypePoint, azcosmos.SpatialTypePolygon, azcosmos.SpatialTypeLineString, azcosmos.SpatialTypeMultiPolygon}
	p, err := spatialContainer(t, s, "geo", nil, []azcosmos.SpatialIndex{{Path: "/location/*", SpatialTypes: all}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.cc.Read(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := resp.ContainerProperties.IndexingPolicy.SpatialIndexes
	if want := []azcosmos.SpatialIndex{{Path: "/location/*", SpatialTypes: all}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("spatial indexes %+v, want %+v", got, want)
	}
	var raw map[string]any
	if err := json.Unmarshal(p.cap.last(), &raw); err != nil {
		t.Fatal(err)
	}
	if g := raw["geospatialConfig"]; !reflect.DeepEqual(g, map[string]any{"type": "Geography"}) {
		t.Fatalf("geospatialConfig %v, want Geography", g)
	}

	box := map[string]any{"type": "Geometry"}
	for name, spatial := range map[string][]azcosmos.SpatialIndex{
		"type":        {{Path: "/location/*", SpatialTypes: []azcosmos.SpatialType{"Circle"}}},
		"no types":    {{Path: "/location/*"}},
		"no path":     {{SpatialTypes: all}},
		"geometry":    {{Path: "/location/*", SpatialTypes: all}}, // Geometry without a bounding box
		"geometry ok": nil,
	} {
		geo := map[string]any(nil)
		if strings.HasPrefix(name, "geometry") {
			geo = box
		}
		_, err := spatialContainer(t, s, "bad-"+strings.ReplaceAll(name, " ", "-"), geo, spatial)
		st, _ := status(t, err)
		switch {
		case name == "geometry ok" && err != nil:
			t.Errorf("%s: %v", name, err)
		case name != "geometry ok" && st != http.StatusBadRequest:
			t.Errorf("%s: %v, want 400", name, err)
		}
	}
	if _, err := spatialContainer(t, s, "bad-config", map[string]any{"type": "Flat"}, nil); err == nil {
		t.Error("geospatialConfig type Flat accepted")
	}
}

// TestGeometryContainerQueries: a Geometry container's spatial functions are planar (distances in
// coordinate units, coordinates beyond longitude and latitude valid), a Geography container's are
// on the Earth; plans fold a WHERE of literals in the container's configuration, as the service's
// (the .NET SDK's QueryPlanBaselineTests.Spatial).
func TestGeometryContainerQueries(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(2))
	ctx := context.Background()
	geo, err := spatialContainer(t, s, "geography", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	planar, err := spatialContainer(t, s, "geometry", map[string]any{"type": "Geometry"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc := []byte(`{"id":"a","pk":"p","loc":{"type":"Point","coordinates":[3,4]}}`)
	for _, p := range []planClient{geo, planar} {
		if _, err := p.cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), doc, nil); err != nil {
			t.Fatal(err)
		}
	}
	q := "SELECT VALUE [ST_DISTANCE(c.loc, {'type':'Point','coordinates':[0,0]}), ST_ISVALID({'type':'Point','coordinates':[1000,1000]})] FROM c"
	value := func(p planClient) []any {
		t.Helper()
		page, err := p.cc.NewQueryItemsPager(q, azcosmos.NewPartitionKeyString("p"), nil).NextPage(ctx)
		if err != nil || len(page.Items) != 1 {
			t.Fatalf("%v %v", page.Items, err)
		}
		var v []any
		if err := json.Unmarshal(page.Items[0], &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := value(planar); v[0] != 5.0 || v[1] != true {
		t.Errorf("geometry: %v, want [5 true]", v)
	}
	// 5 degrees of arc near the equator: about 555 km on WGS-84.
	if v := value(geo); math.Abs(v[0].(float64)-555_000) > 2_000 || v[1] != false {
		t.Errorf("geography: %v, want [~555 km, false]", v)
	}

	// NOT ST_WITHIN of a point just south of a polygon's great-circle edge (inside the straight one).
	folded := `SELECT * FROM c WHERE NOT ST_WITHIN({'type': 'Point', 'coordinates': [0, 40]}, {'type':'Polygon','coordinates':[[[-60,20], [70,20], [70,70], [-60,70], [-60,20]]]})`
	empty := map[string]any{"min": "", "max": "", "isMinInclusive": true, "isMaxInclusive": true}
	for _, c := range []struct {
		p    planClient
		name string
		want map[string]any
	}{{geo, "geography", map[string]any{"min": "", "max": "FF", "isMinInclusive": true, "isMaxInclusive": false}}, {planar, "geometry", empty}} {
		plan, err := c.p.plan(t, folded, nil, allFeatures)
		if err != nil {
			t.Fatal(err)
		}
		if rs := plan["queryRanges"].([]any); len(rs) != 1 || !reflect.DeepEqual(rs[0], c.want) {
			t.Errorf("%s: queryRanges %v, want [%v]", c.name, rs, c.want)
		}
	}
}
