package cosmostest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// change is one change feed entry as the tests look at it.
type change struct {
	ID  string  `json:"id"`
	PK  string  `json:"pk"`
	N   float64 `json:"n"`
	LSN int64   `json:"_lsn"`
}

func changes(t *testing.T, resp azcosmos.ChangeFeedResponse) []change {
	t.Helper()
	out := make([]change, len(resp.Items))
	for i, raw := range resp.Items {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			t.Fatal(err)
		}
		if out[i].LSN <= 0 {
			t.Errorf("change without _lsn: %s", raw)
		}
	}
	return out
}

func ids(cs []change) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.ID
	}
	return strings.Join(s, ",")
}

func fullRange() *azcosmos.FeedRange {
	return &azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}
}

func readFeed(t *testing.T, cc *azcosmos.ContainerClient, opts azcosmos.ChangeFeedOptions) azcosmos.ChangeFeedResponse {
	t.Helper()
	resp, err := cc.ReadChangeFeed(context.Background(), &opts)
	if err != nil {
		t.Fatalf("ReadChangeFeed: %v", err)
	}
	return resp
}

// drain reads pages from the composite continuation token until a call returns nothing new,
// returning every change and the token to continue from.
func drain(t *testing.T, cc *azcosmos.ContainerClient, opts azcosmos.ChangeFeedOptions) ([]change, string) {
	t.Helper()
	var all []change
	for range 100 {
		resp := readFeed(t, cc, opts)
		if resp.ContinuationToken == "" {
			t.Fatal("no continuation token")
		}
		opts.Continuation = &resp.ContinuationToken
		if resp.Count == 0 {
			return all, resp.ContinuationToken
		}
		all = append(all, changes(t, resp)...)
	}
	t.Fatal("the change feed did not run dry")
	return nil, ""
}

func upsert(t *testing.T, cc *azcosmos.ContainerClient, id, pk string, n int) {
	t.Helper()
	body := fmt.Sprintf(`{"id":%q,"pk":%q,"n":%d}`, id, pk, n)
	if _, err := cc.UpsertItem(context.Background(), azcosmos.NewPartitionKeyString(pk), []byte(body), nil); err != nil {
		t.Fatal(err)
	}
}

// TestChangeFeedLatestVersion: from the beginning, in _lsn order, each item once in its latest
// version, deletes not shown, 304 when nothing is new, resumable with the composite token.
func TestChangeFeedLatestVersion(t *testing.T) {
	_, cc := setup(t)
	ctx := context.Background()

	resp := readFeed(t, cc, azcosmos.ChangeFeedOptions{FeedRange: fullRange()})
	if resp.RawResponse.StatusCode != http.StatusNotModified || resp.Count != 0 || resp.RequestCharge <= 0 {
		t.Fatalf("empty container: status %d count %d charge %v (want 304, 0, > 0)", resp.RawResponse.StatusCode, resp.Count, resp.RequestCharge)
	}

	upsert(t, cc, "a", "p", 1)
	upsert(t, cc, "b", "p", 1)
	upsert(t, cc, "c", "p", 1)
	upsert(t, cc, "b", "p", 2)
	if _, err := cc.DeleteItem(ctx, azcosmos.NewPartitionKeyString("p"), "c", nil); err != nil {
		t.Fatal(err)
	}

	resp = readFeed(t, cc, azcosmos.ChangeFeedOptions{FeedRange: fullRange()})
	got := changes(t, resp)
	if resp.RawResponse.StatusCode != http.StatusOK || ids(got) != "a,b" || got[1].N != 2 || got[0].LSN >= got[1].LSN {
		t.Fatalf("from the beginning: status %d %+v (want a, then b at n=2)", resp.RawResponse.StatusCode, got)
	}
	if resp.ETag == "" || resp.ResourceID == "" || !strings.Contains(resp.ContinuationToken, resp.ResourceID) {
		t.Errorf("etag %q rid %q token %q", resp.ETag, resp.ResourceID, resp.ContinuationToken)
	}
	token := resp.ContinuationToken

	resp = readFeed(t, cc, azcosmos.ChangeFeedOptions{Continuation: &token})
	if resp.RawResponse.StatusCode != http.StatusNotModified || resp.Count != 0 {
		t.Fatalf("nothing new: status %d count %d (want 304)", resp.RawResponse.StatusCode, resp.Count)
	}
	token = resp.ContinuationToken

	// An item updated three times appears once, in its last version.
	for n := 1; n <= 3; n++ {
		upsert(t, cc, "d", "p", n)
	}
	resp = readFeed(t, cc, azcosmos.ChangeFeedOptions{Continuation: &token})
	if got := changes(t, resp); ids(got) != "d" || got[0].N != 3 {
		t.Fatalf("after three updates: %+v (want d once with n=3)", got)
	}
}

