package crosspartition

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/tokenmac"
)

// The issue's setting: 4 physical partitions, 1,200 rows, page size 50.
const (
	costPartitions = 4
	costRows       = 1200
	costPage       = 50
)

// costQueries are the queries whose tokens the crafted-token fuzzer mutates.
var costQueries = []string{
	"SELECT * FROM c",
	"SELECT c.id, c.n FROM c WHERE c.n >= 0",
	"SELECT DISTINCT VALUE c.v FROM c",
	"SELECT * FROM c ORDER BY c.id",
	"SELECT c.id, c.n FROM c ORDER BY c.n DESC",
	"SELECT TOP 700 c.id, c.v FROM c ORDER BY c.v",
}

type costFixture struct {
	s      *cosmostest.Server
	size   int32 // PageSizeHint of every page
	x      *Container
	tokens map[string][]string // legitimate tokens of each query, page by page
	legit  map[string]pageCost // the most a legitimate resume of each query cost
	rows   [][]byte            // every document as the plain query returns it
	rids   []string
	values []any
}

type pageCost struct {
	requests int
	charge   float32
}

func (a pageCost) max(b pageCost) pageCost {
	return pageCost{max(a.requests, b.requests), max(a.charge, b.charge)}
}

func newCostFixture(t *testing.T) *costFixture { return newCostFixtureOf(t, costQueries, costPage) }

