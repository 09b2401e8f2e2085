package crosspartition

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// queryLog records the query text of every query request (not plan requests) the client sends.
type queryLog struct {
	mu    sync.Mutex
	texts []string
	next  policy.Transporter
}

func (l *queryLog) Do(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.Header.Get(hdrIsQueryPlan) == "" && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		var q struct {
			Query string `json:"query"`
		}
		if json.Unmarshal(body, &q) == nil && q.Query != "" {
			l.mu.Lock()
			l.texts = append(l.texts, q.Query)
			l.mu.Unlock()
		}
	}
	return l.next.Do(req)
}

// take returns the texts recorded since the last call.
func (l *queryLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.texts
	l.texts = nil
	return out
}

// newLoggedContainer is newContainer whose client records the query texts it sends.
func newLoggedContainer(t *testing.T, n int) (*cosmostest.Server, *azcosmos.ContainerClient, *queryLog) {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(n))
	cred, err := azcosmos.NewKeyCredential(s.Key())
	if err != nil {
		t.Fatal(err)
	}
	co := s.ClientOptions()
	log := &queryLog{next: co.Transport}
	co.Transport = log
	client, err := azcosmos.NewClientWithKey(s.Endpoint(), cred, co)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	return s, c, log
}

// passDocs are 120 documents, 40 of them in logical partition "hot".
func passDocs() []map[string]any {
	var out []map[string]any
	for i := range 120 {
		pk := fmt.Sprint("p", i%7)
		if i%3 == 0 {
			pk = "hot"
		}
		out = append(out, map[string]any{"id": fmt.Sprintf("d%03d", i), "pk": pk, "n": (i * 37) % 50})
	}
	return out
}

// direct reads query in logical partition pk with azcosmos alone (the service's own answer).
func direct(t *testing.T, c *azcosmos.ContainerClient, query, pk string) []string {
	t.Helper()
	var out []string
	p := c.NewQueryItemsPager(query, azcosmos.NewPartitionKeyString(pk), nil)
	for p.More() {
		resp, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range resp.Items {
			out = append(out, normal(it))
		}
	}
	return out
}

// passQueries pin the partition key and need no client-side merge: they are passed through.
var passQueries = []string{
	"SELECT c.id, c.n FROM c WHERE c.pk = 'hot' ORDER BY c.n DESC",
	"SELECT TOP 17 c.id FROM c WHERE c.pk = 'hot' ORDER BY c.n",
	"SELECT c.id FROM c WHERE c.pk = 'hot' ORDER BY c.id OFFSET 5 LIMIT 20",
	"SELECT TOP 11 VALUE c.id FROM c WHERE c.pk = 'hot'",
	"SELECT * FROM c WHERE c.pk = 'hot'",
}

// TestPassthroughSendsTheOriginalQuery: a query whose plan targets one logical partition and that
// needs no client-side merge is sent as it is (not the plan's rewritten query) to one range, one
// request per page; a page resumed from its token in a new pager costs one request (the old path
// re-read with the ORDER BY resume filter and fetched a page ahead to know whether more followed:
// two). The rows are the service's own answer in that partition.
func TestPassthroughSendsTheOriginalQuery(t *testing.T) {
	s, c, log := newLoggedContainer(t, 4)
	put(t, c, passDocs()...)
	x := mustNew(t, c)
	for _, q := range passQueries {
		want := direct(t, c, q, "hot")
		_ = log.take()
		var got []string
		var tok *string
		for page := 0; ; page++ {
			s.ResetRequests()
			p := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{PageSizeHint: 6, ContinuationToken: tok})
			resp, err := p.NextPage(context.Background())
			if err != nil {
				t.Fatalf("%q page %d: %v", q, page, err)
			}
			texts := log.take()
			for _, text := range texts {
				if text != q {
					t.Fatalf("%q page %d: the range was sent %q, not the query", q, page, text)
				}
			}
			// The first page also asks for the plan (a document request too, not logged).
			sent := s.Requests(cosmostest.RequestFilter{ResourceType: cosmostest.ResourceDocument})
			if len(texts) != 1 || page > 0 && sent != 1 {
				t.Fatalf("%q page %d: %d query requests (%d document requests), want 1", q, page, len(texts), sent)
			}
			for _, it := range resp.Items {
				got = append(got, normal(it))
			}
			if resp.ContinuationToken == nil {
				break
			}
			if len(resp.Items) == 0 {
				t.Fatalf("%q page %d: empty with a continuation", q, page)
			}
			tok = resp.ContinuationToken
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n got %v\nwant %v", q, got, want)
		}
	}
	// A query over several ranges still runs the plan's rewritten query.
	if _, err := readAll(t, x, "SELECT c.id FROM c ORDER BY c.n", nil, 50, nil); err != nil {
		t.Fatal(err)
	}
	for _, text := range log.take() {
		if text == "SELECT c.id FROM c ORDER BY c.n" {
			t.Fatal("a cross-partition ORDER BY was passed through")
		}
	}
}

