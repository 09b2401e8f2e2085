package main

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"slices"
	"testing"

	"go.uber.org/goleak"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// haversine is the great-circle distance in meters between two [longitude, latitude] positions
// on a sphere of the Earth's mean radius (IUGG, 6,371,008.8 m), written here independently of the
// query engine (which uses Vincenty's formula on the WGS-84 ellipsoid).
func haversine(a, b [2]float64) float64 {
	const r = 6371008.8
	rad := func(d float64) float64 { return d * math.Pi / 180 }
	dLat, dLon := rad(b[1]-a[1]), rad(b[0]-a[0])
	h := math.Pow(math.Sin(dLat/2), 2) + math.Cos(rad(a[1]))*math.Cos(rad(b[1]))*math.Pow(math.Sin(dLon/2), 2)
	return 2 * r * math.Asin(math.Sqrt(h))
}

// inside is the even-odd ray test of p against a ring in degrees: the zone is a few kilometres
// across, where a straight edge and a great-circle edge differ by centimetres, and no store lies
// near an edge.
func inside(p [2]float64, ring [][2]float64) bool {
	in := false
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		a, b := ring[i], ring[j]
		if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < (b[0]-a[0])*(p[1]-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}

// TestStoreLocatorWithoutEnvironment checks the example's answers against distances and
// containment computed here. Tolerance: an ellipsoidal distance differs from the spherical one by
// at most about 0.5%; the nearest stores are hundreds of meters apart, so the order is exact.
func TestStoreLocatorWithoutEnvironment(t *testing.T) {
	for _, v := range []string{cosmoskit.EnvEndpoint, cosmoskit.EnvKey, cosmoskit.EnvConnectionString, cosmoskit.EnvDatabase, cosmoskit.EnvPreferredRegions, cosmoskit.EnvExcludedRegions, cosmoskit.EnvApplicationName} {
		t.Setenv(v, "")
	}
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	var out bytes.Buffer
	res, err := run(context.Background(), &out, cfg)
	if err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	t.Log("\n" + out.String())

	type near struct {
		id string
		m  float64
	}
	var want []near
	var wantIn []string
	for _, s := range Stores {
		if d := haversine(Customer.Coordinates, s.Location.Coordinates); d < Radius {
			want = append(want, near{s.ID, d})
		}
		if inside(s.Location.Coordinates, Downtown.Area.Coordinates[0]) {
			wantIn = append(wantIn, s.ID)
		}
	}
	slices.SortFunc(want, func(a, b near) int { return int(math.Copysign(1, a.m-b.m)) })
	slices.Sort(wantIn)
	if len(want) < 3 || len(want) == len(Stores) || len(wantIn) == 0 || len(wantIn) == len(Stores) {
		t.Fatalf("the data do not exercise the queries: %v within the radius, %v inside", want, wantIn)
	}
	if len(res.Nearby) != len(want) {
		t.Fatalf("nearby %+v, want %+v", res.Nearby, want)
	}
	for i, w := range want {
		got := res.Nearby[i]
		if got.ID != w.id || math.Abs(got.Meters-w.m) > 0.005*w.m {
			t.Errorf("nearby #%d: %s at %.1f m, want %s at %.1f m (±0.5%%)", i+1, got.ID, got.Meters, w.id, w.m)
		}
	}
	if !slices.Equal(res.InZone, wantIn) {
		t.Errorf("in zone %v, want %v", res.InZone, wantIn)
	}
	if want := inside(Customer.Coordinates, Downtown.Area.Coordinates[0]); res.CustomerIn != want || !want {
		t.Errorf("customer inside the zone: %v, want %v (and the example's customer is inside)", res.CustomerIn, want)
	}
}
