package cosmostest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

const exToken = "explorer-test-token"

// exAPI calls the Data Explorer's JSON API with the given bearer token ("" for none) and decodes
// the answer into out (when not nil).
func exAPI(t *testing.T, s *cosmostest.Server, token, method, path string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.ExplorerURL()+"api/"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: answer %q: %v", method, path, raw, err)
		}
	}
	return resp.StatusCode
}

// exItem is an item as the explorer lists it.
type exItem struct {
	ID   string `json:"id"`
	PK   string `json:"pk"`
	ETag string `json:"etag"`
	Text string `json:"text"`
}

func TestExplorerOffUnlessAskedAndNeverWithTheKey(t *testing.T) {
	if s := cosmostest.NewServer(t); s.ExplorerURL() != "" {
		t.Errorf("ExplorerURL without WithExplorer = %q, want \"\"", s.ExplorerURL())
	}
	if _, err := cosmostest.Start(cosmostest.WithExplorer("")); err == nil {
		t.Error("WithExplorer(\"\") started")
	}
	if _, err := cosmostest.Start(cosmostest.WithExplorer(cosmostest.NewServer(t).Key())); err == nil {
		t.Error("WithExplorer(the account key) started")
	}
	s := cosmostest.NewServer(t)
	if _, err := s.ExplorerHandler(s.Key()); err == nil {
		t.Error("ExplorerHandler(the account key) was accepted")
	}
}

// TestExplorerRefusesWithoutToken: every endpoint answers 401 without the control token, with a
// wrong one and with the account key, and nothing changes: no request reaches the gateway, no
// item, fault or setting changes.
func TestExplorerRefusesWithoutToken(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithExplorer(exToken), cosmostest.WithRegions("West US", "East US"))
	if err := s.CreateContainer("shop", "orders", "/customer"); err != nil {
		t.Fatal(err)
	}
	if err := s.Seed("shop", "orders", map[string]any{"id": "o1", "customer": "ada", "n": 1}); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Dump("shop", "orders")
	requests := s.Requests(cosmostest.RequestFilter{})
	var listed []exItem
	item := map[string]any{"db": "shop", "coll": "orders", "id": "o1", "pk": `["ada"]`, "etag": "x", "text": `{"id":"o1","customer":"ada","n":2}`}
	calls := []struct {
		method, path string
		body         any
	}{
		{"GET", "databases", nil},
		{"GET", "container?db=shop&coll=orders", nil},
		{"GET", "items?db=shop&coll=orders", nil},
		{"GET", "item?db=shop&coll=orders&id=o1&pk=%5B%22ada%22%5D", nil},
		{"POST", "item", map[string]any{"db": "shop", "coll": "orders", "text": `{"id":"o2","customer":"bob"}`}},
		{"PUT", "item", item},
		{"DELETE", "item?db=shop&coll=orders&id=o1&pk=%5B%22ada%22%5D&etag=*", nil},
		{"POST", "query", map[string]any{"db": "shop", "coll": "orders", "query": "SELECT * FROM c"}},
		{"GET", "changefeed?db=shop&coll=orders", nil},
		{"GET", "controls", nil},
		{"POST", "faults", map[string]any{"status": 429}},
		{"DELETE", "faults", nil},
		{"POST", "split", map[string]any{"db": "shop", "coll": "orders", "range": "0"}},
		{"POST", "region", map[string]any{"name": "East US", "down": true}},
		{"POST", "failover", map[string]any{"region": "East US"}},
		{"POST", "lag", map[string]any{"region": "East US", "lag": "1s"}},
		{"POST", "throughput-limits", map[string]any{"enabled": true}},
	}
	for _, tok := range []string{"", "wrong-token", s.Key(), exToken + "x", "Bearer " + exToken} {
		for _, c := range calls {
			var e struct{ Error string }
			if got := exAPI(t, s, tok, c.method, c.path, c.body, &e); got != http.StatusUnauthorized {
				t.Errorf("token %q: %s %s = %d, want 401", tok, c.method, c.path, got)
			}
			if strings.Contains(e.Error, s.Key()) || strings.Contains(e.Error, exToken) {
				t.Errorf("the refusal names a secret: %q", e.Error)
			}
		}
	}
	after, _ := s.Dump("shop", "orders")
	if !slices.EqualFunc(before, after, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
		t.Errorf("items changed:\n%s\n%s", before, after)
	}
	if got := s.Requests(cosmostest.RequestFilter{}); got != requests {
		t.Errorf("requests reached the gateway: %d, then %d", requests, got)
	}
	if s.ThroughputLimits() {
		t.Error("throughput limits turned on")
	}
	var ctl struct {
		Faults  []any
		Regions []struct {
			Name  string
			Down  bool
			Write bool
			Lag   string
		}
	}
	if exAPI(t, s, exToken, "GET", "controls", nil, &ctl) != http.StatusOK {
		t.Fatal("controls with the token")
	}
	if len(ctl.Faults) != 0 || ctl.Regions[1].Down || !ctl.Regions[0].Write || ctl.Regions[1].Lag != "0s" {
		t.Errorf("controls changed: %+v", ctl)
	}
	if exAPI(t, s, exToken, "GET", "items?db=shop&coll=orders", nil, &struct{ Items *[]exItem }{&listed}) != http.StatusOK || len(listed) != 1 {
		t.Errorf("with the token: %d items", len(listed))
	}
}

