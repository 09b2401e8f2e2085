package cosmostest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// createN creates n items {"id": prefix+i, "pk": pk, "n": i} (i from 0).
func createN(t *testing.T, cc *azcosmos.ContainerClient, pk, prefix string, n int) {
	t.Helper()
	for i := range n {
		body := fmt.Appendf(nil, `{"id":"%s%03d","pk":%q,"n":%d}`, prefix, i, pk, i)
		if _, err := cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString(pk), body, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestQueryPageShape checks what the SDK's emulator tests expect of every page: 10 documents at
// page size 5 are 3 pages without ORDER BY (the page that exhausts the results still carries a
// continuation, as the service does not look ahead, and the third page is empty) and exactly 2
// with ORDER BY (TestSinglePartitionQuery); len(Items) <= PageSizeHint, query metrics on every
// page, index metrics only when requested, an activity id and a charge.
func TestQueryPageShape(t *testing.T) {
	t.Parallel()
	_, cc := setup(t)
	createN(t, cc, "p", "a", 10)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		pk    azcosmos.PartitionKey
		query string
		index bool
		pages []int
	}{
		{"partition key", azcosmos.NewPartitionKeyString("p"), "SELECT * FROM c", false, []int{5, 5, 0}},
		{"cross partition", azcosmos.NewPartitionKey(), "SELECT * FROM c", false, []int{5, 5, 0}},
		{"index metrics", azcosmos.NewPartitionKeyString("p"), "SELECT * FROM c", true, []int{5, 5, 0}},
		{"order by", azcosmos.NewPartitionKeyString("p"), "SELECT * FROM c ORDER BY c.id", false, []int{5, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pages, err := drainQuery(ctx, t, cc, tc.pk, tc.query, &azcosmos.QueryOptions{PageSizeHint: 5, PopulateIndexMetrics: tc.index})
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int
			for _, p := range pages {
				sizes = append(sizes, len(p.resp.Items))
			}
			if fmt.Sprint(sizes) != fmt.Sprint(tc.pages) {
				t.Fatalf("page sizes %v, want %v", sizes, tc.pages)
			}
			for i, p := range pages {
				r := p.resp
				if len(r.Items) > 5 {
					t.Fatalf("page %d: %d items with PageSizeHint 5", i, len(r.Items))
				}
				if r.QueryMetrics == nil || !strings.Contains(*r.QueryMetrics, "retrievedDocumentCount=") {
					t.Fatalf("page %d: query metrics %v", i, r.QueryMetrics)
				}
				if (r.IndexMetrics != nil) != tc.index {
					t.Fatalf("page %d: index metrics %v, requested %v", i, r.IndexMetrics, tc.index)
				}
				if tc.index {
					b, err := base64.StdEncoding.DecodeString(*r.IndexMetrics)
					if err != nil || !json.Valid(b) {
						t.Fatalf("page %d: index metrics are not base64 JSON: %q", i, *r.IndexMetrics)
					}
				}
				if r.ActivityID == "" || r.RequestCharge <= 0 {
					t.Fatalf("page %d: activity id %q, charge %v", i, r.ActivityID, r.RequestCharge)
				}
				if (r.ContinuationToken == nil) != (i == len(pages)-1) {
					t.Fatalf("page %d of %d: continuation %v", i, len(pages), r.ContinuationToken)
				}
			}
		})
	}
}

// pageThrough reads q page by page with a fresh pager per page resumed from the previous page's
// continuation, calling between after every page but the last; it returns the ids in order.
func pageThrough(t *testing.T, cc *azcosmos.ContainerClient, pk azcosmos.PartitionKey, q string, size int32, between func(page int)) []string {
	t.Helper()
	var ids []string
	var token *string
	for page := 0; ; page++ {
		if page > 200 {
			t.Fatal("more than 200 pages")
		}
		pager := cc.NewQueryItemsPager(q, pk, &azcosmos.QueryOptions{PageSizeHint: size, ContinuationToken: token})
		resp, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		if len(resp.Items) > int(size) {
			t.Fatalf("page %d: %d items, page size %d", page, len(resp.Items), size)
		}
		for _, it := range resp.Items {
			var v struct{ ID string }
			if err := json.Unmarshal(it, &v); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, v.ID)
		}
		if resp.ContinuationToken == nil {
			return ids
		}
		token = resp.ContinuationToken
		if between != nil {
			between(page)
		}
	}
}

