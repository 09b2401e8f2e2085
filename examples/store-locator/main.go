// Command store-locator shows geospatial queries with cosmoskit: stores as GeoJSON points and a
// delivery zone as a GeoJSON polygon in one container with spatial indexes on both paths, the
// stores within a radius of a customer nearest first (ST_DISTANCE, in meters on the WGS-84
// ellipsoid), the stores inside the delivery zone (ST_WITHIN), and whether the customer's address
// is served (ST_WITHIN of a parameter).
//
// With COSMOS_ENDPOINT (or COSMOS_CONNECTION_STRING) unset it starts the in-process cosmostest
// server, so it runs anywhere Go does, with no setup:
//
//	go run ./examples/store-locator
//
// With COSMOS_ENDPOINT set it uses that account, authenticating with COSMOS_KEY,
// COSMOS_CONNECTION_STRING or the default Azure credential. COSMOS_DATABASE names the database
// (default "storelocator").
//
// The service sorts only by document paths: ORDER BY ST_DISTANCE(...) is refused with 400
// ("ORDER BY item expression could not be mapped to a document path"), by cosmostest too. The
// query filters by distance with the spatial index and returns each store's distance; the
// example sorts those rows, which the radius keeps few.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := run(ctx, os.Stdout, cosmoskit.ConfigFromEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "store-locator:", err)
		os.Exit(1)
	}
}

// Point is a GeoJSON point: Coordinates are [longitude, latitude] in degrees (WGS-84).
type Point struct {
	Type        string     `json:"type"`
	Coordinates [2]float64 `json:"coordinates"`
}

// At returns the point at longitude lon and latitude lat.
func At(lon, lat float64) Point { return Point{Type: "Point", Coordinates: [2]float64{lon, lat}} }

// Polygon is a GeoJSON polygon: closed rings of [longitude, latitude], the outer ring
// counterclockwise (a clockwise ring is the rest of the globe).
type Polygon struct {
	Type        string         `json:"type"`
	Coordinates [][][2]float64 `json:"coordinates"`
}

// Store is a shop; City is the partition key.
type Store struct {
	ID       string `json:"id"`
	City     string `json:"city"`
	Name     string `json:"name"`
	Location Point  `json:"location"`
}

// Zone is a delivery area of a city.
type Zone struct {
	ID   string  `json:"id"`
	City string  `json:"city"`
	Area Polygon `json:"area"`
}

const city = "seattle"

// Stores are the example's shops; Customer is where the order is delivered; Radius bounds the
// search in meters.
var (
	Stores = []Store{
		{ID: "pike-place", City: city, Name: "Pike Place", Location: At(-122.3422, 47.6097)},
		{ID: "capitol-hill", City: city, Name: "Capitol Hill", Location: At(-122.3207, 47.6253)},
		{ID: "fremont", City: city, Name: "Fremont", Location: At(-122.3493, 47.6510)},
		{ID: "ballard", City: city, Name: "Ballard", Location: At(-122.3844, 47.6687)},
		{ID: "u-district", City: city, Name: "U District", Location: At(-122.3132, 47.6615)},
		{ID: "west-seattle", City: city, Name: "West Seattle", Location: At(-122.3868, 47.5612)},
	}
	Downtown = Zone{ID: "downtown", City: city, Area: Polygon{Type: "Polygon", Coordinates: [][][2]float64{{
		{-122.36, 47.59}, {-122.30, 47.59}, {-122.30, 47.64}, {-122.36, 47.64}, {-122.36, 47.59}}}}}
	Customer = At(-122.3321, 47.6062)
	Radius   = 6400.0
)

// Nearby is a store found within the radius, with the service's distance in meters.
type Nearby struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Meters float64 `json:"meters"`
}

// Result is what run found, for the example's test.
type Result struct {
	Nearby     []Nearby // within Radius of Customer, nearest first
	InZone     []string // ids of the stores inside Downtown, sorted
	CustomerIn bool     // Customer lies inside Downtown
}