// TestExplorerPageIsStaticAndLockedDown: the page holds no data, carries a strict CSP and never
// the token or the key.
func TestExplorerPageIsStaticAndLockedDown(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithExplorer(exToken))
	for _, p := range []string{"", "app.js", "app.css"} {
		resp, err := http.Get(s.ExplorerURL() + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /%s = %d", p, resp.StatusCode)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET /%s: CSP %q", p, csp)
		}
		if bytes.Contains(b, []byte(exToken)) || bytes.Contains(b, []byte(s.Key())) {
			t.Errorf("GET /%s serves a secret", p)
		}
		if p == "app.js" && bytes.Contains(b, []byte("innerHTML")) {
			t.Error("app.js uses innerHTML")
		}
	}
	resp, err := http.Post(s.ExplorerURL(), "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST / = %d, want 405", resp.StatusCode)
	}
}

// TestExplorerEditSeenByClient: an item replaced through the explorer is read by azcosmos with the
// new ETag and value, and appears in the change feed with its new version; a replace with a stale
// ETag is 412 and changes nothing.
func TestExplorerEditSeenByClient(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithExplorer(exToken), cosmostest.WithPartitionCount(3))
	cc := newContainer(t, newClient(t, s, nil), "c1", nil)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p1")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p1","n":1}`), nil); err != nil {
		t.Fatal(err)
	}
	_, cont := drain(t, cc, azcosmos.ChangeFeedOptions{FeedRange: fullRange()})

	var page struct{ Items []exItem }
	if got := exAPI(t, s, exToken, "GET", "items?db=db&coll=c1", nil, &page); got != http.StatusOK || len(page.Items) != 1 {
		t.Fatalf("items: %d %+v", got, page)
	}
	it := page.Items[0]
	if it.PK != `["p1"]` {
		t.Fatalf("listed item %+v", it)
	}
	edited := strings.Replace(it.Text, `"n": 1`, `"n": 2`, 1)
	var res struct {
		Item   exItem
		Charge float64
	}
	if got := exAPI(t, s, exToken, "PUT", "item", map[string]any{"db": "db", "coll": "c1", "id": "a", "pk": it.PK, "etag": it.ETag, "text": edited}, &res); got != http.StatusOK {
		t.Fatalf("replace: %d", got)
	}
	if res.Item.ETag == "" || res.Item.ETag == it.ETag || res.Charge <= 0 {
		t.Fatalf("replace answered %+v", res)
	}
	read, err := cc.ReadItem(ctx, pk, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(read.ETag) != res.Item.ETag {
		t.Errorf("azcosmos reads ETag %s, the explorer showed %s", read.ETag, res.Item.ETag)
	}
	if !bytes.Contains(read.Value, []byte(`"n":2`)) {
		t.Errorf("azcosmos reads %s", read.Value)
	}
	got, _ := drain(t, cc, azcosmos.ChangeFeedOptions{Continuation: &cont})
	if len(got) != 1 || got[0].ID != "a" || got[0].N != 2 {
		t.Errorf("change feed after the edit: %+v", got)
	}

	// A stale ETag: 412, nothing written.
	var fail struct {
		Status int
		Error  string
	}
	if code := exAPI(t, s, exToken, "PUT", "item", map[string]any{"db": "db", "coll": "c1", "id": "a", "pk": it.PK, "etag": it.ETag, "text": it.Text}, &fail); code != http.StatusPreconditionFailed {
		t.Errorf("stale replace = %d %+v, want 412", code, fail)
	}
	again, _ := cc.ReadItem(ctx, pk, "a", nil)
	if again.ETag != read.ETag {
		t.Error("a refused replace changed the item")
	}
	// Changing the partition key is refused before anything is sent.
	moved := strings.Replace(edited, `"p1"`, `"p2"`, 1)
	if code := exAPI(t, s, exToken, "PUT", "item", map[string]any{"db": "db", "coll": "c1", "id": "a", "pk": it.PK, "etag": res.Item.ETag, "text": moved}, nil); code != http.StatusBadRequest {
		t.Errorf("partition key change = %d, want 400", code)
	}
	// Create and delete.
	if code := exAPI(t, s, exToken, "POST", "item", map[string]any{"db": "db", "coll": "c1", "text": `{"id":"b","pk":"p2"}`}, &res); code != http.StatusOK || res.Item.ID != "b" {
		t.Fatalf("create = %d %+v", code, res)
	}
	q := fmt.Sprintf("item?db=db&coll=c1&id=b&pk=%%5B%%22p2%%22%%5D&etag=%s", res.Item.ETag)
	if code := exAPI(t, s, exToken, "DELETE", q, nil, nil); code != http.StatusOK {
		t.Errorf("delete = %d", code)
	}
	if _, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("p2"), "b", nil); err == nil {
		t.Error("the deleted item is still there")
	}
}

// TestExplorerQueryMatchesClient: a query run in the explorer returns the rows and the request
// charge azcosmos gets for the same query, and names the ranges it targets.
func TestExplorerQueryMatchesClient(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithExplorer(exToken), cosmostest.WithPartitionCount(4))
	cc := newContainer(t, newClient(t, s, nil), "c1", nil)
	ctx := context.Background()
	for i := range 40 {
		doc := fmt.Sprintf(`{"id":"i%02d","pk":"p%d","n":%d}`, i, i%7, i)
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(fmt.Sprintf("p%d", i%7)), []byte(doc), nil); err != nil {
			t.Fatal(err)
		}
	}
	type answer struct {
		Documents    []string
		Continuation string
		Charge       float64
		Ranges       []string
		Metrics      []struct{ Name, Value string }
		Plan         struct{ Error string }
	}
	for _, tc := range []struct {
		name, pk string
		azPK     azcosmos.PartitionKey
		ranges   int
	}{
		{"cross-partition", "", azcosmos.NewPartitionKey(), 4},
		{"one partition", `"p3"`, azcosmos.NewPartitionKeyString("p3"), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			query := "SELECT c.id, c.n FROM c WHERE c.n >= @min"
			params := []azcosmos.QueryParameter{{Name: "@min", Value: 10}}
			pager := cc.NewQueryItemsPager(query, tc.azPK, &azcosmos.QueryOptions{QueryParameters: params, PageSizeHint: 7})
			want, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got answer
			code := exAPI(t, s, exToken, "POST", "query", map[string]any{"db": "db", "coll": "c1", "query": query, "partitionKey": tc.pk,
				"pageSize": 7, "parameters": []map[string]any{{"name": "@min", "value": 10}}}, &got)
			if code != http.StatusOK {
				t.Fatalf("query = %d", code)
			}
			if float32(got.Charge) != want.RequestCharge || got.Charge <= 0 {
				t.Errorf("charge %v, azcosmos %v", got.Charge, want.RequestCharge)
			}
			if len(got.Documents) != len(want.Items) {
				t.Fatalf("%d rows, azcosmos %d", len(got.Documents), len(want.Items))
			}
			for i := range want.Items {
				var a, b any
				_ = json.Unmarshal(want.Items[i], &a)
				_ = json.Unmarshal([]byte(got.Documents[i]), &b)
				if fmt.Sprint(a) != fmt.Sprint(b) {
					t.Errorf("row %d: %s, azcosmos %s", i, got.Documents[i], want.Items[i])
				}
			}
			if (got.Continuation != "") != (want.ContinuationToken != nil) {
				t.Errorf("continuation %q, azcosmos %v", got.Continuation, want.ContinuationToken)
			}
			if len(got.Ranges) != tc.ranges || got.Plan.Error != "" {
				t.Errorf("ranges %v (plan error %q), want %d", got.Ranges, got.Plan.Error, tc.ranges)
			}
			if !slices.ContainsFunc(got.Metrics, func(m struct{ Name, Value string }) bool { return m.Name == "retrievedDocumentCount" }) {
				t.Errorf("metrics %v", got.Metrics)
			}
		})
	}
}

// TestExplorerFaults: faults from Go and from the explorer are listed with their hits, and a fault
// installed in the explorer is seen by clients.
func TestExplorerFaults(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithExplorer(exToken))
	cc := newContainer(t, newClient(t, s, nil), "c1", nil)
	ctx := context.Background()
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpDeleteItem, Status: 503, Match: func(*http.Request) bool { return true }})
	var created struct{ ID string }
	if code := exAPI(t, s, exToken, "POST", "faults", map[string]any{"operation": "read_item", "status": 429, "retryAfterMs": 1, "times": 1}, &created); code != http.StatusCreated {
		t.Fatalf("inject = %d", code)
	}
	if code := exAPI(t, s, exToken, "POST", "faults", map[string]any{"status": 99}, nil); code != http.StatusBadRequest {
		t.Errorf("status 99 = %d, want 400", code)
	}
	_, _ = cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"a","pk":"p"}`), nil)
	if _, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("p"), "a", nil); err != nil { // retried after the 429
		t.Fatal(err)
	}
	var ctl struct {
		Faults []struct {
			ID   string
			Hits int
			Done bool
			Rule map[string]any
		}
	}
	exAPI(t, s, exToken, "GET", "controls", nil, &ctl)
	if len(ctl.Faults) != 2 || ctl.Faults[1].ID != created.ID || ctl.Faults[1].Hits != 1 || !ctl.Faults[1].Done ||
		ctl.Faults[0].Rule["match"] != true || ctl.Faults[0].Rule["status"] != float64(503) {
		t.Fatalf("faults %+v", ctl.Faults)
	}
	if code := exAPI(t, s, exToken, "DELETE", "faults/"+created.ID, nil, &ctl); code != http.StatusOK || len(ctl.Faults) != 1 {
		t.Errorf("remove = %d, %d left", code, len(ctl.Faults))
	}
	if code := exAPI(t, s, exToken, "DELETE", "faults/"+created.ID, nil, nil); code != http.StatusNotFound {
		t.Errorf("remove again = %d, want 404", code)
	}
}

