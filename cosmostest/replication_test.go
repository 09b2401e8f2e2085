package cosmostest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

const (
	west = "West US"
	east = "East US"
	// lag is long on the server clock, which the tests move with Advance: nothing sleeps.
	lag = time.Minute
)

// twoRegions starts a two-region server with a replication lag and returns it with a container
// client preferring each region (the container is created through the first).
func twoRegions(t *testing.T, opts ...cosmostest.Option) (s *cosmostest.Server, w, e *azcosmos.ContainerClient) {
	t.Helper()
	return twoRegionsWith(t, nil, opts...)
}

// twoRegionsWith is twoRegions creating the container with props.
func twoRegionsWith(t *testing.T, props *azcosmos.ContainerProperties, opts ...cosmostest.Option) (s *cosmostest.Server, w, e *azcosmos.ContainerClient) {
	t.Helper()
	s = cosmostest.NewServer(t, append([]cosmostest.Option{cosmostest.WithRegions(west, east), cosmostest.WithReplicationLag(lag)}, opts...)...)
	w = regionContainerWith(t, s, west, true, props)
	return s, w, regionContainer(t, s, east, false)
}

func regionContainer(t *testing.T, s *cosmostest.Server, region string, create bool) *azcosmos.ContainerClient {
	t.Helper()
	return regionContainerWith(t, s, region, create, nil)
}

