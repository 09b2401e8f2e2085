package cosmostest_test

import (
	"context"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// With index metrics asked for, a query's top-level WHERE paths are reported as utilized when the
// indexing policy indexes them and as potential when it excludes them; the query metrics carry the
// documents retrieved and returned.
func TestIndexAdvice(t *testing.T) {
	ctx := context.Background()
	srv := cosmostest.NewServer(t)
	client, err := azcosmos.NewClientFromConnectionString(srv.ConnectionString(), srv.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	ip := &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
		IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/blob/*"}, {Path: `/"_etag"/?`}}}
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", IndexingPolicy: ip,
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := client.NewContainer("db", "c")
	pk := azcosmos.NewPartitionKeyString("a")
	for _, item := range []string{`{"id":"1","pk":"a","n":1,"blob":{"x":1}}`, `{"id":"2","pk":"a","n":2,"blob":{"x":2}}`, `{"id":"3","pk":"a","n":3,"blob":{"x":3}}`} {
		if _, err := c.CreateItem(ctx, pk, []byte(item), nil); err != nil {
			t.Fatal(err)
		}
	}
	pager := c.NewQueryItemsPager("SELECT * FROM c WHERE c.n >= 2 AND c.blob.x IN (2, 3) AND c.n != 9", pk, &azcosmos.QueryOptions{PopulateIndexMetrics: true})
	page, err := pager.NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if page.IndexMetrics == nil {
		t.Fatal("no index metrics")
	}
	u, err := wire.ParseIndexUtilization(*page.IndexMetrics)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.UtilizedSingleIndexes) != 1 || u.UtilizedSingleIndexes[0].IndexSpec != "/n/?" ||
		len(u.PotentialSingleIndexes) != 1 || u.PotentialSingleIndexes[0].IndexSpec != "/blob/x/?" {
		t.Errorf("advice %+v", u)
	}
	qm, ok := wire.ParseQueryMetrics(*page.QueryMetrics)
	if !ok || qm.RetrievedDocumentCount != 3 || qm.OutputDocumentCount != 2 {
		t.Errorf("metrics %+v", qm)
	}
}

// A spatial filter (ST_DISTANCE compared, ST_WITHIN, ST_INTERSECTS) on a path one of the
// container's spatialIndexes covers is reported as a utilized index, on another path as a potential
// one; with indexing mode none both are potential.
func TestIndexAdviceSpatial(t *testing.T) {
	ctx := context.Background()
	srv := cosmostest.NewServer(t)
	client, err := azcosmos.NewClientFromConnectionString(srv.ConnectionString(), srv.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	spatial := []azcosmos.SpatialIndex{{Path: "/location/*", SpatialTypes: []azcosmos.SpatialType{azcosmos.SpatialTypePoint}}}
	for _, tc := range []struct {
		name                string
		ip                  *azcosmos.IndexingPolicy
		utilized, potential []string
	}{
		{"spatial index", &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, SpatialIndexes: spatial},
			[]string{"/n/?", "/location/?"}, []string{"/area/?"}},
		{"no spatial index", nil, []string{"/n/?"}, []string{"/location/?", "/area/?"}},
		{"indexing none", &azcosmos.IndexingPolicy{IndexingMode: azcosmos.IndexingModeNone, SpatialIndexes: spatial},
			nil, []string{"/n/?", "/location/?", "/area/?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: tc.name, IndexingPolicy: tc.ip,
				PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
				t.Fatal(err)
			}
			c, _ := client.NewContainer("db", tc.name)
			pk := azcosmos.NewPartitionKeyString("a")
			item := `{"id":"1","pk":"a","n":1,"location":{"type":"Point","coordinates":[2.35,48.85]},"area":{"type":"Point","coordinates":[2.35,48.85]}}`
			if _, err := c.CreateItem(ctx, pk, []byte(item), nil); err != nil {
				t.Fatal(err)
			}
			const q = `SELECT c.id FROM c WHERE c.n = 1 AND ST_DISTANCE(c.location, {"type": "Point", "coordinates": [2.29, 48.86]}) < 10000
				AND ST_WITHIN(c.area, {"type": "Polygon", "coordinates": [[[2, 48], [3, 48], [3, 49], [2, 49], [2, 48]]]})`
			page, err := c.NewQueryItemsPager(q, pk, &azcosmos.QueryOptions{PopulateIndexMetrics: true}).NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 1 || page.IndexMetrics == nil {
				t.Fatalf("%d items, index metrics %v", len(page.Items), page.IndexMetrics)
			}
			u, err := wire.ParseIndexUtilization(*page.IndexMetrics)
			if err != nil {
				t.Fatal(err)
			}
			var utilized, potential []string
			for _, a := range u.UtilizedSingleIndexes {
				utilized = append(utilized, a.IndexSpec)
			}
			for _, a := range u.PotentialSingleIndexes {
				potential = append(potential, a.IndexSpec)
			}
			if !slices.Equal(utilized, tc.utilized) || !slices.Equal(potential, tc.potential) {
				t.Errorf("utilized %v, potential %v; want %v, %v", utilized, potential, tc.utilized, tc.potential)
			}
		})
	}
}