// TestQueryContinuationResume checks that continuation tokens resume exactly: no item twice, none
// of the items present from the start skipped, also when items are created between pages, for a
// streaming query in one partition, across four physical partitions, and for ORDER BY.
func TestQueryContinuationResume(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		partitions int
		pk         azcosmos.PartitionKey
		query      string
		ordered    bool
	}{
		{"partition key", 1, azcosmos.NewPartitionKeyString("p0"), "SELECT c.id FROM c", false},
		{"cross partition", 4, azcosmos.NewPartitionKey(), "SELECT c.id FROM c WHERE c.n >= 0", false},
		{"order by", 1, azcosmos.NewPartitionKeyString("p0"), "SELECT c.id, c.n FROM c ORDER BY c.n DESC", true},
		{"order by pinned", 4, azcosmos.NewPartitionKey(), "SELECT c.id, c.n FROM c WHERE c.pk = 'p0' ORDER BY c.id", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, cc := setup(t, cosmostest.WithPartitionCount(tc.partitions))
			for p := range 5 {
				createN(t, cc, fmt.Sprintf("p%d", p), fmt.Sprintf("m%d-", p), 6)
			}
			want := pageThrough(t, cc, tc.pk, tc.query, 1000, nil)
			if len(want) == 0 {
				t.Fatal("no results")
			}
			// The same query in pages of 4, resumed from tokens, with writes between pages: ids
			// sorting before and after everything (new logical partitions included).
			added := 0
			got := pageThrough(t, cc, tc.pk, tc.query, 4, func(page int) {
				for _, pk := range []string{"p0", fmt.Sprintf("q%d", page)} {
					for _, id := range []string{fmt.Sprintf("a-%s-%03d", pk, page), fmt.Sprintf("z-%s-%03d", pk, page)} {
						body := fmt.Appendf(nil, `{"id":%q,"pk":%q,"n":%d}`, id, pk, 100+page)
						if _, err := cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString(pk), body, nil); err != nil {
							t.Fatal(err)
						}
						added++
					}
				}
			})
			seen := map[string]bool{}
			for _, id := range got {
				if seen[id] {
					t.Fatalf("%s returned twice: %v", id, got)
				}
				seen[id] = true
			}
			for _, id := range want {
				if !seen[id] {
					t.Fatalf("%s skipped: %v", id, got)
				}
			}
			if added == 0 || len(got) > len(want)+added {
				t.Fatalf("got %d results, %d before the writes and %d added", len(got), len(want), added)
			}
			if tc.ordered {
				// Results already returned stay in order: every original item comes in its original
				// relative order.
				var orig []string
				wantSet := map[string]bool{}
				for _, id := range want {
					wantSet[id] = true
				}
				for _, id := range got {
					if wantSet[id] {
						orig = append(orig, id)
					}
				}
				if strings.Join(orig, ",") != strings.Join(want, ",") {
					t.Fatalf("original items out of order:\n got: %v\nwant: %v", orig, want)
				}
			}
		})
	}
}

// TestQueryContinuationTokenReuse checks that a token given to a new pager resumes where the old
// pager would have continued.
func TestQueryContinuationTokenReuse(t *testing.T) {
	t.Parallel()
	_, cc := setup(t)
	createN(t, cc, "p", "a", 12)
	ctx := context.Background()
	for _, q := range []string{"SELECT * FROM c", "SELECT * FROM c ORDER BY c.n DESC", "SELECT DISTINCT VALUE c.n % 5 FROM c"} {
		pk := azcosmos.NewPartitionKeyString("p")
		pager := cc.NewQueryItemsPager(q, pk, &azcosmos.QueryOptions{PageSizeHint: 3})
		first, err := pager.NextPage(ctx)
		if err != nil || first.ContinuationToken == nil {
			t.Fatalf("%s: first page: %v, continuation %v", q, err, first.ContinuationToken)
		}
		var rest, resumed [][]byte
		for pager.More() {
			r, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			rest = append(rest, r.Items...)
		}
		pages, err := drainQuery(ctx, t, cc, pk, q, &azcosmos.QueryOptions{PageSizeHint: 3, ContinuationToken: first.ContinuationToken})
		if err != nil {
			t.Fatal(err)
		}
		resumed = allItems(pages)
		if msg := sameResults(decodeAll(t, resumed), decodeAll(t, rest), true); msg != "" || len(rest) == 0 {
			t.Fatalf("%s: resumed pager %s (%d results)", q, msg, len(rest))
		}
	}
}