// newCostFixtureOf is newCostFixture for other queries and page sizes.
func newCostFixtureOf(t *testing.T, queries []string, size int32) *costFixture {
	t.Helper()
	s, c := newContainer(t, costPartitions, nil)
	var ds []map[string]any
	for i := range costRows {
		ds = append(ds, map[string]any{"id": fmt.Sprintf("d%04d", i), "pk": fmt.Sprint("p", i%97), "n": i % 17, "v": i % 400})
	}
	put(t, c, ds...)
	f := &costFixture{s: s, size: size, x: mustNew(t, c), tokens: map[string][]string{}, legit: map[string]pageCost{}}
	if !slices.Contains(queries, "SELECT * FROM c") {
		rows, err := readAll(t, f.x, "SELECT * FROM c", nil, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range rows {
			f.addRow(it)
		}
	}
	for _, q := range queries {
		var tok *string
		for {
			cost, resp := f.page(t, q, tok)
			if tok != nil {
				f.legit[q] = f.legit[q].max(cost) // a resumed page
			}
			if q == "SELECT * FROM c" {
				for _, it := range resp.Items {
					f.addRow(it)
				}
			}
			if resp.ContinuationToken == nil {
				break
			}
			tok = resp.ContinuationToken
			f.tokens[q] = append(f.tokens[q], *tok)
		}
	}
	for i := range 400 {
		f.values = append(f.values, float64(i))
	}
	for i := 0; i < costRows; i += 7 {
		f.values = append(f.values, fmt.Sprintf("d%04d", i))
	}
	return f
}

// addRow records a document as the plain query returns it, and its _rid.
func (f *costFixture) addRow(it []byte) {
	f.rows = append(f.rows, it)
	var d struct {
		Rid string `json:"_rid"`
	}
	_ = json.Unmarshal(it, &d)
	f.rids = append(f.rids, d.Rid)
}

// page reads one page of q from tok in a new pager, counting the document requests it sent.
func (f *costFixture) page(t *testing.T, q string, tok *string) (pageCost, azcosmos.QueryItemsResponse) {
	t.Helper()
	f.s.ResetRequests()
	p := f.x.NewQueryItemsPager(q, &azcosmos.QueryOptions{PageSizeHint: f.size, ContinuationToken: tok})
	resp, err := p.NextPage(context.Background())
	n := f.s.Requests(cosmostest.RequestFilter{ResourceType: cosmostest.ResourceDocument})
	if err != nil {
		if !errors.Is(err, cosmoserr.ErrInvalidToken) {
			t.Fatalf("%q: %v", q, err)
		}
	}
	return pageCost{n, resp.RequestCharge}, resp
}

// decodeForge reads a token as an attacker would.
func decodeForge(t *testing.T, tok string) token {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(raw) < tokenmac.TagSize {
		t.Fatal(err)
	}
	var x token
	if err := json.Unmarshal(raw[:len(raw)-tokenmac.TagSize], &x); err != nil {
		t.Fatal(err)
	}
	return x
}

// mutate changes some fields of tk at random, with values an attacker can compute: hashes of real
// rows and values, real _rids and continuations, the container's range bounds.
func (f *costFixture) mutate(rng *rand.Rand, tk *token, all []pkRange, others []token) {
	pool := func(n int) string {
		hs := make([]uint64, n)
		for i := range hs {
			hs[i] = rawHash(f.rows[rng.IntN(len(f.rows))])
		}
		return packHashes(hs)
	}
	for range 1 + rng.IntN(4) {
		switch rng.IntN(9) {
		case 0:
			tk.Skip = rng.IntN(3)
			tk.Take = []int{-1, 0, 1, 699, 700, 5000}[rng.IntN(6)]
		case 1: // every value returned already
			hs := make([]uint64, 0, 400)
			for i := range 400 {
				hs = append(hs, rowHash([]byte(fmt.Sprint(i))))
			}
			tk.Dist = packHashes(hs[:1+rng.IntN(len(hs))])
		case 2: // positions deep into a page, with the hashes of as many rows
			for i := range tk.Ranges {
				n := []int{1, 49, 50, 51, 999, 1000}[rng.IntN(6)]
				tk.Ranges[i].N, tk.Ranges[i].Seen, tk.Ranges[i].Open, tk.Ranges[i].Done = n, pool(n), true, false
			}
		case 3: // a drop group covering every row, on every range
			tk.Groups = []tokenGroup{{Hashes: pool([]int{1, 50, 300, costRows}[rng.IntN(4)])}}
			for i := range tk.Ranges {
				tk.Ranges[i].Drop, tk.Ranges[i].Done = 1, false
			}
		case 4: // continuations of other pages, restarts
			if len(others) > 0 {
				o := others[rng.IntN(len(others))]
				for i := range tk.Ranges {
					if i < len(o.Ranges) {
						tk.Ranges[i].Tok = o.Ranges[i].Tok
					}
				}
			}
			for i := range tk.Ranges {
				if rng.IntN(2) == 0 {
					tk.Ranges[i] = tokenRange{ID: tk.Ranges[i].ID, Min: tk.Ranges[i].Min, Max: tk.Ranges[i].Max}
				}
			}
		case 5: // ORDER BY: any values, any _rid, any count
			if tk.Order != nil {
				v := f.values[rng.IntN(len(f.values))]
				b, _ := json.Marshal([]map[string]any{{"item": v}})
				tk.Order.Items = b
				tk.Order.Rid = f.rids[rng.IntN(len(f.rids))]
				tk.Order.N = []int{1, 2, 1000, defaultMaxTokenHashes}[rng.IntN(4)]
			}
		case 6: // ORDER BY: the last row in any range, any tie order
			if tk.Order != nil {
				r := all[rng.IntN(len(all))]
				tk.Order.Min, tk.Order.Max = r.Min, r.Max
				tk.Order.Dir = rng.IntN(3) - 1
				if rng.IntN(4) == 0 {
					tk.Order.Min, tk.Order.Max = "", "FF"
				}
			}
		case 7: // ORDER BY: rows told apart by content, every row tied
			if tk.Order != nil {
				tk.Order.Rid, tk.Order.Seen = "", pool(1+rng.IntN(costRows))
			}
		case 8: // ranges marked done or not started
			for i := range tk.Ranges {
				tk.Ranges[i].Done = rng.IntN(2) == 0
				if tk.Ranges[i].Done {
					tk.Ranges[i].N, tk.Ranges[i].Seen, tk.Ranges[i].Drop = 0, "", 0
				}
			}
		}
	}
}

// TestCraftedTokenCost is the crafted-token fuzzer of the package doc: without TokenSigningKey an
// end user can decode a token, change any field and recompute the tag. Over the issue's setting
// it mutates the tokens of plain, DISTINCT, ORDER BY (unique and tied keys) and TOP queries and
// checks that no crafted token makes a page send more requests than the most a legitimate resume
// of the same query with the same options sends (the figures are in the package doc).
// (Before page sizes, drop groups and positions were bounded, a token whose backend page size was
// 1 cost 51-54 requests, a drop group covering every row 1,200, a full DISTINCT set 400.)
func TestCraftedTokenCost(t *testing.T) {
	t.Parallel() // independent: its own servers
	craftedTokenCost(t, newCostFixture(t), costQueries)
}

// TestCraftedPassthroughTokenCost is TestCraftedTokenCost for queries passed through to one range
// (passthrough.go), in a logical partition of 12 rows read 3 at a time: a legitimate resume costs
// one request, and so does the worst crafted token (most are refused before any request).
func TestCraftedPassthroughTokenCost(t *testing.T) {
	t.Parallel() // independent: its own servers
	craftedTokenCost(t, newCostFixtureOf(t, []string{
		"SELECT c.id, c.n FROM c WHERE c.pk = 'p3' ORDER BY c.n DESC",
		"SELECT TOP 10 c.id, c.v FROM c WHERE c.pk = 'p3' ORDER BY c.v",
		"SELECT * FROM c WHERE c.pk = 'p5'",
	}, 3), nil)
}

// craftedTokenCost mutates the tokens of f's queries (queries, or every query of f) and checks
// that no crafted token makes a page cost more requests than a legitimate resume of its query.
func craftedTokenCost(t *testing.T, f *costFixture, queries []string) {
	t.Helper()
	if queries == nil {
		for q := range f.tokens {
			queries = append(queries, q)
		}
		slices.Sort(queries)
	}
	all, err := f.x.routingMap(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(32, 1))
	iterations := 150
	if testing.Short() {
		iterations = 30
	}
	var worstAll, legitAll pageCost
	for _, q := range queries {
		if len(f.tokens[q]) == 0 {
			t.Fatalf("%q has one page: no token to craft", q)
		}
		var others []token
		for _, tok := range f.tokens[q] {
			others = append(others, decodeForge(t, tok))
		}
		var worst pageCost
		refused := 0
		for range iterations {
			tk := decodeForge(t, f.tokens[q][rng.IntN(len(f.tokens[q]))])
			f.mutate(rng, &tk, all, others)
			forged := tk.encode(nil, f.x.identity)
			cost, _ := f.page(t, q, &forged)
			if cost.requests == 0 {
				refused++
			}
			worst = worst.max(cost)
		}
		legit := f.legit[q]
		t.Logf("%q: legitimate resume at most %d requests, %.1f RU; crafted at most %d requests, %.1f RU (%d of %d refused)",
			q, legit.requests, legit.charge, worst.requests, worst.charge, refused, iterations)
		// Requests are what a token can multiply; the charge of each is the service's for one page
		// of the pager's own size (cosmostest charges per document a request scans, so a page of
		// a position the legitimate reads never reach may cost more RU at the same count: logged).
		if worst.requests > legit.requests {
			t.Errorf("%q: a crafted token cost %d requests / %.1f RU, a legitimate resume at most %d / %.1f", q, worst.requests, worst.charge, legit.requests, legit.charge)
		}
		worstAll, legitAll = worstAll.max(worst), legitAll.max(legit)
	}
	t.Logf("all queries: legitimate at most %d requests, %.1f RU; crafted at most %d requests, %.1f RU", legitAll.requests, legitAll.charge, worstAll.requests, worstAll.charge)
}

// TestIssueCraftedTokens: the issue's crafted tokens, on its setting. On the previous token format
// a backend page size of 1 cost 51 requests for one page, a drop group covering every row with it
// 1,204, a DISTINCT set holding every value 841; a legitimate resume costs at most 7.
func TestIssueCraftedTokens(t *testing.T) {
	t.Parallel() // independent: its own servers
	f := newCostFixture(t)
	every := make([]uint64, len(f.rows))
	for i, r := range f.rows {
		every[i] = rawHash(r)
	}
	values := make([]uint64, 400)
	for i := range values {
		values[i] = rowHash([]byte(fmt.Sprint(i)))
	}
	for _, tc := range []struct {
		name, q string
		change  func(*token)
		refused bool
	}{
		{"a position 999 rows into a page", "SELECT * FROM c", func(tk *token) {
			tk.Ranges[0] = tokenRange{ID: tk.Ranges[0].ID, Min: tk.Ranges[0].Min, Max: tk.Ranges[0].Max, Open: true, N: 999, Seen: packHashes(every[:999])}
		}, true},
		{"a drop group covering every row", "SELECT * FROM c", func(tk *token) {
			tk.Groups = []tokenGroup{{Hashes: packHashes(every)}}
			for i := range tk.Ranges {
				tk.Ranges[i] = tokenRange{ID: tk.Ranges[i].ID, Min: tk.Ranges[i].Min, Max: tk.Ranges[i].Max, Drop: 1}
			}
		}, true},
		{"a drop group of one page on every range", "SELECT * FROM c", func(tk *token) {
			tk.Groups = []tokenGroup{{Hashes: packHashes(every[:costPage-1])}}
			for i := range tk.Ranges {
				tk.Ranges[i] = tokenRange{ID: tk.Ranges[i].ID, Min: tk.Ranges[i].Min, Max: tk.Ranges[i].Max, Drop: 1}
			}
		}, false},
		{"a DISTINCT set holding every value", "SELECT DISTINCT VALUE c.v FROM c", func(tk *token) {
			tk.Dist = packHashes(values)
			for i := range tk.Ranges {
				tk.Ranges[i] = tokenRange{ID: tk.Ranges[i].ID, Min: tk.Ranges[i].Min, Max: tk.Ranges[i].Max}
			}
		}, true},
		{"ORDER BY tied rows dropped up to the last _rid of the container", "SELECT c.id, c.n FROM c ORDER BY c.n DESC", func(tk *token) {
			tk.Order.Items, tk.Order.Rid, tk.Order.N, tk.Order.Dir = []byte(`[{"item":16}]`), f.rids[len(f.rids)-1], defaultMaxTokenHashes, 1
		}, false},
	} {
		tk := decodeForge(t, f.tokens[tc.q][0])
		tc.change(&tk)
		forged := tk.encode(nil, f.x.identity)
		f.s.ResetRequests()
		p := f.x.NewQueryItemsPager(tc.q, &azcosmos.QueryOptions{PageSizeHint: costPage, ContinuationToken: &forged})
		_, err := p.NextPage(context.Background())
		n := f.s.Requests(cosmostest.RequestFilter{ResourceType: cosmostest.ResourceDocument})
		if tc.refused != errors.Is(err, cosmoserr.ErrInvalidToken) || err != nil && !tc.refused {
			t.Errorf("%s: %v (refused: want %v)", tc.name, err, tc.refused)
		}
		if legit := f.legit[tc.q].requests; n > legit {
			t.Errorf("%s: %d requests, a legitimate resume at most %d", tc.name, n, legit)
		}
		t.Logf("%s: %d requests (%v)", tc.name, n, err)
	}
}
