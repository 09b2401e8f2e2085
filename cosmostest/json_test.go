package cosmostest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestBodiesKeepHTMLCharacters: the service returns <, > and & as themselves, in point reads,
// write responses, batches and the change feed; encoding/json's default \u003c escaping
// changes the bytes a client reads back (and the sizes the limits and charges measure).
func TestBodiesKeepHTMLCharacters(t *testing.T) {
	s, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	const want = `"s":"<b>&amp; a > b</b>"`
	doc := []byte(`{"id":"h","pk":"p",` + want + `}`)
	check := func(what string, body []byte) {
		t.Helper()
		if !strings.Contains(string(body), want) || strings.Contains(string(body), `\u003c`) {
			t.Errorf("%s: body %s, want it to contain %s verbatim", what, body, want)
		}
	}

	created, err := cc.CreateItem(ctx, pk, doc, &azcosmos.ItemOptions{EnableContentResponseOnWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	check("create", created.Value)
	read, err := cc.ReadItem(ctx, pk, "h", nil)
	if err != nil {
		t.Fatal(err)
	}
	check("read", read.Value)

	// (Query pages are not checked: the SDK itself re-marshals each query result with
	// encoding/json, so they reach the caller escaped whatever the server sends.)

	b := cc.NewTransactionalBatch(pk)
	b.ReadItem("h", nil)
	br, err := cc.ExecuteTransactionalBatch(ctx, b, nil)
	if err != nil || len(br.OperationResults) != 1 {
		t.Fatalf("batch: %v", err)
	}
	check("batch", br.OperationResults[0].ResourceBody)

	ranges, err := cc.ReadFeedRanges(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := cc.ReadChangeFeed(ctx, &azcosmos.ChangeFeedOptions{FeedRange: &ranges[0]})
	if err != nil || len(cf.Items) != 1 {
		t.Fatalf("change feed: %v", err)
	}
	check("change feed", cf.Items[0])

	// Error messages echo ids verbatim too (a container id with "/" is refused; an item id with
	// one is not).
	db, err := newClient(t, s, nil).NewDatabase("db")
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "a<b>/c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "a<b>/c") {
		t.Errorf("error body does not echo the id verbatim: %v", err)
	}
}
