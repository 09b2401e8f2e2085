package changefeed_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
)

// dotnetPrefix is the lease id prefix .NET v3 uses for processor "proc" over e's monitored
// container: "{lease prefix}{account host}_{database rid}_{container rid}".
func dotnetPrefix(t *testing.T, e *env) string {
	t.Helper()
	ctx := context.Background()
	u, err := url.Parse(e.srv.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	db, err := e.db.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.monitored.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return "proc" + u.Hostname() + "_" + db.DatabaseProperties.ResourceID + "_" + c.ContainerProperties.ResourceID
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// rawDocs returns the lease container's documents by id.
func rawDocs(t *testing.T, e *env) map[string]map[string]any {
	t.Helper()
	pager := e.leases.NewQueryItemsPager("SELECT * FROM c", azPK(), nil)
	out := map[string]map[string]any{}
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range page.Items {
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			out[m["id"].(string)] = m
		}
	}
	return out
}

// userKeys are the keys of a document without the service's system properties (the fixtures'
// _etag and _ts are the service's too).
func userKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		if !strings.HasPrefix(k, "_") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// dotnetTime is how .NET (Newtonsoft, a UTC DateTime) writes the lease timestamp.
var dotnetTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,7})?Z$`)

// checkLikeFixture compares lease document got with the fixture want field by field: the same
// fields, the same JSON types, the values that do not change (version, LeaseToken, FeedRange,
// Mode, properties) equal, and a timestamp .NET reads.
func checkLikeFixture(t *testing.T, got, want map[string]any) {
	t.Helper()
	id := got["id"]
	if g, w := userKeys(got), userKeys(want); !slices.Equal(g, w) {
		t.Errorf("lease %v: fields %q, .NET writes %q", id, g, w)
	}
	for _, k := range []string{"id", "version", "LeaseToken", "FeedRange", "Mode", "properties"} {
		gb, _ := json.Marshal(got[k])
		wb, _ := json.Marshal(want[k])
		if string(gb) != string(wb) {
			t.Errorf("lease %v: %s = %s, want %s", id, k, gb, wb)
		}
	}
	if ts, ok := got["timestamp"].(string); !ok || !dotnetTime.MatchString(ts) {
		t.Errorf("lease %v: timestamp %v is not a time .NET writes", id, got["timestamp"])
	}
	for _, k := range []string{"Owner", "ContinuationToken"} {
		if v, ok := got[k]; !ok {
			t.Errorf("lease %v: no %s (.NET writes null)", id, k)
		} else if _, isString := v.(string); v != nil && !isString {
			t.Errorf("lease %v: %s = %v, want a string or null", id, k, v)
		}
	}
}

// A Go processor picks up a lease store a .NET v3 processor created (fixtures: version 0 leases by
// partition key range id, one released, one of a dead .NET host, and the .info marker) and
// continues from their continuations: nothing before them is delivered again, nothing after them
// is lost; it keeps the leases in .NET's format.
func TestPicksUpADotNetLeaseStore(t *testing.T) {
	e := newEnv(t, 2)
	ctx := context.Background()
	for i := range 60 {
		write(t, e.monitored, doc{ID: id(i), PK: id(i), Seq: i})
	}
	ranges, err := e.monitored.ReadFeedRanges(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(ranges, func(a, b azcosmos.FeedRange) int { return strings.Compare(a.MinInclusive, b.MinInclusive) })
	prefix := dotnetPrefix(t, e)
	handledByDotNet := map[string]bool{}
	want := map[string]map[string]any{}
	for i, fr := range ranges {
		// What the .NET processor handled and checkpointed: the first page of 7 changes.
		resp, err := e.monitored.ReadChangeFeed(ctx, &azcosmos.ChangeFeedOptions{FeedRange: &fr, MaxItemCount: 7})
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range resp.Items {
			var d doc
			_ = json.Unmarshal(raw, &d)
			handledByDotNet[d.ID] = true
		}
		var tok struct {
			Continuation []struct {
				ContinuationToken string `json:"continuationToken"`
			} `json:"continuation"`
		}
		if err := json.Unmarshal([]byte(resp.ContinuationToken), &tok); err != nil || len(tok.Continuation) != 1 {
			t.Fatalf("continuation %q: %v", resp.ContinuationToken, err)
		}
		owner := "null" // released at a graceful shutdown
		if i == 1 {
			owner = jsonString("dotnet-host-1") // a .NET host that died (its timestamp is long expired)
		}
		b := changefeed.DotnetFixture(t, "lease_v0.json", map[string]string{"PREFIX": prefix, "RANGE_ID": strconv.Itoa(i),
			"MIN": fr.MinInclusive, "MAX": fr.MaxExclusive, "OWNER": owner, "CONTINUATION": jsonString(tok.Continuation[0].ContinuationToken)})
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		want[m["id"].(string)] = m
		if _, err := e.leases.CreateItem(ctx, azPKString(m["id"].(string)), b, nil); err != nil {
			t.Fatal(err)
		}
	}
	info := changefeed.DotnetFixture(t, "info.json", map[string]string{"PREFIX": prefix})
	if _, err := e.leases.CreateItem(ctx, azPKString(prefix+".info"), info, nil); err != nil {
		t.Fatal(err)
	}

	tl := newTally()
	o := fast()
	o.StartFrom = changefeed.StartFromNow() // ignored: every lease has a continuation
	p := newProc(t, e, "go-1", tl.handle, o)
	rest := 60 - len(handledByDotNet)
	waitFor(t, "the changes after the .NET checkpoints", 10*time.Second, func() bool { return tl.distinct() == rest })
	write(t, e.monitored, doc{ID: "after", PK: "after"})
	waitFor(t, "a new change", 10*time.Second, func() bool { return tl.distinct() == rest+1 })
	stop(t, p)
	for id := range handledByDotNet {
		if tl.seen[id] > 0 {
			t.Errorf("%s, checkpointed by .NET, was delivered again", id)
		}
	}
	if tl.total != rest+1 {
		t.Errorf("%d deliveries of %d changes", tl.total, rest+1)
	}
	// The store is still .NET's: the same two leases (version 0, by range id), field by field.
	docs := rawDocs(t, e)
	if got := slices.Sorted(maps.Keys(docs)); !slices.Equal(got, append(slices.Sorted(maps.Keys(want)), prefix+".info")) {
		t.Fatalf("lease container holds %q", got)
	}
	for id, w := range want {
		checkLikeFixture(t, docs[id], w)
		if docs[id]["Owner"] != nil || docs[id]["ContinuationToken"] == w["ContinuationToken"] {
			t.Errorf("lease %s after Stop: Owner %v, ContinuationToken %v (was %v); want released and advanced", id, docs[id]["Owner"], docs[id]["ContinuationToken"], w["ContinuationToken"])
		}
	}
}

// A lease store a Go processor creates is the one a .NET v3 processor creates: the same ids,
// version 0 leases by partition key range id, the same fields (checked against the fixtures) and
// an .info marker with only an id.
func TestLeaseStoreIsDotNets(t *testing.T) {
	e := newEnv(t, 2)
	ctx := context.Background()
	tl := newTally()
	p := newProc(t, e, "go-1", tl.handle, fast())
	write(t, e.monitored, doc{ID: "x", PK: "x"})
	waitFor(t, "the change", 10*time.Second, func() bool { return tl.distinct() == 1 })
	stop(t, p)
	ranges, err := e.monitored.ReadFeedRanges(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(ranges, func(a, b azcosmos.FeedRange) int { return strings.Compare(a.MinInclusive, b.MinInclusive) })
	prefix := dotnetPrefix(t, e)
	docs := rawDocs(t, e)
	wantIDs := []string{prefix + "..0", prefix + "..1", prefix + ".info"}
	if got := slices.Sorted(maps.Keys(docs)); !slices.Equal(got, wantIDs) {
		t.Fatalf("lease container holds %q, want %q", got, wantIDs)
	}
	for i, fr := range ranges {
		var w map[string]any
		b := changefeed.DotnetFixture(t, "lease_v0.json", map[string]string{"PREFIX": prefix, "RANGE_ID": strconv.Itoa(i),
			"MIN": fr.MinInclusive, "MAX": fr.MaxExclusive, "OWNER": "null", "CONTINUATION": "null"})
		if err := json.Unmarshal(b, &w); err != nil {
			t.Fatal(err)
		}
		checkLikeFixture(t, docs[prefix+".."+strconv.Itoa(i)], w)
	}
	var wi map[string]any
	if err := json.Unmarshal(changefeed.DotnetFixture(t, "info.json", map[string]string{"PREFIX": prefix}), &wi); err != nil {
		t.Fatal(err)
	}
	// .NET only asks whether .info exists; this package adds the processor name and account
	// host the ids are made of (so no other processor adopts the store).
	u, _ := url.Parse(e.srv.Endpoint())
	wi["processorName"], wi["accountHost"] = "proc", u.Hostname()
	if g, w := userKeys(docs[prefix+".info"]), userKeys(wi); !slices.Equal(g, w) {
		t.Errorf(".info fields %q, want .NET's and the processor's %q", g, w)
	}
	for k, w := range wi {
		if g := docs[prefix+".info"][k]; g != w {
			t.Errorf(".info %s = %v, want %v", k, g, w)
		}
	}
}

// A lease store in this package's earlier format (ids "{name}_{container rid}..{min-max}", Mode
// "LatestVersion") is migrated on Start: one .NET EPK lease (version 1) per old lease, from its
// checkpoint; the old documents are deleted.
func TestMigratesTheEarlierGoFormat(t *testing.T) {
	e := newEnv(t, 1)
	ctx := context.Background()
	for i := range 20 {
		write(t, e.monitored, doc{ID: id(i), PK: id(i), Seq: i})
	}
	ranges, err := e.monitored.ReadFeedRanges(ctx, nil)
	if err != nil || len(ranges) != 1 {
		t.Fatal(ranges, err)
	}
	fr := ranges[0]
	resp, err := e.monitored.ReadChangeFeed(ctx, &azcosmos.ChangeFeedOptions{FeedRange: &fr, MaxItemCount: 5})
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		Continuation []struct {
			ContinuationToken string `json:"continuationToken"`
		} `json:"continuation"`
	}
	_ = json.Unmarshal([]byte(resp.ContinuationToken), &tok)
	c, _ := e.monitored.Read(ctx, nil)
	old := "proc_" + c.ContainerProperties.ResourceID
	oldLease := map[string]any{"id": old + ".." + fr.MinInclusive + "-" + fr.MaxExclusive, "version": 1,
		"LeaseToken": fr.MinInclusive + "-" + fr.MaxExclusive, "FeedRange": map[string]any{"Range": map[string]string{"min": fr.MinInclusive, "max": fr.MaxExclusive}},
		"Owner": nil, "ContinuationToken": tok.Continuation[0].ContinuationToken, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"properties": map[string]string{}, "Mode": "LatestVersion"}
	for _, d := range []map[string]any{oldLease, {"id": old + ".info", "timestamp": time.Now().UTC().Format(time.RFC3339Nano)}} {
		b, _ := json.Marshal(d)
		if _, err := e.leases.CreateItem(ctx, azPKString(d["id"].(string)), b, nil); err != nil {
			t.Fatal(err)
		}
	}
	tl := newTally()
	p := newProc(t, e, "a", tl.handle, fast())
	waitFor(t, "the changes after the old checkpoint", 10*time.Second, func() bool { return tl.distinct() == 15 })
	stop(t, p)
	if tl.total != 15 {
		t.Errorf("%d deliveries of 15 changes", tl.total)
	}
	prefix := dotnetPrefix(t, e)
	docs := rawDocs(t, e)
	wantIDs := []string{prefix + ".." + fr.MinInclusive + "-" + fr.MaxExclusive, prefix + ".info"}
	if got := slices.Sorted(maps.Keys(docs)); !slices.Equal(got, wantIDs) {
		t.Fatalf("after migration the lease container holds %q, want %q", got, wantIDs)
	}
	var w map[string]any
	_ = json.Unmarshal(changefeed.DotnetFixture(t, "lease_v1.json", map[string]string{"PREFIX": prefix, "MIN": fr.MinInclusive, "MAX": fr.MaxExclusive,
		"OWNER": "null", "CONTINUATION": "null"}), &w)
	checkLikeFixture(t, docs[wantIDs[0]], w)
}

// A .NET version 1 (EPK) lease splits as .NET splits it: into version 1 leases covering exactly
// its range, from its checkpoint; nothing is lost.
func TestDotNetEPKLeaseSplits(t *testing.T) {
	e := newEnv(t, 1)
	ctx := context.Background()
	ranges, err := e.monitored.ReadFeedRanges(ctx, nil)
	if err != nil || len(ranges) != 1 {
		t.Fatal(ranges, err)
	}
	fr := ranges[0]
	prefix := dotnetPrefix(t, e)
	for _, d := range [][]byte{
		changefeed.DotnetFixture(t, "lease_v1.json", map[string]string{"PREFIX": prefix, "MIN": fr.MinInclusive, "MAX": fr.MaxExclusive, "OWNER": "null", "CONTINUATION": "null"}),
		changefeed.DotnetFixture(t, "info.json", map[string]string{"PREFIX": prefix}),
	} {
		var m map[string]any
		_ = json.Unmarshal(d, &m)
		if _, err := e.leases.CreateItem(ctx, azPKString(m["id"].(string)), d, nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		write(t, e.monitored, doc{ID: id(i), PK: id(i), Seq: i})
	}
	if err := e.srv.SplitRange("db", "items", "0"); err != nil {
		t.Fatal(err)
	}
	for i := 30; i < 40; i++ {
		write(t, e.monitored, doc{ID: id(i), PK: id(i), Seq: i})
	}
	tl := newTally()
	o := fast()
	o.OnError = func(tok string, err error) { t.Logf("OnError %s: %v", tok, err) }
	p := newProc(t, e, "a", tl.handle, o)
	waitFor(t, "every change", 10*time.Second, func() bool { return tl.distinct() == 40 }, func() {
		t.Logf("handled %d; state %+v", tl.distinct(), p.State())
		for id, d := range rawDocs(t, e) {
			t.Logf("%s: %v", id, d)
		}
	})
	stop(t, p)
	var mins, maxs []string
	for _, l := range leaseDocs(t, e) {
		if l.Version != 1 || l.LeaseToken != l.FeedRange.Range.Min+"-"+l.FeedRange.Range.Max {
			t.Errorf("child lease %+v, want an EPK lease (version 1, token min-max)", l)
		}
		mins, maxs = append(mins, l.FeedRange.Range.Min), append(maxs, l.FeedRange.Range.Max)
	}
	slices.Sort(mins)
	slices.Sort(maxs)
	if len(mins) != 2 || mins[0] != fr.MinInclusive || maxs[1] != fr.MaxExclusive || mins[1] != maxs[0] {
		t.Errorf("children cover [%q, %q), want exactly the parent's [%q, %q)", mins, maxs, fr.MinInclusive, fr.MaxExclusive)
	}
}

// The account host of an existing lease store is never read out of its ids (issue 32: "views"
// adopted "views-audit127.0.0.1_..." as its own with host "-audit127.0.0.1"): a .NET store under
// another host than the one the requests go to is continued when Options.AccountHost names that
// host (not found by itself: a warning says it is there); a store this package created for this
// processor under another host (an earlier run through another endpoint) is found by its .info,
// which names the processor and the host.
func TestAccountHostOfAnExistingStore(t *testing.T) {
	e := newEnv(t, 1)
	ctx := context.Background()
	ranges, err := e.monitored.ReadFeedRanges(ctx, nil)
	if err != nil || len(ranges) != 1 {
		t.Fatal(ranges, err)
	}
	u, _ := url.Parse(e.srv.Endpoint())
	local := dotnetPrefix(t, e)
	dotnet := strings.Replace(local, u.Hostname(), "myaccount.documents.azure.com", 1)
	for _, d := range [][]byte{
		changefeed.DotnetFixture(t, "lease_v0.json", map[string]string{"PREFIX": dotnet, "RANGE_ID": "0", "MIN": ranges[0].MinInclusive, "MAX": ranges[0].MaxExclusive,
			"OWNER": "null", "CONTINUATION": "null"}),
		changefeed.DotnetFixture(t, "info.json", map[string]string{"PREFIX": dotnet}),
	} {
		var m map[string]any
		_ = json.Unmarshal(d, &m)
		if _, err := e.leases.CreateItem(ctx, azPKString(m["id"].(string)), d, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Not adopted by itself: a new store under the requests' host, and a warning.
	var logged strings.Builder
	o := fast()
	o.Logger = slog.New(slog.NewTextHandler(&syncWriter{w: &logged}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	tl := newTally()
	p := newProc(t, e, "a", tl.handle, o)
	write(t, e.monitored, doc{ID: "x", PK: "x"})
	waitFor(t, "the change", 10*time.Second, func() bool { return tl.distinct() == 1 })
	stop(t, p)
	if got := slices.Sorted(maps.Keys(rawDocs(t, e))); !slices.Equal(got, []string{local + "..0", local + ".info", dotnet + "..0", dotnet + ".info"}) {
		t.Errorf("lease container holds %q; want the .NET store untouched and a new one", got)
	}
	if !strings.Contains(logged.String(), "AccountHost") || !strings.Contains(logged.String(), dotnet+".info") {
		t.Errorf("no warning about the existing store: %q", logged.String())
	}
	// With AccountHost, the .NET store is continued, and claimed for this processor.
	o = fast()
	o.AccountHost = "myaccount.documents.azure.com"
	tl = newTally()
	p = newProc(t, e, "a", tl.handle, o)
	if q := p.Options().AccountHost; q != o.AccountHost {
		t.Errorf("Options().AccountHost = %q", q)
	}
	write(t, e.monitored, doc{ID: "y", PK: "y"})
	waitFor(t, "the changes from the beginning", 10*time.Second, func() bool { return tl.distinct() == 2 })
	stop(t, p)
	docs := rawDocs(t, e)
	if docs[dotnet+"..0"]["ContinuationToken"] == nil || docs[dotnet+".info"]["processorName"] != "proc" || docs[dotnet+".info"]["accountHost"] != o.AccountHost {
		t.Errorf("the .NET store after the run: %v, %v", docs[dotnet+"..0"], docs[dotnet+".info"])
	}
	// Its .info now names this processor: found without AccountHost, once there is no store
	// under the requests' host.
	for _, id := range []string{local + "..0", local + ".info"} {
		if _, err := e.leases.DeleteItem(ctx, azPKString(id), id, nil); err != nil {
			t.Fatal(err)
		}
	}
	tl = newTally()
	p = newProc(t, e, "a", tl.handle, fast())
	write(t, e.monitored, doc{ID: "z", PK: "z"})
	waitFor(t, "the new change", 10*time.Second, func() bool { return tl.distinct() >= 1 && tl.seen["z"] == 1 })
	stop(t, p)
	if tl.seen["x"]+tl.seen["y"] != 0 {
		t.Errorf("changes checkpointed in the found store delivered again: %v", tl.seen)
	}
	if got := slices.Sorted(maps.Keys(rawDocs(t, e))); !slices.Equal(got, []string{dotnet + "..0", dotnet + ".info"}) {
		t.Errorf("lease container holds %q; want only the found store", got)
	}
}

// A lease store of .NET's all-versions-and-deletes mode is not processed (as .NET refuses to
// switch modes): the refusal is reported and no lease is taken.
func TestRefusesAnAllVersionsLeaseStore(t *testing.T) {
	e := newEnv(t, 1)
	ctx := context.Background()
	ranges, err := e.monitored.ReadFeedRanges(ctx, nil)
	if err != nil || len(ranges) != 1 {
		t.Fatal(ranges, err)
	}
	prefix := dotnetPrefix(t, e)
	for _, d := range [][]byte{
		[]byte(strings.Replace(string(changefeed.DotnetFixture(t, "lease_v0.json", map[string]string{"PREFIX": prefix, "RANGE_ID": "0", "MIN": ranges[0].MinInclusive,
			"MAX": ranges[0].MaxExclusive, "OWNER": "null", "CONTINUATION": "null"})), "Incremental Feed", "Full-Fidelity Feed", 1)),
		changefeed.DotnetFixture(t, "info.json", map[string]string{"PREFIX": prefix}),
	} {
		var m map[string]any
		_ = json.Unmarshal(d, &m)
		if _, err := e.leases.CreateItem(ctx, azPKString(m["id"].(string)), d, nil); err != nil {
			t.Fatal(err)
		}
	}
	refused := make(chan error, 100)
	o := fast()
	o.OnError = func(_ string, err error) {
		select {
		case refused <- err:
		default:
		}
	}
	p := newProc(t, e, "a", nop, o)
	select {
	case err := <-refused:
		if !strings.Contains(err.Error(), "all-versions-and-deletes") {
			t.Errorf("OnError: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the all-versions lease store was not refused")
	}
	if n := len(p.State()); n != 0 {
		t.Errorf("holds %d leases of an all-versions store", n)
	}
	stop(t, p)
}