// run provisions, loads and queries, writing what it did to out.
func run(ctx context.Context, out io.Writer, cfg cosmoskit.Config) (*Result, error) {
	say := func(format string, args ...any) { _, _ = fmt.Fprintf(out, format, args...) }
	if cfg.Endpoint == "" && cfg.ConnectionString == "" {
		srv, err := cosmostest.Start()
		if err != nil {
			return nil, fmt.Errorf("start cosmostest: %w", err)
		}
		defer srv.Close()
		cfg.Endpoint, cfg.Key = srv.Endpoint(), srv.Key()
		say("COSMOS_ENDPOINT is not set: started an in-process cosmostest server\n")
	}
	if cfg.Database == "" {
		cfg.Database = "storelocator"
	}
	client, err := cosmoskit.New(cfg)
	if err != nil {
		return nil, err
	}
	defer client.Close()

	all := []azcosmos.SpatialType{azcosmos.SpatialTypePoint, azcosmos.SpatialTypePolygon}
	if _, err := client.EnsureContainer(ctx, cfg.Database, cosmoskit.ContainerSpec{
		ID:                "places",
		PartitionKeyPaths: []string{"/city"},
		IndexingPolicy: &azcosmos.IndexingPolicy{
			Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
			ExcludedPaths: []azcosmos.ExcludedPath{{Path: `/"_etag"/?`}},
			// Spatial indexes make ST_DISTANCE and ST_WITHIN filters cheap on the service.
			SpatialIndexes: []azcosmos.SpatialIndex{{Path: "/location/*", SpatialTypes: all[:1]}, {Path: "/area/*", SpatialTypes: all[1:]}},
		},
	}); err != nil {
		return nil, err
	}
	say("container %q is ready: spatial indexes on /location (Point) and /area (Polygon)\n", "places")

	stores, err := repository.NewFromClient(client, cfg.Database, "places", repository.Options[Store]{
		Type: "store",
		Key:  func(s Store) (string, azcosmos.PartitionKey) { return s.ID, azcosmos.NewPartitionKeyString(s.City) },
	})
	if err != nil {
		return nil, err
	}
	zones, err := repository.NewFromClient(client, cfg.Database, "places", repository.Options[Zone]{
		Type: "zone",
		Key:  func(z Zone) (string, azcosmos.PartitionKey) { return z.ID, azcosmos.NewPartitionKeyString(z.City) },
	})
	if err != nil {
		return nil, err
	}
	for _, s := range Stores {
		if _, err := stores.Upsert(ctx, s); err != nil {
			return nil, err
		}
	}
	if _, err := zones.Upsert(ctx, Downtown); err != nil {
		return nil, err
	}
	say("stored %d stores and the %q delivery zone in partition %q\n", len(Stores), Downtown.ID, city)

	res := &Result{}
	container, pk := stores.Container(), azcosmos.NewPartitionKeyString(city)
	nearby := azcosmos.QueryParameter{Name: "@here", Value: Customer}
	if err := query(ctx, container, pk, `SELECT c.id, c.name, ST_DISTANCE(c.location, @here) AS meters FROM c
		WHERE c.type = @type AND ST_DISTANCE(c.location, @here) < @radius`,
		[]azcosmos.QueryParameter{nearby, {Name: "@type", Value: "store"}, {Name: "@radius", Value: Radius}}, &res.Nearby); err != nil {
		return nil, err
	}
	slices.SortFunc(res.Nearby, func(a, b Nearby) int { return cmp.Compare(a.Meters, b.Meters) })
	say("\nstores within %.1f km of the customer, nearest first:\n", Radius/1000)
	for _, n := range res.Nearby {
		say("  %6.0f m  %s\n", n.Meters, n.Name)
	}

	// A query reads one document at a time (no joins across documents): read the zone, then
	// pass its polygon as a parameter.
	zone, err := zones.Get(ctx, pk, Downtown.ID)
	if err != nil {
		return nil, err
	}
	if err := query(ctx, container, pk, `SELECT VALUE c.id FROM c WHERE c.type = @type AND ST_WITHIN(c.location, @zone)`,
		[]azcosmos.QueryParameter{{Name: "@type", Value: "store"}, {Name: "@zone", Value: zone.Area}}, &res.InZone); err != nil {
		return nil, err
	}
	slices.Sort(res.InZone)
	say("\nstores inside the %q delivery zone: %v\n", Downtown.ID, res.InZone)

	var served []bool
	if err := query(ctx, container, pk, `SELECT VALUE ST_WITHIN(@here, c.area) FROM c WHERE c.type = @zone AND c.id = @id`,
		[]azcosmos.QueryParameter{nearby, {Name: "@zone", Value: "zone"}, {Name: "@id", Value: Downtown.ID}}, &served); err != nil {
		return nil, err
	}
	res.CustomerIn = len(served) == 1 && served[0]
	say("the customer's address is inside the zone: %v\n", res.CustomerIn)
	return res, nil
}

// query runs text in partition pk and decodes every row into *into.
func query[T any](ctx context.Context, c *azcosmos.ContainerClient, pk azcosmos.PartitionKey, text string, params []azcosmos.QueryParameter, into *[]T) error {
	pager := c.NewQueryItemsPager(text, pk, &azcosmos.QueryOptions{QueryParameters: params})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, raw := range page.Items {
			var v T
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			*into = append(*into, v)
		}
	}
	return nil
}
