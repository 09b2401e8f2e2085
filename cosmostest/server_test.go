package cosmostest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

func TestWrongKey(t *testing.T) {
	s := cosmostest.NewServer(t)
	other := "dGhpcyBpcyBub3QgdGhlIGtleSB0aGUgc2VydmVyIGV4cGVjdHMgYXQgYWxsLg=="
	c, err := azcosmos.NewClientWithKey(s.Endpoint(), mustCred(t, other), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "db"}, nil)
	if st, _ := status(t, err); st != http.StatusUnauthorized {
		t.Fatalf("wrong key: %v", err)
	}
	if !strings.Contains(err.Error(), "Unauthorized") || !strings.Contains(err.Error(), "authorization token can't serve the request") {
		t.Fatalf("body: %v", err)
	}
	// The right key works, also through the connection string and over plain HTTP.
	for _, opts := range [][]cosmostest.Option{nil, {cosmostest.WithHTTP(), cosmostest.WithKey(other)}} {
		s := cosmostest.NewServer(t, opts...)
		c, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
			t.Fatalf("%s: %v", s.Endpoint(), err)
		}
	}
}

func TestEndpointScheme(t *testing.T) {
	for _, tt := range []struct {
		opts   []cosmostest.Option
		prefix string
	}{{nil, "https://127.0.0.1:"}, {[]cosmostest.Option{cosmostest.WithHTTP()}, "http://127.0.0.1:"}} {
		s := cosmostest.NewServer(t, tt.opts...)
		if !strings.HasPrefix(s.Endpoint(), tt.prefix) || !strings.HasSuffix(s.Endpoint(), "/") {
			t.Errorf("endpoint %q, want prefix %q", s.Endpoint(), tt.prefix)
		}
		if s.Key() != wire.EmulatorKey {
			t.Errorf("key %q", s.Key())
		}
		if a, b := s.ClientOptions(), s.ClientOptions(); a == b {
			t.Error("ClientOptions returns the same pointer twice")
		}
	}
}

func TestDatabasesAndContainers(t *testing.T) {
	s := cosmostest.NewServer(t)
	c := newClient(t, s, nil)
	ctx := context.Background()
	ttl := int32(3600)
	props := &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2, Paths: []string{"/tenant", "/user"}},
		DefaultTimeToLive:      &ttl,
		UniqueKeyPolicy:        &azcosmos.UniqueKeyPolicy{UniqueKeys: []azcosmos.UniqueKey{{Paths: []string{"/email"}}}},
		VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{{
			Path: "/embedding", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionCosine, Dimensions: 3,
		}}},
	}
	cc := newContainer(t, c, "c2", props)
	newContainer(t, c, "c3", nil)
	r, err := cc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := r.ContainerProperties
	if got.PartitionKeyDefinition.Kind != azcosmos.PartitionKeyKindMultiHash || len(got.PartitionKeyDefinition.Paths) != 2 || got.PartitionKeyDefinition.Version != 2 {
		t.Errorf("pk def %+v", got.PartitionKeyDefinition)
	}
	if got.DefaultTimeToLive == nil || *got.DefaultTimeToLive != 3600 || got.UniqueKeyPolicy == nil || got.VectorEmbeddingPolicy == nil {
		t.Errorf("properties not echoed: %+v", got)
	}
	if got.IndexingPolicy == nil || got.IndexingPolicy.IndexingMode != "consistent" || got.ResourceID == "" {
		t.Errorf("default indexing policy / rid: %+v", got.IndexingPolicy)
	}

	// Unique key: 409 within a logical partition only.
	pk := azcosmos.NewPartitionKeyString("t").AppendString("u")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"1","tenant":"t","user":"u","email":"e"}`), nil); err != nil {
		t.Fatal(err)
	}
	_, err = cc.CreateItem(ctx, pk, []byte(`{"id":"2","tenant":"t","user":"u","email":"e"}`), nil)
	if st, _ := status(t, err); st != http.StatusConflict {
		t.Fatalf("unique key: %v", err)
	}

	// Replace the container.
	newTTL := int32(-1)
	got.DefaultTimeToLive = &newTTL
	if _, err := cc.Replace(ctx, *got, nil); err != nil {
		t.Fatal(err)
	}
	r2, _ := cc.Read(ctx, nil)
	if *r2.ContainerProperties.DefaultTimeToLive != -1 || r2.ContainerProperties.ResourceID != got.ResourceID {
		t.Errorf("after replace: %+v", r2.ContainerProperties)
	}

	db, _ := c.NewDatabase("db")
	var ids []string
	pager := db.NewQueryContainersPager("SELECT * FROM root r", nil)
	for pager.More() {
		p, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, cp := range p.Containers {
			ids = append(ids, cp.ID)
		}
	}
	if fmt.Sprint(ids) != "[c2 c3]" {
		t.Errorf("containers %v", ids)
	}
	dbs := c.NewQueryDatabasesPager("SELECT * FROM root r WHERE r.id = @id", &azcosmos.QueryDatabasesOptions{
		QueryParameters: []azcosmos.QueryParameter{{Name: "@id", Value: "db"}},
	})
	p, err := dbs.NextPage(ctx)
	if err != nil || len(p.Databases) != 1 {
		t.Fatalf("databases: %v %v", p.Databases, err)
	}

	// Missing owner: 404/1003; missing container read: 404.
	missing, _ := db.NewContainer("nope")
	_, err = missing.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"a","pk":"p"}`), nil)
	if st, sub := status(t, err); st != http.StatusNotFound || sub != "1003" {
		t.Fatalf("missing container: %d/%s", st, sub)
	}
	if _, err := cc.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = cc.Read(ctx, nil)
	if st, _ := status(t, err); st != http.StatusNotFound {
		t.Fatalf("deleted container: %v", err)
	}
	// Re-created containers get a new _rid.
	cc = newContainer(t, c, "c2", nil)
	r3, _ := cc.Read(ctx, nil)
	if r3.ContainerProperties.ResourceID == got.ResourceID {
		t.Error("re-created container reuses _rid")
	}
	if _, err := db.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