// TestPassthroughKeepsMergedQueriesOnTheGeneralPath: aggregates, DISTINCT and GROUP BY in one
// logical partition, and ORDER BY or TOP over several, are not passed through (as in the .NET
// SDK); the queries pinning one partition without them are.
func TestPassthroughKeepsMergedQueriesOnTheGeneralPath(t *testing.T) {
	_, c := newContainer(t, 4, nil)
	put(t, c, passDocs()...)
	x := mustNew(t, c)
	ctx := context.Background()
	general := []string{
		"SELECT VALUE COUNT(1) FROM c WHERE c.pk = 'hot'",
		"SELECT DISTINCT VALUE c.n FROM c WHERE c.pk = 'hot'",
		"SELECT c.n, COUNT(1) AS k FROM c WHERE c.pk = 'hot' GROUP BY c.n",
		"SELECT c.id FROM c WHERE c.pk IN ('hot', 'p1') ORDER BY c.n",
		"SELECT TOP 3 c.id FROM c ORDER BY c.n",
	}
	for _, q := range append(slices.Clone(passQueries), general...) {
		ex, err := x.start(ctx, q, nil, &azcosmos.QueryOptions{})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if want := slices.Contains(passQueries, q); ex.passthrough != want {
			t.Errorf("%q: passed through %v, want %v", q, ex.passthrough, want)
		}
		if _, err := readOnePager(t, x, q, nil, 0, nil); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
	}
}

// TestPassthroughSurvivesASplit: the range holding the logical partition splits while a
// passed-through query reads it, between two pages of one pager and between a page and its
// token's resume in a new pager: the parent's backend continuation goes on on the child holding
// the partition (cosmostest's SplitRange answers the parent's id with 410/1002), every row once
// and in order.
func TestPassthroughSurvivesASplit(t *testing.T) {
	for _, resume := range []bool{false, true} {
		for _, q := range passQueries[:3] {
			s, c, log := newLoggedContainer(t, 1)
			put(t, c, passDocs()...)
			x := mustNew(t, c)
			want := direct(t, c, q, "hot")
			var rows []json.RawMessage
			var err error
			split := func(page int) {
				if page == 1 {
					if err := s.SplitRange("db", "c", "0"); err != nil {
						t.Fatal(err)
					}
				}
			}
			if resume {
				rows, err = readAll(t, x, q, nil, 4, split)
			} else {
				rows, err = readOnePager(t, x, q, nil, 4, split)
			}
			if err != nil {
				t.Fatalf("%q: %v", q, err)
			}
			if got := normals(rows); !slices.Equal(got, want) {
				t.Errorf("%q (resume %v):\n got %v\nwant %v", q, resume, got, want)
			}
			for _, text := range log.take() {
				if text != q {
					t.Errorf("%q: the range was sent %q", q, text)
				}
			}
			all, err := x.routingMap(context.Background())
			if err != nil || len(all) != 2 {
				t.Fatalf("routing map after the split: %v %v", all, err)
			}
		}
	}
}

