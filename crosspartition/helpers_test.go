package crosspartition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// newContainer starts a cosmostest server with n physical partitions and returns container "c"
// (partition key /pk) of database "db".
func newContainer(t testing.TB, n int, props *azcosmos.ContainerProperties, opts ...cosmostest.Option) (*cosmostest.Server, *azcosmos.ContainerClient) {
	t.Helper()
	s := cosmostest.NewServer(t, append(opts, cosmostest.WithPartitionCount(n))...)
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != http.StatusConflict {
			t.Fatal(err)
		}
	}
	db, _ := client.NewDatabase("db")
	if props == nil {
		props = &azcosmos.ContainerProperties{PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}}
	}
	props.ID = "c"
	if _, err := db.CreateContainer(ctx, *props, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	return s, c
}

// put upserts documents (each needs "id" and "pk").
func put(t testing.TB, c *azcosmos.ContainerClient, docs ...map[string]any) {
	t.Helper()
	for _, d := range docs {
		b, _ := json.Marshal(d)
		pk := azcosmos.NewPartitionKeyString(fmt.Sprint(d["pk"]))
		if _, err := c.UpsertItem(context.Background(), pk, b, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// readAll reads every page of query with page size size, resuming each page from the previous
// page's token through a new pager (as a web service would); between pages it calls between.
func readAll(t testing.TB, x *Container, query string, params []azcosmos.QueryParameter, size int32, between func(page int)) ([]json.RawMessage, error) {
	t.Helper()
	var out []json.RawMessage
	var tok *string
	for page := 0; ; page++ {
		p := x.NewQueryItemsPager(query, &azcosmos.QueryOptions{QueryParameters: params, PageSizeHint: size, ContinuationToken: tok})
		resp, err := p.NextPage(context.Background())
		if err != nil {
			return out, err
		}
		for _, it := range resp.Items {
			out = append(out, json.RawMessage(it))
		}
		if resp.ContinuationToken == nil {
			return out, nil
		}
		if len(resp.Items) == 0 {
			t.Fatalf("page %d of %q is empty but has a continuation", page, query)
		}
		tok = resp.ContinuationToken
		if between != nil {
			between(page)
		}
		if page > 100000 {
			t.Fatal("too many pages")
		}
	}
}

// readOnePager reads every page of query through one pager (for queries that cannot resume from
// a token in a new pager).
func readOnePager(t testing.TB, x *Container, query string, params []azcosmos.QueryParameter, size int32, between func(page int)) ([]json.RawMessage, error) {
	t.Helper()
	var out []json.RawMessage
	p := x.NewQueryItemsPager(query, &azcosmos.QueryOptions{QueryParameters: params, PageSizeHint: size})
	for page := 0; p.More(); page++ {
		resp, err := p.NextPage(context.Background())
		if err != nil {
			return out, err
		}
		for _, it := range resp.Items {
			out = append(out, json.RawMessage(it))
		}
		if between != nil && p.More() {
			between(page)
		}
	}
	return out, nil
}

// mustNew returns a Container over c with the default options.
func mustNewOpts(t testing.TB, c *azcosmos.ContainerClient, o Options) *Container {
	t.Helper()
	x, err := New(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func mustNew(t testing.TB, c *azcosmos.ContainerClient) *Container {
	t.Helper()
	x, err := New(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return x
}