func TestThroughput(t *testing.T) {
	s := cosmostest.NewServer(t)
	c := newClient(t, s, nil)
	ctx := context.Background()
	manual := azcosmos.NewManualThroughputProperties(400)
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, &azcosmos.CreateDatabaseOptions{ThroughputProperties: &manual}); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	tp, err := db.ReadThroughput(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := tp.ThroughputProperties.ManualThroughput(); !ok || v != 400 {
		t.Fatalf("manual %v %v", v, ok)
	}
	if _, err := db.ReplaceThroughput(ctx, azcosmos.NewManualThroughputProperties(500), nil); err != nil {
		t.Fatal(err)
	}
	tp, _ = db.ReadThroughput(ctx, nil)
	if v, _ := tp.ThroughputProperties.ManualThroughput(); v != 500 {
		t.Fatalf("after replace %v", v)
	}
	auto := azcosmos.NewAutoscaleThroughputProperties(4000)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "a", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}},
		&azcosmos.CreateContainerOptions{ThroughputProperties: &auto}); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("a")
	ctp, err := cc.ReadThroughput(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := ctp.ThroughputProperties.AutoscaleMaxThroughput(); !ok || v != 4000 {
		t.Fatalf("autoscale %v %v", v, ok)
	}
	// A container without its own offer: the SDK reports an error.
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "shared", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	shared, _ := db.NewContainer("shared")
	if _, err := shared.ReadThroughput(ctx, nil); err == nil {
		t.Fatal("ReadThroughput on a container without an offer succeeded")
	}
}

