package cosmostest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

var pkrangeReads = cosmostest.RequestFilter{Operation: cosmostest.OpReadPartitionKeyRanges}

// TestSplitRangeSDKRecovers: after a split the SDK's cached routing map is stale; ReadManyItems
// gets 410/1002 for the old range id, refreshes pkranges and returns every item, and
// ReadFeedRanges then lists the children.
func TestSplitRangeSDKRecovers(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(2))
	c := newClient(t, s, nil)
	cc := newContainer(t, c, "c1", nil)
	ctx := context.Background()
	var ids []azcosmos.ItemIdentity
	for i := range 30 {
		pk := fmt.Sprint("p", i)
		seed(t, cc, pk, "a")
		ids = append(ids, azcosmos.ItemIdentity{ID: "a", PartitionKey: azcosmos.NewPartitionKeyString(pk)})
	}
	before, err := cc.ReadFeedRanges(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 2 {
		t.Fatalf("feed ranges before: %v", before)
	}
	if r, err := cc.ReadManyItems(ctx, ids, nil); err != nil || len(r.Items) != 30 {
		t.Fatalf("read many before the split: %d items, %v", len(r.Items), err)
	}

	if err := s.SplitRange("db", "c1", "0"); err != nil {
		t.Fatal(err)
	}
	stale, err := cc.ReadFeedRanges(ctx, nil)
	if err != nil || len(stale) != 2 {
		t.Fatalf("the SDK's cached ranges right after the split: %v, %v", stale, err)
	}
	s.ResetRequests()
	r, err := cc.ReadManyItems(ctx, ids, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Items) != 30 {
		t.Errorf("read many after the split: %d items", len(r.Items))
	}
	if n := s.Requests(pkrangeReads); n == 0 {
		t.Error("the SDK did not refresh pkranges: no 410 seen")
	}
	after, err := cc.ReadFeedRanges(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 3 {
		t.Fatalf("feed ranges after: %v", after)
	}
	sort.Slice(after, func(i, j int) bool { return after[i].MinInclusive < after[j].MinInclusive })
	if after[0].MinInclusive != before[0].MinInclusive || after[1].MaxExclusive != before[0].MaxExclusive ||
		after[0].MaxExclusive != after[1].MinInclusive || after[2] != before[1] {
		t.Errorf("ranges %v do not split %v in two", after, before)
	}
	// Point operations route by partition key: every item is where its key says.
	for _, id := range ids {
		if _, err := cc.ReadItem(ctx, id.PartitionKey, id.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Items written after the split land in the children and are read back through them.
	seed(t, cc, "new", "b")
	if r, err := cc.ReadManyItems(ctx, []azcosmos.ItemIdentity{{ID: "b", PartitionKey: azcosmos.NewPartitionKeyString("new")}}, nil); err != nil || len(r.Items) != 1 {
		t.Fatalf("read many of a new item: %v", err)
	}
	// A second split of a child works the same way.
	if err := s.SplitRange("db", "c1", "2"); err != nil {
		t.Fatal(err)
	}
	if r, err := cc.ReadManyItems(ctx, ids, nil); err != nil || len(r.Items) != 30 {
		t.Fatalf("read many after the second split: %v", err)
	}
	if got, _ := cc.ReadFeedRanges(ctx, nil); len(got) != 4 {
		t.Errorf("feed ranges after the second split: %v", got)
	}
}

// TestSplitRangeQueryPinnedToGoneRange: a query the gateway routes by pk keeps working, only
// the old range id is gone.
func TestSplitRangeQueries(t *testing.T) {
	s, cc := setup(t)
	ctx := context.Background()
	for i := range 10 {
		seed(t, cc, fmt.Sprint("p", i), "a")
	}
	if err := s.SplitRange("db", "c1", "0"); err != nil {
		t.Fatal(err)
	}
	count := func(pk azcosmos.PartitionKey) int {
		n := 0
		p := cc.NewQueryItemsPager("SELECT * FROM c", pk, nil)
		for p.More() {
			page, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			n += len(page.Items)
		}
		return n
	}
	if n := count(azcosmos.NewPartitionKey()); n != 10 {
		t.Errorf("cross-partition query after the split: %d", n)
	}
	if n := count(azcosmos.NewPartitionKeyString("p3")); n != 1 {
		t.Errorf("single-partition query after the split: %d", n)
	}
}

func TestSplitRangeErrors(t *testing.T) {
	s, _ := setup(t)
	for _, tt := range []struct{ db, c, r string }{
		{"nodb", "c1", "0"}, {"db", "nocontainer", "0"}, {"db", "c1", "7"},
	} {
		if err := s.SplitRange(tt.db, tt.c, tt.r); err == nil {
			t.Errorf("SplitRange(%q, %q, %q) succeeded", tt.db, tt.c, tt.r)
		}
	}
	if err := s.SplitRange("db", "c1", "0"); err != nil {
		t.Fatal(err)
	}
	if err := s.SplitRange("db", "c1", "0"); err == nil {
		t.Error("split the same range twice")
	}
}

// TestSplitRangeChangeFeed: a change feed continuation taken before a split continues across
// it: the SDK gets 410/1002 for the parent range, refreshes pkranges, reads both children from
// the parent's LSN, and sees exactly the changes made after the continuation.
func TestSplitRangeChangeFeed(t *testing.T) {
	s, cc := setup(t)
	ctx := context.Background()
	for i := range 10 {
		seed(t, cc, fmt.Sprint("p", i), "old")
	}
	// drain reads the change feed until a call returns nothing new, returning the item ids (with
	// their pk) and the last continuation.
	drain := func(opts azcosmos.ChangeFeedOptions) ([]string, string) {
		var got []string
		for range 20 {
			r, err := cc.ReadChangeFeed(ctx, &opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, raw := range r.Items {
				var doc struct{ ID, PK string }
				if err := json.Unmarshal(raw, &doc); err != nil {
					t.Fatal(err)
				}
				got = append(got, doc.PK+"/"+doc.ID)
			}
			token := r.ContinuationToken
			opts = azcosmos.ChangeFeedOptions{Continuation: &token}
			if r.Count == 0 {
				return got, token
			}
		}
		t.Fatal("the change feed did not run dry")
		return nil, ""
	}
	first, token := drain(azcosmos.ChangeFeedOptions{FeedRange: &azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}})
	if len(first) != 10 {
		t.Fatalf("first read: %v", first)
	}
	if err := s.SplitRange("db", "c1", "0"); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		seed(t, cc, fmt.Sprint("p", i), "new")
	}
	s.ResetRequests()
	after, _ := drain(azcosmos.ChangeFeedOptions{Continuation: &token})
	sort.Strings(after)
	want := []string{"p0/new", "p1/new", "p2/new", "p3/new", "p4/new", "p5/new"}
	if fmt.Sprint(after) != fmt.Sprint(want) {
		t.Errorf("changes after the split: %v, want %v", after, want)
	}
	if s.Requests(pkrangeReads) == 0 {
		t.Error("the SDK did not refresh pkranges")
	}
}
