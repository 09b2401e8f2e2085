package cosmostest_test

import (
	"context"
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
