package cosmostest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// The charge model (ru.go) follows the documented charges: a write costs less when the indexing
// policy indexes fewer terms (and least with indexing mode none), a replace twice an insert, a
// larger item more, and a read far less than in proportion to its size.
func TestChargesFollowIndexingPolicy(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithHTTP())
	c := newClient(t, s, nil)
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	policies := map[string]*azcosmos.IndexingPolicy{
		"default": nil,
		"key":     {Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent, IncludedPaths: []azcosmos.IncludedPath{{Path: "/pk/?"}}, ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/*"}}},
		"none":    {Automatic: false, IndexingMode: azcosmos.IndexingModeNone},
	}
	item := func(id string, pad int) []byte {
		return fmt.Appendf(nil, `{"id":%q,"pk":"p","a":1,"b":"x","c":true,"d":[1,2,3],"e":{"f":null},"pad":%q}`, id, strings.Repeat("x", pad))
	}
	charge := map[string]float64{}
	pk := azcosmos.NewPartitionKeyString("p")
	for name, ip := range policies {
		props := azcosmos.ContainerProperties{ID: name, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, IndexingPolicy: ip}
		if _, err := db.CreateContainer(ctx, props, nil); err != nil {
			t.Fatal(err)
		}
		cc, _ := db.NewContainer(name)
		created, err := cc.CreateItem(ctx, pk, item("i", 100), nil)
		if err != nil {
			t.Fatal(err)
		}
		charge[name] = float64(created.RequestCharge)
		replaced, err := cc.ReplaceItem(ctx, pk, "i", item("i", 100), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(replaced.RequestCharge); !near(got, 2*charge[name]) {
			t.Errorf("%s: replace %v RU, want twice the insert's %v", name, got, charge[name])
		}
	}
	// Default: 10 indexed terms (id, pk, a, b, c, three array elements, e/f, pad): 4.95 + 8 × 0.2.
	// Key only: 1 term: 4.95 − 0.2. None: 4.95 − 2 × 0.2.
	if !near(charge["default"], 6.55) || !near(charge["key"], 4.75) || !near(charge["none"], 4.55) {
		t.Errorf("insert RU: default %v, key only %v, none %v; want 6.55, 4.75, 4.55", charge["default"], charge["key"], charge["none"])
	}
	cc, _ := db.NewContainer("default")
	if _, err := cc.CreateItem(ctx, pk, item("big", 127*1024), nil); err != nil {
		t.Fatal(err)
	}
	read, err := cc.ReadItem(ctx, pk, "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	// About 128 KB: the documented 9.95 RU (not 128).
	if got := float64(read.RequestCharge); got < 9.5 || got > 10.2 {
		t.Errorf("128 KB read = %v RU, want about 9.95", got)
	}
}

func near(a, b float64) bool { return a-b < 0.005 && b-a < 0.005 }
