package cosmostest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

func newClient(t *testing.T, s *cosmostest.Server, edit func(*azcosmos.ClientOptions)) *azcosmos.Client {
	t.Helper()
	opts := s.ClientOptions()
	if edit != nil {
		edit(opts)
	}
	c, err := azcosmos.NewClientWithKey(s.Endpoint(), mustCred(t, s.Key()), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustCred(t *testing.T, key string) azcosmos.KeyCredential {
	t.Helper()
	cred, err := azcosmos.NewKeyCredential(key)
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

// newContainer creates database "db" and a container with the given pk paths.
func newContainer(t *testing.T, c *azcosmos.Client, id string, props *azcosmos.ContainerProperties) *azcosmos.ContainerClient {
	t.Helper()
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != http.StatusConflict {
			t.Fatal(err)
		}
	}
	db, err := c.NewDatabase("db")
	if err != nil {
		t.Fatal(err)
	}
	if props == nil {
		props = &azcosmos.ContainerProperties{PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
	}
	props.ID = id
	if _, err := db.CreateContainer(ctx, *props, nil); err != nil {
		t.Fatal(err)
	}
	cc, err := db.NewContainer(id)
	if err != nil {
		t.Fatal(err)
	}
	return cc
}

func setup(t *testing.T, opts ...cosmostest.Option) (*cosmostest.Server, *azcosmos.ContainerClient) {
	t.Helper()
	s := cosmostest.NewServer(t, opts...)
	c := newClient(t, s, nil)
	return s, newContainer(t, c, "c1", nil)
}

// status returns the HTTP status and sub-status of err (0, 0 for nil).
func status(t *testing.T, err error) (int, string) {
	t.Helper()
	if err == nil {
		return 0, ""
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("not a ResponseError: %v", err)
	}
	return re.StatusCode, re.RawResponse.Header.Get("x-ms-substatus")
}

// tableContainer is the container properties of the query table tests: partitioned on /pk, with
// the composite indexes their multi-key ORDER BY queries need (the service refuses those without
// one).
func tableContainer() *azcosmos.ContainerProperties {
	asc, desc := azcosmos.CompositeIndexAscending, azcosmos.CompositeIndexDescending
	return &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		IndexingPolicy: &azcosmos.IndexingPolicy{
			Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
			CompositeIndexes: [][]azcosmos.CompositeIndex{
				{{Path: "/created", Order: asc}, {Path: "/id", Order: asc}},
				{{Path: "/city", Order: asc}, {Path: "/name", Order: desc}},
				{{Path: "/active", Order: asc}, {Path: "/id", Order: asc}},
				{{Path: "/n", Order: desc}, {Path: "/id", Order: asc}},
			},
		},
	}
}