// failingTB is a testing.TB whose test has failed: it records logs and cleanups.
type failingTB struct {
	testing.TB
	logs     []string
	cleanups []func()
}

func (f *failingTB) Failed() bool      { return true }
func (f *failingTB) Helper()           {}
func (f *failingTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *failingTB) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *failingTB) Fatalf(format string, args ...any) { f.TB.Fatalf(format, args...) }

// TestExplorerURLLoggedOnFailure: a failed test logs the explorer's URL (never the token) before
// the server closes, and a test without the explorer logs nothing.
func TestExplorerURLLoggedOnFailure(t *testing.T) {
	for _, withExplorer := range []bool{true, false} {
		tb := &failingTB{TB: t}
		var opts []cosmostest.Option
		if withExplorer {
			opts = append(opts, cosmostest.WithExplorer(exToken))
		}
		s := cosmostest.NewServer(tb, opts...)
		url := s.ExplorerURL()
		for i := len(tb.cleanups) - 1; i >= 0; i-- {
			tb.cleanups[i]()
		}
		logged := strings.Join(tb.logs, "\n")
		switch {
		case withExplorer && (!strings.Contains(logged, url) || url == ""):
			t.Errorf("logged %q, want the URL %q", logged, url)
		case strings.Contains(logged, exToken):
			t.Errorf("the token was logged: %q", logged)
		case !withExplorer && logged != "":
			t.Errorf("logged %q without the explorer", logged)
		}
		if withExplorer {
			if resp, err := http.Get(url); err == nil {
				resp.Body.Close()
				t.Error("the explorer still answers after Close")
			}
		}
	}
}