// TestQueryTamperedContinuation checks that a mangled or foreign continuation token is a 400, not
// a panic or a 500, and that the server keeps serving.
func TestQueryTamperedContinuation(t *testing.T) {
	t.Parallel()
	_, cc := setup(t)
	createN(t, cc, "p", "a", 10)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	token := func(q string) string {
		resp, err := cc.NewQueryItemsPager(q, pk, &azcosmos.QueryOptions{PageSizeHint: 2}).NextPage(ctx)
		if err != nil || resp.ContinuationToken == nil {
			t.Fatalf("%s: %v, continuation %v", q, err, resp.ContinuationToken)
		}
		return *resp.ContinuationToken
	}
	const q = "SELECT * FROM c WHERE c.n >= 0"
	tok := token(q)
	// Flip a bit of the first byte: the token's structure breaks wherever its fields fall. (A bit
	// flipped inside the resume position can make another valid position of the same query, which
	// is harmless and not detectable, as with the service's own tokens.)
	flip := []byte(tok)
	flip[0] ^= 0x01
	mangled := map[string]string{
		"flipped byte":   string(flip),
		"truncated":      tok[:len(tok)/2],
		"appended":       tok + "AAAA",
		"garbage":        "not a token",
		"json":           `{"token":"+RID:~abc#RT:1#TRC:5","range":{"min":"","max":"FF"}}`,
		"base64 object":  base64.RawURLEncoding.EncodeToString([]byte(`{"v":1}`)),
		"other query":    token("SELECT * FROM c WHERE c.n >= 1"),
		"order by token": token("SELECT * FROM c ORDER BY c.n"),
		"non-ascii":      "\xff\xfe" + tok,
	}
	for name, bad := range mangled {
		t.Run(name, func(t *testing.T) {
			_, err := drainQuery(ctx, t, cc, pk, q, &azcosmos.QueryOptions{PageSizeHint: 2, ContinuationToken: &bad})
			if st, _ := status(t, err); st != http.StatusBadRequest {
				t.Fatalf("token %q: status %d (%v), want 400", bad, st, err)
			}
		})
	}
	if _, err := drainQuery(ctx, t, cc, pk, q, &azcosmos.QueryOptions{PageSizeHint: 2, ContinuationToken: &tok}); err != nil {
		t.Fatalf("the genuine token after the tampered ones: %v", err)
	}
}

// TestQueryPageByteSize checks that a page stays within the service's 4 MiB response budget when
// the page size is dynamic, and that the pages together return everything.
func TestQueryPageByteSize(t *testing.T) {
	t.Parallel()
	_, cc := setup(t)
	ctx := context.Background()
	// Just over 4 MiB in all: at least two pages. Items are built once; the id is patched in.
	const n, size = 11, 400 << 10
	body := fmt.Appendf(nil, `{"id":"big00","pk":"p","payload":"%s"}`, strings.Repeat("x", size))
	for i := range n {
		copy(body[len(`{"id":"big`):], fmt.Sprintf("%02d", i))
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), body, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, pk := range []azcosmos.PartitionKey{azcosmos.NewPartitionKeyString("p"), azcosmos.NewPartitionKey()} {
		pages, err := drainQuery(ctx, t, cc, pk, "SELECT * FROM c", &azcosmos.QueryOptions{PageSizeHint: -1})
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for i, p := range pages {
			bytes := 0
			for _, it := range p.items {
				bytes += len(it)
			}
			if bytes > 4<<20 {
				t.Fatalf("page %d holds %d bytes, over 4 MiB", i, bytes)
			}
			total += len(p.items)
		}
		if len(pages) < 2 || total != n {
			t.Fatalf("%d pages with %d items, want at least 2 pages and %d items", len(pages), total, n)
		}
	}
}

var retrievedRE = regexp.MustCompile(`retrievedDocumentCount=(\d+)`)

// TestQueryChargeGrowsWithScanned checks that the RU charge and the query metrics follow the
// documents scanned, not the results returned.
func TestQueryChargeGrowsWithScanned(t *testing.T) {
	t.Parallel()
	_, cc := setup(t)
	createN(t, cc, "small", "s", 10)
	createN(t, cc, "big", "b", 100)
	ctx := context.Background()
	run := func(pk string) (float64, int) {
		pages, err := drainQuery(ctx, t, cc, azcosmos.NewPartitionKeyString(pk), "SELECT * FROM c WHERE c.n < 0", nil)
		if err != nil || len(pages) != 1 || len(pages[0].items) != 0 {
			t.Fatalf("%s: %v, %d pages", pk, err, len(pages))
		}
		r := pages[0].resp
		m := retrievedRE.FindStringSubmatch(*r.QueryMetrics)
		if m == nil {
			t.Fatalf("no retrievedDocumentCount in %q", *r.QueryMetrics)
		}
		scanned, _ := strconv.Atoi(m[1])
		return float64(r.RequestCharge), scanned
	}
	small, nSmall := run("small")
	big, nBig := run("big")
	if nSmall != 10 || nBig != 100 {
		t.Fatalf("retrievedDocumentCount %d and %d, want 10 and 100", nSmall, nBig)
	}
	if big <= small {
		t.Fatalf("charge for 100 documents scanned %v, for 10 %v: want it to grow", big, small)
	}
}