// TestChangeFeedFromNow uses If-None-Match: * (a composite token whose range continuation is *;
// the SDK has no option for it).
func TestChangeFeedFromNow(t *testing.T) {
	_, cc := setup(t)
	upsert(t, cc, "old", "p", 1)
	props, err := cc.Read(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	token := fmt.Sprintf(`{"version":1,"resourceId":%q,"continuation":[{"minInclusive":"","maxExclusive":"FF","continuationToken":"*"}]}`, props.ContainerProperties.ResourceID)
	resp := readFeed(t, cc, azcosmos.ChangeFeedOptions{Continuation: &token})
	if resp.RawResponse.StatusCode != http.StatusNotModified || resp.ETag == "*" || resp.ETag == "" {
		t.Fatalf("from now: status %d etag %q (want 304 with the current etag)", resp.RawResponse.StatusCode, resp.ETag)
	}
	upsert(t, cc, "new", "p", 1)
	resp = readFeed(t, cc, azcosmos.ChangeFeedOptions{Continuation: &resp.ContinuationToken})
	if got := changes(t, resp); ids(got) != "new" {
		t.Fatalf("after from now: %+v (want new)", got)
	}
}

func TestChangeFeedFromTime(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)
	s, cc := setup(t, cosmostest.WithClock(func() time.Time { return t0 }))
	upsert(t, cc, "early", "p", 1)
	s.Advance(time.Hour)
	upsert(t, cc, "late", "p", 1)
	upsert(t, cc, "early2", "p", 1)

	start := t0.Add(30 * time.Minute)
	resp := readFeed(t, cc, azcosmos.ChangeFeedOptions{FeedRange: fullRange(), StartFrom: &start})
	if got := changes(t, resp); ids(got) != "late,early2" {
		t.Fatalf("from %v: %+v (want late,early2)", start, got)
	}
	// The continuation wins over StartFrom, which the SDK keeps sending.
	resp = readFeed(t, cc, azcosmos.ChangeFeedOptions{Continuation: &resp.ContinuationToken, StartFrom: &t0})
	if resp.RawResponse.StatusCode != http.StatusNotModified {
		t.Fatalf("continuation with an earlier StartFrom: status %d, %d items (want 304)", resp.RawResponse.StatusCode, resp.Count)
	}
	// A time zone other than UTC means the same instant.
	local := t0.In(time.FixedZone("X", 5*3600))
	resp = readFeed(t, cc, azcosmos.ChangeFeedOptions{FeedRange: fullRange(), StartFrom: &local})
	if got := changes(t, resp); ids(got) != "early,late,early2" {
		t.Fatalf("from %v: %+v", local, got)
	}
}