func regionContainerWith(t *testing.T, s *cosmostest.Server, region string, create bool, props *azcosmos.ContainerProperties) *azcosmos.ContainerClient {
	t.Helper()
	other := east
	if region == east {
		other = west
	}
	c := newClient(t, s, func(o *azcosmos.ClientOptions) { o.PreferredRegions = []string{region, other} })
	if create {
		return newContainer(t, c, "c", props)
	}
	cc, err := c.NewContainer("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	return cc
}

var pkP = azcosmos.NewPartitionKeyString("p")

func put(t *testing.T, cc *azcosmos.ContainerClient, doc string) azcosmos.ItemResponse {
	t.Helper()
	resp, err := cc.UpsertItem(context.Background(), pkP, []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readV reads item id and returns its "v" property (-1 for 404) and the response.
func readV(t *testing.T, cc *azcosmos.ContainerClient, id string, o *azcosmos.ItemOptions) (float64, azcosmos.ItemResponse) {
	t.Helper()
	resp, err := cc.ReadItem(context.Background(), pkP, id, o)
	if code, sub := status(t, err); code == http.StatusNotFound && sub != "1002" {
		return -1, resp
	} else if err != nil {
		t.Fatal(err)
	}
	var doc struct{ V float64 }
	if err := json.Unmarshal(resp.Value, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.V, resp
}

func reads(s *cosmostest.Server, region string) int {
	return s.Requests(cosmostest.RequestFilter{Region: region, Operation: cosmostest.OpReadItem})
}

func TestReplicationLagSession(t *testing.T) {
	s, w, e := twoRegions(t)
	if got, err := s.ReplicationLag(east); err != nil || got != lag {
		t.Fatalf("ReplicationLag = %v", got)
	}
	put(t, w, `{"id":"a","pk":"p","v":1}`)
	if v, _ := readV(t, e, "a", nil); v != -1 {
		t.Fatalf("East US sees the create before the lag: v=%v", v)
	}
	s.Advance(lag)
	if v, _ := readV(t, e, "a", nil); v != 1 {
		t.Fatalf("East US after the lag: v=%v, want 1", v)
	}
	written := put(t, w, `{"id":"a","pk":"p","v":2}`)
	token := *written.SessionToken

	// Without a token a Session read in East US sees the old version: the simulation is real.
	if v, resp := readV(t, e, "a", nil); v != 1 || resp.SessionToken == nil || *resp.SessionToken == token {
		t.Fatalf("East US without a token: v=%v token %v (the writer's %q)", v, resp.SessionToken, token)
	}
	// With the writer's token (another client: handed across), East US answers 404/1002 and the
	// SDK retries in the write region.
	wBefore, eBefore := reads(s, west), reads(s, east)
	v, resp := readV(t, e, "a", &azcosmos.ItemOptions{SessionToken: &token})
	if v != 2 {
		t.Fatalf("with the session token: v=%v, want 2", v)
	}
	if reads(s, east)-eBefore != 1 || reads(s, west)-wBefore != 1 {
		t.Fatalf("reads East %d, West %d; want one each (404/1002, then the write region)", reads(s, east)-eBefore, reads(s, west)-wBefore)
	}
	if *resp.SessionToken != token {
		t.Errorf("token served %q, want the write region's %q", *resp.SessionToken, token)
	}
	// Eventual ignores the token and reads the region's copy.
	if v, _ := readV(t, e, "a", &azcosmos.ItemOptions{SessionToken: &token, ConsistencyLevel: azcosmos.ConsistencyLevelEventual.ToPtr()}); v != 1 {
		t.Fatalf("Eventual read: v=%v, want the stale 1", v)
	}
	// Once the lag has passed, East US serves the token itself.
	s.Advance(lag)
	eBefore = reads(s, east)
	if v, resp := readV(t, e, "a", &azcosmos.ItemOptions{SessionToken: &token}); v != 2 || *resp.SessionToken != token || reads(s, east)-eBefore != 1 {
		t.Fatalf("after the lag: v=%v token %q reads %d", v, *resp.SessionToken, reads(s, east)-eBefore)
	}
}

func TestReplicationLagSessionQuery(t *testing.T) {
	s, w, e := twoRegions(t)
	put(t, w, `{"id":"a","pk":"p","v":1}`)
	s.Advance(lag)
	token := *put(t, w, `{"id":"a","pk":"p","v":2}`).SessionToken
	query := func(o *azcosmos.QueryOptions) float64 {
		t.Helper()
		pager := e.NewQueryItemsPager("SELECT VALUE c.v FROM c WHERE c.id = 'a'", pkP, o)
		var got []float64
		for pager.More() {
			page, err := pager.NextPage(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range page.Items {
				var v float64
				if err := json.Unmarshal(b, &v); err != nil {
					t.Fatal(err)
				}
				got = append(got, v)
			}
		}
		if len(got) != 1 {
			t.Fatalf("query results %v", got)
		}
		return got[0]
	}
	if v := query(nil); v != 1 {
		t.Errorf("query without a token: %v, want the stale 1", v)
	}
	if v := query(&azcosmos.QueryOptions{SessionToken: &token}); v != 2 {
		t.Errorf("query with the writer's token: %v, want 2", v)
	}
	if v := query(&azcosmos.QueryOptions{ConsistencyLevel: azcosmos.ConsistencyLevelEventual.ToPtr()}); v != 1 {
		t.Errorf("Eventual query: %v, want 1", v)
	}
}

func TestConsistencyHeaderStrongerThanAccount(t *testing.T) {
	_, w, _ := twoRegions(t)
	put(t, w, `{"id":"a","pk":"p","v":1}`)
	_, err := w.ReadItem(context.Background(), pkP, "a", &azcosmos.ItemOptions{ConsistencyLevel: azcosmos.ConsistencyLevelStrong.ToPtr()})
	if code, _ := status(t, err); code != http.StatusBadRequest || !strings.Contains(err.Error(), "not stronger than the service consistency level") {
		t.Fatalf("Strong on a Session account: %v", err)
	}
	bad := azcosmos.ConsistencyLevel("Linearizable")
	_, err = w.ReadItem(context.Background(), pkP, "a", &azcosmos.ItemOptions{ConsistencyLevel: &bad})
	if code, _ := status(t, err); code != http.StatusBadRequest {
		t.Fatalf("unknown level: %v", err)
	}
}

func TestStrongNeverStale(t *testing.T) {
	s, w, e := twoRegions(t, cosmostest.WithDefaultConsistency("Strong"))
	put(t, w, `{"id":"a","pk":"p","v":1}`)
	v, strong := readV(t, e, "a", nil)
	if v != 1 {
		t.Fatalf("Strong read in East US right after the write: v=%v", v)
	}
	v, eventual := readV(t, e, "a", &azcosmos.ItemOptions{ConsistencyLevel: azcosmos.ConsistencyLevelEventual.ToPtr()})
	if v != -1 {
		t.Fatalf("Eventual read on the Strong account sees the write before the lag: v=%v", v)
	}
	s.Advance(lag)
	_, eventual = readV(t, e, "a", &azcosmos.ItemOptions{ConsistencyLevel: azcosmos.ConsistencyLevelEventual.ToPtr()})
	if strong.RequestCharge != 2*eventual.RequestCharge || strong.RequestCharge == 0 {
		t.Fatalf("Strong read %v RU, Eventual %v RU; want twice", strong.RequestCharge, eventual.RequestCharge)
	}
}

func TestStrongRefusedWithMultiWrite(t *testing.T) {
	if s, err := cosmostest.Start(cosmostest.WithDefaultConsistency("strong"), cosmostest.WithMultiWrite()); err == nil {
		s.Close()
		t.Fatal("Start accepted Strong with multi-write")
	}
}

func TestBoundedStaleness(t *testing.T) {
	s, w, e := twoRegions(t, cosmostest.WithDefaultConsistency("BoundedStaleness"), cosmostest.WithBoundedStaleness(2, 10*time.Minute))
	if err := s.SetReplicationLag(east, time.Hour); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ReplicationLag(east); err != nil || got != time.Hour {
		t.Fatalf("ReplicationLag after SetReplicationLag = %v", got)
	}
	for v := 1; v <= 4; v++ {
		put(t, w, `{"id":"a","pk":"p","v":`+string(rune('0'+v))+`}`)
	}
	// Four writes pending, at most two may be missing: East US sees the second.
	v, bs := readV(t, e, "a", nil)
	if v != 2 {
		t.Fatalf("Bounded Staleness read with K=2: v=%v, want 2", v)
	}
	if v, _ := readV(t, e, "a", &azcosmos.ItemOptions{ConsistencyLevel: azcosmos.ConsistencyLevelEventual.ToPtr()}); v != 2 {
		t.Fatalf("Eventual read afterwards: v=%v, want 2 (the copy moved forward)", v)
	}
	// Older than T: everything is applied, though the lag is an hour.
	s.Advance(11 * time.Minute)
	v, _ = readV(t, e, "a", nil)
	if v != 4 {
		t.Fatalf("Bounded Staleness read after T: v=%v, want 4", v)
	}
	_, ev := readV(t, e, "a", &azcosmos.ItemOptions{ConsistencyLevel: azcosmos.ConsistencyLevelEventual.ToPtr()})
	if bs.RequestCharge != 2*ev.RequestCharge {
		t.Fatalf("Bounded Staleness %v RU, Eventual %v RU; want twice", bs.RequestCharge, ev.RequestCharge)
	}
}

func TestReplicationLagZeroIsOneStore(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithRegions(west, east))
	w := regionContainer(t, s, west, true)
	e := regionContainer(t, s, east, false)
	put(t, w, `{"id":"a","pk":"p","v":1}`)
	if v, _ := readV(t, e, "a", nil); v != 1 {
		t.Fatalf("without a lag East US: v=%v", v)
	}
	// A lag set at run time replicates what exists and delays what follows.
	if err := s.SetReplicationLag(east, lag); err != nil {
		t.Fatal(err)
	}
	put(t, w, `{"id":"a","pk":"p","v":2}`)
	if v, _ := readV(t, e, "a", nil); v != 1 {
		t.Fatalf("after SetReplicationLag: v=%v, want 1", v)
	}
	if err := s.SetReplicationLag(east, 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := readV(t, e, "a", nil); v != 2 {
		t.Fatalf("lag back to 0: v=%v, want 2", v)
	}
}

// TestReplicationSplit: a split brings every region's copy up to date, tokens of the parent range
// still count for its children, and replication goes on per child.
func TestReplicationSplit(t *testing.T) {
	s, w, e := twoRegions(t)
	parentToken := *put(t, w, `{"id":"a","pk":"p","v":1}`).SessionToken
	if err := s.SplitRange("db", "c", "0"); err != nil {
		t.Fatal(err)
	}
	if v, _ := readV(t, e, "a", &azcosmos.ItemOptions{SessionToken: &parentToken}); v != 1 {
		t.Fatalf("East US after the split with the parent's token: v=%v, want 1", v)
	}
	childToken := *put(t, w, `{"id":"a","pk":"p","v":2}`).SessionToken
	if strings.HasPrefix(childToken, "0:") {
		t.Fatalf("token after the split names the parent: %q", childToken)
	}
	if v, _ := readV(t, e, "a", nil); v != 1 {
		t.Fatalf("East US after a write to the child: v=%v, want the stale 1", v)
	}
	if v, _ := readV(t, e, "a", &azcosmos.ItemOptions{SessionToken: &childToken}); v != 2 {
		t.Fatalf("East US with the child's token: v=%v, want 2", v)
	}
	s.Advance(lag)
	if v, _ := readV(t, e, "a", nil); v != 2 {
		t.Fatalf("East US after the lag: v=%v, want 2", v)
	}
}

// TestReplicationFailover: a failover hands the write region's role over without losing writes.
func TestReplicationFailover(t *testing.T) {
	s, w, e := twoRegions(t)
	put(t, w, `{"id":"a","pk":"p","v":1}`)
	if err := s.FailoverWriteRegion(east); err != nil {
		t.Fatal(err)
	}
	if v, _ := readV(t, e, "a", nil); v != 1 {
		t.Fatalf("East US after the failover: v=%v, want 1", v)
	}
	put(t, e, `{"id":"a","pk":"p","v":2}`)
	if v, _ := readV(t, w, "a", nil); v != 1 {
		t.Fatalf("West US right after a write in the new write region: v=%v, want the stale 1", v)
	}
	s.Advance(lag)
	if v, _ := readV(t, w, "a", nil); v != 2 {
		t.Fatalf("West US after the lag: v=%v, want 2", v)
	}
}

// TestReplicationManyWritesAndBatch: more writes than the log keeps before trimming, and a
// transactional batch, all reach the other region in order after the lag, not before.
func TestReplicationManyWritesAndBatch(t *testing.T) {
	s, w, e := twoRegions(t)
	ctx := context.Background()
	count := func() int {
		t.Helper()
		pager := e.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c", pkP, nil)
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := json.Unmarshal(page.Items[0], &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := range 300 {
		put(t, w, `{"id":"i`+strconv.Itoa(i)+`","pk":"p"}`)
		if i == 149 {
			s.Advance(lag / 2)
		}
	}
	b := w.NewTransactionalBatch(pkP)
	b.CreateItem([]byte(`{"id":"b1","pk":"p"}`), nil)
	b.DeleteItem("i0", nil)
	if resp, err := w.ExecuteTransactionalBatch(ctx, b, nil); err != nil || !resp.Success {
		t.Fatalf("batch: %v %v", resp.Success, err)
	}
	if n := count(); n != 0 {
		t.Fatalf("East US before the lag: %d items", n)
	}
	s.Advance(lag / 2)
	if n := count(); n != 150 {
		t.Fatalf("East US half way: %d items, want the first 150", n)
	}
	s.Advance(lag)
	if n := count(); n != 300 {
		t.Fatalf("East US after the lag: %d items, want 300 (299 + the batch's create)", n)
	}
	if v, _ := readV(t, e, "i0", nil); v != -1 {
		t.Fatal("the batch's delete did not reach East US")
	}
}

// BenchmarkReplicatedUpsertRead: an upsert in the write region and a read of it in the other
// region with replication on (lag 0 after a lag was set: every write is logged and applied).
func BenchmarkReplicatedUpsertRead(b *testing.B) {
	s := cosmostest.NewServer(b, cosmostest.WithRegions(west, east))
	opts := func(region string) *azcosmos.ClientOptions {
		o := s.ClientOptions()
		o.PreferredRegions = []string{region}
		return o
	}
	cred, _ := azcosmos.NewKeyCredential(s.Key())
	wc, _ := azcosmos.NewClientWithKey(s.Endpoint(), cred, opts(west))
	ec, _ := azcosmos.NewClientWithKey(s.Endpoint(), cred, opts(east))
	ctx := context.Background()
	if _, err := wc.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		b.Fatal(err)
	}
	db, _ := wc.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		b.Fatal(err)
	}
	if err := s.SetReplicationLag(east, time.Nanosecond); err != nil {
		b.Fatal(err)
	}
	if err := s.SetReplicationLag(east, 0); err != nil {
		b.Fatal(err)
	}
	w, _ := wc.NewContainer("db", "c")
	e, _ := ec.NewContainer("db", "c")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := strconv.Itoa(i % 100)
		if _, err := w.UpsertItem(ctx, pkP, []byte(`{"id":"`+id+`","pk":"p","payload":"0123456789abcdef"}`), nil); err != nil {
			b.Fatal(err)
		}
		if _, err := e.ReadItem(ctx, pkP, id, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReplicationChangeFeedAndReadMany: the change feed and ReadMany read the region's copy;
// ReadMany with the writer's session token sees the write.
func TestReplicationChangeFeedAndReadMany(t *testing.T) {
	s, w, e := twoRegions(t)
	ctx := context.Background()
	token := *put(t, w, `{"id":"a","pk":"p","v":1}`).SessionToken
	feed := func() int {
		t.Helper()
		ranges, err := e.ReadFeedRanges(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := e.ReadChangeFeed(ctx, &azcosmos.ChangeFeedOptions{FeedRange: &ranges[0]})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Count
	}
	if n := feed(); n != 0 {
		t.Fatalf("East US change feed before the lag: %d changes", n)
	}
	ids := []azcosmos.ItemIdentity{{ID: "a", PartitionKey: pkP}}
	if resp, err := e.ReadManyItems(ctx, ids, nil); err != nil || len(resp.Items) != 0 {
		t.Fatalf("East US ReadMany without a token: %d items, %v", len(resp.Items), err)
	}
	if resp, err := e.ReadManyItems(ctx, ids, &azcosmos.ReadManyItemsOptions{SessionToken: &token}); err != nil || len(resp.Items) != 1 {
		t.Fatalf("East US ReadMany with the writer's token: %d items, %v", len(resp.Items), err)
	}
	s.Advance(lag)
	if n := feed(); n != 1 {
		t.Fatalf("East US change feed after the lag: %d changes", n)
	}
}