func TestQueries(t *testing.T) {
	_, cc := setup(t)
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		pk := "p1"
		if i >= 7 {
			pk = "p2"
		}
		body := fmt.Sprintf(`{"id":"%d","pk":%q,"n":%d}`, i, pk, i)
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), []byte(body), nil); err != nil {
			t.Fatal(err)
		}
	}
	// Paging: PageSizeHint 5 over 7 docs in p1 is exactly 2 pages, metrics on each.
	pager := cc.NewQueryItemsPager("SELECT * FROM c WHERE c.n >= 0", azcosmos.NewPartitionKeyString("p1"), &azcosmos.QueryOptions{PageSizeHint: 5, PopulateIndexMetrics: true})
	pages, total := 0, 0
	for pager.More() {
		p, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		total += len(p.Items)
		if p.QueryMetrics == nil || p.IndexMetrics == nil || p.RequestCharge <= 0 || p.ActivityID == "" {
			t.Errorf("page %d: metrics %v index %v charge %v", pages, p.QueryMetrics, p.IndexMetrics, p.RequestCharge)
		}
	}
	if pages != 2 || total != 7 {
		t.Fatalf("pages %d total %d", pages, total)
	}
	tests := []struct {
		name   string
		pk     azcosmos.PartitionKey
		query  string
		params []azcosmos.QueryParameter
		cross  *bool
		want   int
		status int
	}{
		{"cross partition", azcosmos.NewPartitionKey(), "SELECT * FROM c", nil, nil, 10, 0},
		{"in", azcosmos.NewPartitionKey(), "SELECT * FROM c WHERE c.id IN (@a, @b)", []azcosmos.QueryParameter{{Name: "@a", Value: "1"}, {Name: "@b", Value: "8"}}, nil, 2, 0},
		{"pinned by filter", azcosmos.NewPartitionKey(), "SELECT * FROM c WHERE c.pk = 'p2'", nil, ptr(false), 3, 0},
		{"bracket path", azcosmos.NewPartitionKeyString("p2"), `SELECT * FROM c WHERE c["n"] = 8 OR (c.id = '9' AND NOT IS_NULL(c.pk))`, nil, nil, 2, 0},
		{"is_null", azcosmos.NewPartitionKey(), "SELECT * FROM c WHERE IS_NULL(c.missing)", nil, nil, 0, 0},
		{"cross disabled", azcosmos.NewPartitionKey(), "SELECT * FROM c", nil, ptr(false), 0, 400},
		{"count in partition", azcosmos.NewPartitionKeyString("p1"), "SELECT VALUE COUNT(1) FROM c", nil, nil, 1, 0},
		{"order by in partition", azcosmos.NewPartitionKeyString("p1"), "SELECT c.id FROM c ORDER BY c.n DESC", nil, nil, 7, 0},
		{"order by pinned by filter", azcosmos.NewPartitionKey(), "SELECT * FROM c WHERE c.pk = @pk ORDER BY c.id", []azcosmos.QueryParameter{{Name: "@pk", Value: "p2"}}, nil, 3, 0},
		{"order by cross partition", azcosmos.NewPartitionKey(), "SELECT * FROM c ORDER BY c.id", nil, nil, 0, 400},
		{"unknown function", azcosmos.NewPartitionKeyString("p1"), "SELECT FOO(c.id) FROM c", nil, nil, 0, 400},
		{"syntax", azcosmos.NewPartitionKeyString("p1"), "SELECT * FROM c WHERE 'unterminated", nil, nil, 0, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := cc.NewQueryItemsPager(tt.query, tt.pk, &azcosmos.QueryOptions{QueryParameters: tt.params, EnableCrossPartitionQuery: tt.cross})
			n := 0
			for p.More() {
				page, err := p.NextPage(ctx)
				if tt.status != 0 {
					if st, _ := status(t, err); st != tt.status {
						t.Fatalf("status %d, want %d: %v", st, tt.status, err)
					}
					if _, sub := status(t, err); tt.name == "order by cross partition" &&
						(sub != "1004" || !strings.Contains(err.Error(), "cross partition query can not be directly served by the gateway") || !strings.Contains(err.Error(), "additionalErrorInfo")) {
						t.Fatalf("1004 refusal: %s %v", sub, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				n += len(page.Items)
			}
			if tt.status != 0 || n != tt.want {
				t.Fatalf("%d items, want %d (status want %d)", n, tt.want, tt.status)
			}
		})
	}
	rm, err := cc.ReadManyItems(ctx, []azcosmos.ItemIdentity{
		{ID: "1", PartitionKey: azcosmos.NewPartitionKeyString("p1")},
		{ID: "2", PartitionKey: azcosmos.NewPartitionKeyString("p1")},
		{ID: "8", PartitionKey: azcosmos.NewPartitionKeyString("p2")},
		{ID: "8", PartitionKey: azcosmos.NewPartitionKeyString("p1")},
	}, nil)
	if err != nil || len(rm.Items) != 3 {
		t.Fatalf("ReadMany: %d %v", len(rm.Items), err)
	}
}

func TestFeedRanges(t *testing.T) {
	for _, n := range []int{1, 4} {
		_, cc := setup(t, cosmostest.WithPartitionCount(n))
		ranges, err := cc.ReadFeedRanges(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(ranges) != n || ranges[0].MinInclusive != "" || ranges[n-1].MaxExclusive != "FF" {
			t.Fatalf("n=%d: %+v", n, ranges)
		}
		// Items spread over the ranges are all readable and queryable.
		for i := 0; i < 40; i++ {
			pk := azcosmos.NewPartitionKeyString(fmt.Sprint("k", i))
			if _, err := cc.CreateItem(context.Background(), pk, []byte(fmt.Sprintf(`{"id":"x","pk":"k%d"}`, i)), nil); err != nil {
				t.Fatal(err)
			}
		}
		if got := countQuery(t, cc, azcosmos.NewPartitionKey(), "SELECT * FROM c", nil); got != 40 {
			t.Fatalf("n=%d: query saw %d items", n, got)
		}
	}
}

func TestTTL(t *testing.T) {
	s := cosmostest.NewServer(t)
	c := newClient(t, s, nil)
	ttl := int32(10)
	cc := newContainer(t, c, "ttl", &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, DefaultTimeToLive: &ttl,
	})
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	for _, d := range []string{
		`{"id":"default","pk":"p"}`, `{"id":"short","pk":"p","ttl":2}`, `{"id":"never","pk":"p","ttl":-1}`,
	} {
		if _, err := cc.CreateItem(ctx, pk, []byte(d), nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err := cc.CreateItem(ctx, pk, []byte(`{"id":"bad","pk":"p","ttl":0}`), nil)
	if st, _ := status(t, err); st != http.StatusBadRequest {
		t.Fatalf("ttl 0: %v", err)
	}
	alive := func(id string) bool {
		_, err := cc.ReadItem(ctx, pk, id, nil)
		if err == nil {
			return true
		}
		if st, _ := status(t, err); st != http.StatusNotFound {
			t.Fatal(err)
		}
		return false
	}
	steps := []struct {
		advance time.Duration
		want    map[string]bool
		count   int
	}{
		{0, map[string]bool{"default": true, "short": true, "never": true}, 3},
		{3 * time.Second, map[string]bool{"default": true, "short": false, "never": true}, 2},
		{10 * time.Second, map[string]bool{"default": false, "short": false, "never": true}, 1},
	}
	for _, st := range steps {
		s.Advance(st.advance)
		for id, want := range st.want {
			if got := alive(id); got != want {
				t.Errorf("after +%v: %s alive=%v, want %v", st.advance, id, got, want)
			}
		}
		if got := countQuery(t, cc, pk, "SELECT * FROM c", nil); got != st.count {
			t.Errorf("after +%v: query sees %d", st.advance, got)
		}
	}
	// Expired items can be created again.
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"short","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
}

func TestWithClock(t *testing.T) {
	fixed := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	_, cc := setup(t, cosmostest.WithClock(func() time.Time { return fixed }))
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(context.Background(), pk, []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	r, err := cc.ReadItem(context.Background(), pk, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TS int64 `json:"_ts"`
	}
	_ = json.Unmarshal(r.Value, &doc)
	if doc.TS != fixed.Unix() {
		t.Fatalf("_ts %d, want %d", doc.TS, fixed.Unix())
	}
}

type fakeToken struct{}

func (fakeToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ0ZXN0In0.sig", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

func TestAADTokens(t *testing.T) {
	for _, tt := range []struct {
		opts   []cosmostest.Option
		status int
	}{{nil, http.StatusUnauthorized}, {[]cosmostest.Option{cosmostest.WithAADTokens()}, 0}} {
		s := cosmostest.NewServer(t, tt.opts...)
		c, err := azcosmos.NewClient(s.Endpoint(), fakeToken{}, s.ClientOptions())
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "db"}, nil)
		if st, _ := status(t, err); st != tt.status {
			t.Fatalf("status %d, want %d: %v", st, tt.status, err)
		}
		if err != nil && !strings.Contains(err.Error(), "cosmostest") {
			t.Fatalf("refusal does not name cosmostest: %v", err)
		}
	}
}

func TestAdvertisedHost(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithHTTP(), cosmostest.WithAdvertisedHost("localhost"))
	c := newClient(t, s, nil)
	// The account lists http://localhost:<port>/, which the client then uses for data.
	if _, err := c.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, s.Endpoint(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unsigned GET /: %d", resp.StatusCode)
	}
	if resp.Header.Get("x-ms-activity-id") == "" || resp.Header.Get("x-ms-substatus") != "0" {
		t.Fatalf("headers %v", resp.Header)
	}
}

func TestDatabaseIfNoneMatch(t *testing.T) {
	s := cosmostest.NewServer(t)
	c := newClient(t, s, nil)
	ctx := context.Background()
	created, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	r, err := db.Read(ctx, &azcosmos.ReadDatabaseOptions{IfNoneMatchEtag: &created.ETag})
	if err != nil || r.RawResponse.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match: %v", err)
	}
}

func TestLogger(t *testing.T) {
	var buf syncBuffer
	s := cosmostest.NewServer(t, cosmostest.WithLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	c := newClient(t, s, nil)
	if _, err := c.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, "op=create_database") || !strings.Contains(got, "path=/dbs") {
		t.Fatalf("log: %s", got)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