func TestChangeFeedPaging(t *testing.T) {
	_, cc := setup(t)
	for i := range 25 {
		upsert(t, cc, fmt.Sprintf("i%02d", i), "p", i)
	}
	var all []change
	opts := azcosmos.ChangeFeedOptions{FeedRange: fullRange(), MaxItemCount: 10}
	var counts []int
	for range 10 {
		resp := readFeed(t, cc, opts)
		if resp.Count == 0 {
			if resp.RawResponse.StatusCode != http.StatusNotModified {
				t.Fatalf("empty page with status %d", resp.RawResponse.StatusCode)
			}
			break
		}
		counts = append(counts, resp.Count)
		all = append(all, changes(t, resp)...)
		opts = azcosmos.ChangeFeedOptions{Continuation: &resp.ContinuationToken, MaxItemCount: 10}
	}
	if fmt.Sprint(counts) != "[10 10 5]" || len(all) != 25 {
		t.Fatalf("pages %v, %d changes", counts, len(all))
	}
	for i, c := range all {
		if c.ID != fmt.Sprintf("i%02d", i) || (i > 0 && c.LSN <= all[i-1].LSN) {
			t.Fatalf("change %d: %+v after %+v", i, c, all[max(i-1, 0)])
		}
	}
}

// TestChangeFeedFeedRanges: with four physical partitions, every change is seen exactly once,
// reading each feed range on its own and draining one composite token over all of them.
func TestChangeFeedFeedRanges(t *testing.T) {
	_, cc := setup(t, cosmostest.WithPartitionCount(4))
	ctx := context.Background()
	want := map[string]bool{}
	for i := range 60 {
		id := fmt.Sprintf("i%02d", i)
		upsert(t, cc, id, fmt.Sprintf("pk%d", i%13), i)
		want[id] = true
	}
	ranges, err := cc.ReadFeedRanges(ctx, nil)
	if err != nil || len(ranges) != 4 {
		t.Fatalf("feed ranges %v (%v)", ranges, err)
	}

	seen := map[string]int{}
	for _, fr := range ranges {
		got, _ := drain(t, cc, azcosmos.ChangeFeedOptions{FeedRange: &fr, MaxItemCount: 7})
		if len(got) == 0 {
			t.Errorf("range %v has no changes", fr)
		}
		for i, c := range got {
			seen[c.ID]++
			if i > 0 && c.LSN <= got[i-1].LSN {
				t.Errorf("range %v: %s (_lsn %d) after %s (_lsn %d)", fr, c.ID, c.LSN, got[i-1].ID, got[i-1].LSN)
			}
		}
	}
	checkOnce(t, seen, want)

	all, token := drain(t, cc, azcosmos.ChangeFeedOptions{FeedRange: fullRange(), MaxItemCount: 9})
	seen = map[string]int{}
	for _, c := range all {
		seen[c.ID]++
	}
	checkOnce(t, seen, want)

	upsert(t, cc, "i07", "pk7", 100)
	got, _ := drain(t, cc, azcosmos.ChangeFeedOptions{Continuation: &token})
	if ids(got) != "i07" || got[0].N != 100 {
		t.Fatalf("after one update: %+v", got)
	}
}

func checkOnce(t *testing.T, seen map[string]int, want map[string]bool) {
	t.Helper()
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("%s seen %d times", id, seen[id])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d distinct changes, want %d", len(seen), len(want))
	}
}

func TestChangeFeedPartitionKey(t *testing.T) {
	_, cc := setup(t, cosmostest.WithPartitionCount(4))
	for i := range 30 {
		upsert(t, cc, fmt.Sprintf("i%02d", i), fmt.Sprintf("pk%d", i%3), i)
	}
	pk := azcosmos.NewPartitionKeyString("pk1")
	got, token := drain(t, cc, azcosmos.ChangeFeedOptions{FeedRange: fullRange(), PartitionKey: &pk})
	var wantIDs []string
	for i := 1; i < 30; i += 3 {
		wantIDs = append(wantIDs, fmt.Sprintf("i%02d", i))
	}
	if ids(got) != strings.Join(wantIDs, ",") {
		t.Fatalf("pk1: %s, want %s", ids(got), strings.Join(wantIDs, ","))
	}
	upsert(t, cc, "other", "pk2", 1)
	upsert(t, cc, "mine", "pk1", 1)
	got, _ = drain(t, cc, azcosmos.ChangeFeedOptions{Continuation: &token, PartitionKey: &pk})
	if ids(got) != "mine" {
		t.Fatalf("pk1 after two writes: %s, want mine", ids(got))
	}
}