// TestQueryVectorOrderByPlanDirection checks that the gateway's refusal plan for ORDER BY
// VectorDistance takes its direction from the container's vector embedding policy: ascending for
// euclidean distance, descending for cosine and dot product similarity.
func TestQueryVectorOrderByPlanDirection(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(2))
	c := newClient(t, s, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		fn   azcosmos.VectorDistanceFunction
		want string
	}{
		{azcosmos.VectorDistanceFunctionEuclidean, "Ascending"},
		{azcosmos.VectorDistanceFunctionCosine, "Descending"},
		{azcosmos.VectorDistanceFunctionDotProduct, "Descending"},
	} {
		t.Run(string(tc.fn), func(t *testing.T) {
			cc := newContainer(t, c, "v-"+string(tc.fn), &azcosmos.ContainerProperties{
				PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
				VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{
					{Path: "/embedding", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: tc.fn, Dimensions: 3},
				}},
			})
			vecs := map[string][]float64{"near": {1, 2, 3}, "mid": {1, 2, 4}, "far": {-3, 0, 9}}
			for id, v := range vecs {
				b, _ := json.Marshal(map[string]any{"id": id, "pk": "p", "embedding": v})
				if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), b, nil); err != nil {
					t.Fatal(err)
				}
			}
			const q = "SELECT TOP 3 c.id, VectorDistance(c.embedding, @v) AS score FROM c ORDER BY VectorDistance(c.embedding, @v)"
			params := []azcosmos.QueryParameter{{Name: "@v", Value: []float64{1, 2, 3}}}
			_, err := drainQuery(ctx, t, cc, azcosmos.NewPartitionKey(), q, &azcosmos.QueryOptions{QueryParameters: params})
			plan := checkGatewayRefusal(t, err)
			qi := plan["queryInfo"].(map[string]any)
			if !jsonValueEqual(qi["orderBy"], []any{tc.want}) || qi["hasNonStreamingOrderBy"] != true {
				t.Fatalf("plan orderBy %v, hasNonStreamingOrderBy %v; want [%s], true", qi["orderBy"], qi["hasNonStreamingOrderBy"], tc.want)
			}
			// Within the partition the scores come best first in that same direction.
			pages, err := drainQuery(ctx, t, cc, azcosmos.NewPartitionKeyString("p"), q, &azcosmos.QueryOptions{QueryParameters: params})
			if err != nil {
				t.Fatal(err)
			}
			var scores []float64
			for _, it := range allItems(pages) {
				var r struct{ Score float64 }
				if err := json.Unmarshal(it, &r); err != nil {
					t.Fatal(err)
				}
				scores = append(scores, r.Score)
			}
			sorted := sort.SliceIsSorted(scores, func(i, j int) bool {
				if tc.want == "Ascending" {
					return scores[i] < scores[j]
				}
				return scores[i] > scores[j]
			})
			if len(scores) != 3 || !sorted {
				t.Fatalf("scores %v are not %s", scores, tc.want)
			}
		})
	}
}