// TestPassthroughTokens: a passed-through query's token holds one range's backend continuation and
// nothing else; one that holds a position inside a page, a drop group, a finished range, a DISTINCT
// set or limits is refused before any request, and a token of the general path is not accepted for
// it (nor its token for another query).
func TestPassthroughTokens(t *testing.T) {
	s, c := newContainer(t, 4, nil)
	put(t, c, passDocs()...)
	x := mustNew(t, c)
	q := passQueries[0]
	p := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{PageSizeHint: 5})
	resp, err := p.NextPage(context.Background())
	if err != nil || resp.ContinuationToken == nil {
		t.Fatal(resp.ContinuationToken, err)
	}
	tk := decodeForge(t, *resp.ContinuationToken)
	if tk.Kind != kindPlain || len(tk.Ranges) != 1 || tk.Ranges[0].Tok == "" || tk.Ranges[0].N != 0 || tk.Order != nil || tk.Take != -1 {
		t.Fatalf("token %+v", tk)
	}
	for name, change := range map[string]func(*token){
		"a position": func(tk *token) {
			tk.Ranges[0].Open, tk.Ranges[0].N, tk.Ranges[0].Seen = true, 1, packHashes([]uint64{1})
		},
		"a drop group":     func(tk *token) { tk.Groups, tk.Ranges[0].Drop = []tokenGroup{{Hashes: packHashes([]uint64{1})}}, 1 },
		"a finished range": func(tk *token) { tk.Ranges[0].Done, tk.Ranges[0].Tok = true, "" },
		"two ranges": func(tk *token) {
			r := tk.Ranges[0]
			tk.Ranges = []tokenRange{{ID: "9", Min: "", Max: r.Min}, r}
			if r.Min == "" {
				tk.Ranges = []tokenRange{r, {ID: "9", Min: r.Max, Max: "FF"}}
			}
		},
		"a TOP":          func(tk *token) { tk.Take = 3 },
		"an OFFSET":      func(tk *token) { tk.Skip = 2 },
		"a DISTINCT set": func(tk *token) { tk.Dist = packHashes([]uint64{1}) },
		"another range": func(tk *token) {
			all, _ := x.routingMap(context.Background())
			for _, r := range all {
				if r.ID != tk.Ranges[0].ID {
					tk.Ranges[0] = tokenRange{ID: r.ID, Min: r.Min, Max: r.Max}
					return
				}
			}
		},
	} {
		f := decodeForge(t, *resp.ContinuationToken)
		change(&f)
		forged := f.encode(nil, x.identity)
		s.ResetRequests()
		_, err := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{PageSizeHint: 5, ContinuationToken: &forged}).NextPage(context.Background())
		if !isInvalidToken(err) {
			t.Errorf("%s: %v, want ErrInvalidToken", name, err)
		}
		if n := s.Requests(cosmostest.RequestFilter{ResourceType: cosmostest.ResourceDocument}); n != 0 {
			t.Errorf("%s: %d requests before the refusal", name, n)
		}
	}
	// A general-path ORDER BY token of this query (as an earlier version issued) is refused.
	o := token{Bind: tk.Bind, Kind: kindOrderBy, Take: -1, Order: &orderResume{Items: json.RawMessage(`[{"item":3}]`), N: 1, Max: "FF"}}
	old := o.encode(nil, x.identity)
	if _, err := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{ContinuationToken: &old}).NextPage(context.Background()); !isInvalidToken(err) {
		t.Errorf("an ORDER BY token: %v, want ErrInvalidToken", err)
	}
	// The token is bound to its query.
	if _, err := x.NewQueryItemsPager(passQueries[1], &azcosmos.QueryOptions{ContinuationToken: resp.ContinuationToken}).NextPage(context.Background()); !isInvalidToken(err) {
		t.Errorf("another query's token: %v, want ErrInvalidToken", err)
	}
}

func isInvalidToken(err error) bool { return errors.Is(err, cosmoserr.ErrInvalidToken) }