// TestExplorerContainerView: the container view shows the properties as the service answers them
// (vector policy included), the container's offer, and each physical partition with its documents.
func TestExplorerContainerView(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithExplorer(exToken), cosmostest.WithPartitionCount(3))
	c := newClient(t, s, nil)
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	tp := azcosmos.NewManualThroughputProperties(600)
	props := azcosmos.ContainerProperties{ID: "v", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{
			{Path: "/emb", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionCosine, Dimensions: 3}}}}
	if _, err := db.CreateContainer(ctx, props, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("v")
	for i := range 30 {
		pk := fmt.Sprintf("k%d", i)
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), []byte(fmt.Sprintf(`{"id":"%d","pk":%q}`, i, pk)), nil); err != nil {
			t.Fatal(err)
		}
	}
	var view struct {
		Properties struct {
			PartitionKey          struct{ Paths []string }
			VectorEmbeddingPolicy struct{ VectorEmbeddings []struct{ Path string } }
			Statistics            any
		}
		Offer struct {
			Content struct{ OfferThroughput int }
		}
		Ranges []struct {
			ID            string
			DocumentCount int
			SizeInKB      int
		}
		Usage string
	}
	if code := exAPI(t, s, exToken, "GET", "container?db=db&coll=v", nil, &view); code != http.StatusOK {
		t.Fatalf("container = %d", code)
	}
	p := view.Properties
	if len(p.PartitionKey.Paths) != 1 || len(p.VectorEmbeddingPolicy.VectorEmbeddings) != 1 || p.Statistics != nil {
		t.Errorf("properties %+v", p)
	}
	if view.Offer.Content.OfferThroughput != 600 {
		t.Errorf("offer %+v", view.Offer)
	}
	total := 0
	for _, r := range view.Ranges {
		total += r.DocumentCount
		if r.DocumentCount > 0 && r.SizeInKB == 0 {
			t.Errorf("range %s: %d documents in 0 KB", r.ID, r.DocumentCount)
		}
	}
	if len(view.Ranges) != 3 || total != 30 || !strings.Contains(view.Usage, "documentsCount=30") {
		t.Errorf("ranges %+v, usage %q", view.Ranges, view.Usage)
	}
	if code := exAPI(t, s, exToken, "GET", "container?db=db&coll=missing", nil, nil); code != http.StatusNotFound {
		t.Errorf("a missing container = %d, want the gateway's 404", code)
	}
}