// TestQueryOrderByIndex checks that ORDER BY served from the server's indexes (the range index for
// one path, a composite index of the container's policy for several) returns exactly what a full
// scan returns, page by page, and that it reads fewer documents: retrievedDocumentCount of a first
// page is below the partition's size only when an index serves the query.
func TestQueryOrderByIndex(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t)
	c := newClient(t, s, nil)
	plain := newContainer(t, c, "plain", nil)
	indexed := newContainer(t, c, "indexed", &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		IndexingPolicy: &azcosmos.IndexingPolicy{
			Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
			CompositeIndexes: [][]azcosmos.CompositeIndex{
				{{Path: "/a", Order: azcosmos.CompositeIndexDescending}, {Path: "/b", Order: azcosmos.CompositeIndexAscending}},
				{{Path: `/"x-y"`, Order: azcosmos.CompositeIndexAscending}, {Path: "/id", Order: azcosmos.CompositeIndexAscending}},
			},
		},
	})
	ctx := context.Background()
	const n = 300
	avals := []any{1, 2.5, "s", "t", nil, true, false, []any{1}, map[string]any{"k": 1}}
	for i := range n {
		d := map[string]any{"id": fmt.Sprintf("i%03d", i), "pk": "p", "b": i % 13, "x-y": i % 5}
		if i%10 != 0 {
			d["a"] = avals[i%len(avals)]
		}
		body, _ := json.Marshal(d)
		for _, cc := range []*azcosmos.ContainerClient{plain, indexed} {
			if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), body, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	pk := azcosmos.NewPartitionKeyString("p")
	firstScanned := func(cc *azcosmos.ContainerClient, q string) int {
		resp, err := cc.NewQueryItemsPager(q, pk, &azcosmos.QueryOptions{PageSizeHint: 7}).NextPage(ctx)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		m := retrievedRE.FindStringSubmatch(*resp.QueryMetrics)
		v, _ := strconv.Atoi(m[1])
		return v
	}
	for _, tc := range []struct {
		query     string
		composite bool // served by a composite index (else by the range index in both containers)
	}{
		{"SELECT c.id, c.a, c.b FROM c ORDER BY c.a DESC, c.b ASC", true},
		{"SELECT c.id FROM c WHERE c.b > 3 ORDER BY c.a DESC, c.b", true},
		{`SELECT c.id FROM c ORDER BY c["x-y"], c.id`, true},
		{"SELECT VALUE c.id FROM c ORDER BY c.b DESC", false},
		{"SELECT TOP 20 c.id FROM c WHERE IS_NUMBER(c.a) ORDER BY c.a", false},
	} {
		t.Run(tc.query, func(t *testing.T) {
			if tc.composite {
				// The service refuses a multi-key ORDER BY that no composite index serves; the
				// engine's own tests compare composite index results with a full scan.
				_, err := plain.NewQueryItemsPager(tc.query, pk, nil).NextPage(ctx)
				if st, _ := status(t, err); st != http.StatusBadRequest || !strings.Contains(err.Error(), "does not have a corresponding composite index") {
					t.Fatalf("without a composite index: %v (want 400)", err)
				}
				pages, err := drainQuery(ctx, t, indexed, pk, tc.query, &azcosmos.QueryOptions{PageSizeHint: 7})
				if err != nil {
					t.Fatal(err)
				}
				if len(allItems(pages)) == 0 {
					t.Fatal("no results")
				}
				if x := firstScanned(indexed, tc.query); x >= n {
					t.Fatalf("first page scanned %d documents with a composite index (of %d)", x, n)
				}
				return
			}
			var results [2][]any
			for i, cc := range []*azcosmos.ContainerClient{plain, indexed} {
				pages, err := drainQuery(ctx, t, cc, pk, tc.query, &azcosmos.QueryOptions{PageSizeHint: 7})
				if err != nil {
					t.Fatal(err)
				}
				results[i] = decodeAll(t, allItems(pages))
			}
			if len(results[0]) == 0 {
				t.Fatal("no results")
			}
			if msg := sameResults(results[1], results[0], true); msg != "" {
				t.Fatalf("indexed %s\n got: %s\nwant: %s", msg, show(results[1]), show(results[0]))
			}
			p, x := firstScanned(plain, tc.query), firstScanned(indexed, tc.query)
			if x >= n || p >= n {
				t.Fatalf("first page scanned %d documents without a composite index, %d with one (of %d)", p, x, n)
			}
		})
	}
}

// TestQueryTextLimit: the service refuses a query text longer than 262,144 characters (the
// maxSqlQueryInputLength its account metadata advertises) with 400.
func TestQueryTextLimit(t *testing.T) {
	_, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	long := "SELECT * FROM c WHERE c.s = '" + strings.Repeat("é", 262144) + "'"
	_, err := cc.NewQueryItemsPager(long, pk, nil).NextPage(ctx)
	if st, sub := status(t, err); st != http.StatusBadRequest || sub != "0" || !strings.Contains(err.Error(), "262144") {
		t.Fatalf("query text over the limit: %v (want 400)", err)
	}
	ok := "SELECT * FROM c WHERE c.s = '" + strings.Repeat("é", 1000) + "'"
	if _, err := cc.NewQueryItemsPager(ok, pk, nil).NextPage(ctx); err != nil {
		t.Fatalf("query text under the limit: %v", err)
	}
}