func TestChangeFeedTTL(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)
	s := cosmostest.NewServer(t, cosmostest.WithClock(func() time.Time { return t0 }))
	ttl := int32(-1)
	cc := newContainer(t, newClient(t, s, nil), "ttl", &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		DefaultTimeToLive:      &ttl,
	})
	ctx := context.Background()
	for _, body := range []string{`{"id":"short","pk":"p","ttl":10}`, `{"id":"forever","pk":"p"}`} {
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), []byte(body), nil); err != nil {
			t.Fatal(err)
		}
	}
	s.Advance(20 * time.Second)
	got, _ := drain(t, cc, azcosmos.ChangeFeedOptions{FeedRange: fullRange()})
	if ids(got) != "forever" {
		t.Fatalf("after expiry: %s, want forever", ids(got))
	}
}

func TestChangeFeedBadContinuation(t *testing.T) {
	_, cc := setup(t)
	props, err := cc.Read(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	token := fmt.Sprintf(`{"version":1,"resourceId":%q,"continuation":[{"minInclusive":"","maxExclusive":"FF","continuationToken":"\"not-an-lsn\""}]}`, props.ContainerProperties.ResourceID)
	_, err = cc.ReadChangeFeed(context.Background(), &azcosmos.ChangeFeedOptions{Continuation: &token})
	if st, _ := status(t, err); st != http.StatusBadRequest {
		t.Fatalf("bad continuation: %v (want 400)", err)
	}
}

// TestChangeFeedSplitMidDrain: a range splits while a reader is half-way through its changes; the
// reader's next call gets 410/1002 for the parent, moves to both children with the parent's
// continuation and sees every remaining change exactly once.
func TestChangeFeedSplitMidDrain(t *testing.T) {
	s, cc := setup(t)
	want := map[string]bool{}
	for i := range 40 {
		id := fmt.Sprintf("i%02d", i)
		upsert(t, cc, id, fmt.Sprintf("pk%d", i), i)
		want[id] = true
	}
	resp := readFeed(t, cc, azcosmos.ChangeFeedOptions{FeedRange: fullRange(), MaxItemCount: 15})
	first := changes(t, resp)
	if len(first) != 15 {
		t.Fatalf("first page: %d changes", len(first))
	}
	if err := s.SplitRange("db", "c1", "0"); err != nil {
		t.Fatal(err)
	}
	rest, _ := drain(t, cc, azcosmos.ChangeFeedOptions{Continuation: &resp.ContinuationToken, MaxItemCount: 15})
	seen := map[string]int{}
	for _, c := range append(first, rest...) {
		seen[c.ID]++
	}
	checkOnce(t, seen, want)
}

// TestChangeFeedPageByteLimit: a change feed page ends before the change that would take it past
// the service's 4 MB response limit, and the next page continues with that change.
func TestChangeFeedPageByteLimit(t *testing.T) {
	_, cc := setup(t)
	ctx := context.Background()
	filler := strings.Repeat("x", 1500*1024)
	for i := range 3 {
		doc := fmt.Sprintf(`{"id":"big%d","pk":"p","s":%q}`, i, filler)
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), []byte(doc), nil); err != nil {
			t.Fatal(err)
		}
	}
	opts := azcosmos.ChangeFeedOptions{FeedRange: fullRange()}
	var counts []int
	for range 5 {
		resp := readFeed(t, cc, opts)
		if resp.Count == 0 {
			break
		}
		counts = append(counts, resp.Count)
		opts = azcosmos.ChangeFeedOptions{Continuation: &resp.ContinuationToken}
	}
	if fmt.Sprint(counts) != "[2 1]" {
		t.Fatalf("pages of 1.5 MB changes: %v, want [2 1]", counts)
	}
}