// TestExplorerControls: splits, regions, lag and throughput limits set from the explorer take
// effect on the server and are listed as active.
func TestExplorerControls(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithExplorer(exToken), cosmostest.WithRegions("West US", "East US"))
	if err := s.CreateContainer("db", "c", "/pk"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		body map[string]any
		want int
	}{
		{"split", map[string]any{"db": "db", "coll": "c", "range": "0"}, 200},
		{"split", map[string]any{"db": "db", "coll": "c", "range": "0"}, 400}, // gone since
		{"region", map[string]any{"name": "East US", "down": true}, 200},
		{"region", map[string]any{"name": "Mars", "down": true}, 400},
		{"lag", map[string]any{"region": "East US", "lag": "250ms"}, 200},
		{"lag", map[string]any{"region": "East US", "lag": "-1s"}, 400},
		{"throughput-limits", map[string]any{"enabled": true}, 200},
		{"throughput-limits", map[string]any{}, 400},
		{"nowhere", map[string]any{}, 404},
	} {
		if code := exAPI(t, s, exToken, "POST", c.path, c.body, nil); code != c.want {
			t.Errorf("POST %s %v = %d, want %d", c.path, c.body, code, c.want)
		}
	}
	var view struct{ Ranges []struct{ ID string } }
	exAPI(t, s, exToken, "GET", "container?db=db&coll=c", nil, &view)
	if len(view.Ranges) != 2 {
		t.Errorf("ranges after the split: %+v", view.Ranges)
	}
	var ctl struct {
		Regions []struct {
			Name, Lag   string
			Down, Write bool
		}
		ThroughputLimits bool
	}
	exAPI(t, s, exToken, "GET", "controls", nil, &ctl)
	if !ctl.ThroughputLimits || !s.ThroughputLimits() || !ctl.Regions[1].Down || ctl.Regions[1].Lag != "250ms" || !ctl.Regions[0].Write {
		t.Errorf("controls %+v", ctl)
	}
	if d, _ := s.ReplicationLag("East US"); d.Milliseconds() != 250 {
		t.Errorf("lag %v", d)
	}
	if code := exAPI(t, s, exToken, "POST", "failover", map[string]any{"region": "East US"}, nil); code != 200 {
		t.Errorf("failover = %d", code)
	}
	exAPI(t, s, exToken, "GET", "controls", nil, &ctl)
	if ctl.Regions[0].Write || !ctl.Regions[1].Write {
		t.Errorf("after the failover: %+v", ctl.Regions)
	}
}

// TestExplorerChangeFeedEmptyRange: a physical partition with no changes (the gateway's 304) is
// listed with none, beside the others.
func TestExplorerChangeFeedEmptyRange(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithExplorer(exToken), cosmostest.WithPartitionCount(2))
	if err := s.CreateContainer("db", "c", "/pk"); err != nil {
		t.Fatal(err)
	}
	if err := s.Seed("db", "c", map[string]any{"id": "a", "pk": "p"}); err != nil {
		t.Fatal(err)
	}
	var feed struct {
		Ranges []struct {
			ID      string
			Changes []exItem
		}
	}
	if code := exAPI(t, s, exToken, "GET", "changefeed?db=db&coll=c", nil, &feed); code != http.StatusOK {
		t.Fatalf("changefeed = %d", code)
	}
	n := 0
	for _, r := range feed.Ranges {
		n += len(r.Changes)
	}
	if len(feed.Ranges) != 2 || n != 1 {
		t.Errorf("ranges %+v", feed.Ranges)
	}
}
