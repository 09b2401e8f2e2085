package crosspartition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// diffCase is one query of the differential table.
type diffCase struct {
	Name   string         `json:"name"`
	Query  string         `json:"query"`
	Params map[string]any `json:"params"`
}

// baselineShapes are the shapes of the .NET SDK's query-plan baselines (Aggregates, Distinct,
// GroupBy, MultiOrderBy, NonValueAggregates, OffsetLimit, OrderBy, Top) over this data, in
// addition to the project's query table.
var baselineShapes = []string{
	"SELECT * FROM c ORDER BY c.age",
	"SELECT * FROM c ORDER BY c.age DESC",
	"SELECT c.id, c.age FROM c ORDER BY c.mixed",
	"SELECT c.id FROM c ORDER BY c.name DESC",
	"SELECT VALUE c.id FROM c ORDER BY c.score",
	"SELECT c.id, c.city FROM c ORDER BY c.city ASC, c.name DESC",
	"SELECT VALUE c.id FROM c ORDER BY c.active, c.id",
	"SELECT TOP 5 c.id, c.age FROM c ORDER BY c.age",
	"SELECT TOP 7 VALUE c.mixed FROM c ORDER BY c.mixed DESC",
	"SELECT VALUE c.id FROM c ORDER BY c.id OFFSET 3 LIMIT 5",
	"SELECT VALUE c.name FROM c ORDER BY c.name OFFSET 0 LIMIT 100",
	"SELECT c.id FROM c ORDER BY c.id OFFSET 30 LIMIT 30",
	"SELECT DISTINCT VALUE c.city FROM c ORDER BY c.city",
	"SELECT DISTINCT VALUE c.mixed FROM c",
	"SELECT DISTINCT VALUE c.age FROM c ORDER BY c.age DESC",
	"SELECT DISTINCT c.active FROM c",
	"SELECT DISTINCT TOP 3 VALUE c.city FROM c ORDER BY c.city",
	"SELECT VALUE COUNT(1) FROM c",
	"SELECT VALUE COUNT(c.mixed) FROM c",
	"SELECT VALUE SUM(c.age) FROM c",
	"SELECT VALUE SUM(c.mixed) FROM c",
	"SELECT VALUE AVG(c.score) FROM c",
	"SELECT VALUE MIN(c.mixed) FROM c",
	"SELECT VALUE MAX(c.mixed) FROM c",
	"SELECT VALUE MIN(c.name) FROM c WHERE c.age > 1000",
	"SELECT COUNT(1) AS n, AVG(c.age) AS a, MAX(c.created) AS last FROM c",
	"SELECT SUM(c.score) FROM c",
	"SELECT c.city, COUNT(1) AS n, MIN(c.age) AS youngest FROM c GROUP BY c.city",
	"SELECT c.mixed, COUNT(1) AS n FROM c GROUP BY c.mixed",
	"SELECT VALUE COUNT(1) FROM c GROUP BY c.active",
	"SELECT * FROM c",
	"SELECT VALUE c.id FROM c WHERE c.pk = 'a1'",
	"SELECT VALUE c.id FROM c WHERE c.pk IN ('a', 'b2', 'c3')",
	"SELECT TOP 3 VALUE c.id FROM c",
	"SELECT c.id FROM c OFFSET 2 LIMIT 4",
}

// loadDiffTable returns the project's query table (the queries that make sense across
// partitions: no expected error, a FROM over the container) plus the baseline shapes.
func loadDiffTable(t *testing.T) []diffCase {
	t.Helper()
	b, err := os.ReadFile("../internal/query/testdata/queries.json")
	if err != nil {
		t.Fatal(err)
	}
	var all []struct {
		diffCase
		ExpectError string `json:"expectError"`
	}
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	from := regexp.MustCompile(`(?i)\bFROM\s+(c|root|c\s+AS|r|x|i\s+IN|t\s+IN|a\s+IN|root\s+r|c\s+x)\b`)
	var out []diffCase
	for _, c := range all {
		if c.ExpectError != "" || !from.MatchString(c.Query) || strings.Contains(c.Query, "GetCurrent") {
			continue
		}
		out = append(out, c.diffCase)
	}
	for i, q := range baselineShapes {
		out = append(out, diffCase{Name: fmt.Sprint("baseline ", i), Query: q})
	}
	return out
}

// diffDocs are the table's documents, each also copied three times under other ids and partition
// keys: mixed types, missing properties and duplicate values spread over every partition.
func diffDocs(t *testing.T) []map[string]any {
	t.Helper()
	b, err := os.ReadFile("../internal/query/testdata/documents.json")
	if err != nil {
		t.Fatal(err)
	}
	var base []map[string]any
	if err := json.Unmarshal(b, &base); err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(base)
	for k := 1; k <= 3; k++ {
		for _, d := range base {
			c := map[string]any{}
			for n, v := range d {
				c[n] = v
			}
			c["id"] = fmt.Sprint(d["id"], "-", k)
			c["pk"] = fmt.Sprint(d["pk"], k)
			out = append(out, c)
		}
	}
	return out
}

var diffIndexing = &azcosmos.IndexingPolicy{
	Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
	IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
	CompositeIndexes: [][]azcosmos.CompositeIndex{
		{{Path: "/created", Order: azcosmos.CompositeIndexAscending}, {Path: "/id", Order: azcosmos.CompositeIndexAscending}},
		{{Path: "/city", Order: azcosmos.CompositeIndexAscending}, {Path: "/name", Order: azcosmos.CompositeIndexDescending}},
		{{Path: "/active", Order: azcosmos.CompositeIndexAscending}, {Path: "/id", Order: azcosmos.CompositeIndexAscending}},
	},
}

func diffContainer(t *testing.T, n int, docs []map[string]any) (*cosmostest.Server, *Container) {
	t.Helper()
	props := &azcosmos.ContainerProperties{
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2},
		IndexingPolicy:         diffIndexing,
	}
	s, c := newContainer(t, n, props, cosmostest.WithHTTP())
	put(t, c, docs...)
	return s, mustNew(t, c)
}

func params(m map[string]any) []azcosmos.QueryParameter {
	var ps []azcosmos.QueryParameter
	for k, v := range m {
		ps = append(ps, azcosmos.QueryParameter{Name: k, Value: v})
	}
	slices.SortFunc(ps, func(a, b azcosmos.QueryParameter) int { return strings.Compare(a.Name, b.Name) })
	return ps
}

// normal re-encodes a JSON value so that property order and number spelling do not matter.
func normal(b []byte) string {
	v, err := decode(b)
	if err != nil {
		return "!" + string(b)
	}
	out, _ := json.Marshal(canonical(stripSystem(v)))
	return string(out)
}

// stripSystem drops the properties the two servers assign differently (resource ids and links).
func stripSystem(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "_rid")
		delete(x, "_self")
		delete(x, "_ts")
		for k, e := range x {
			x[k] = stripSystem(e)
		}
	case []any:
		for i, e := range x {
			x[i] = stripSystem(e)
		}
	}
	return v
}

func normals(rows []json.RawMessage) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = normal(r)
	}
	return out
}

// expected is what one partition answers, with the ORDER BY values of each row when the query
// orders (from the service's own rewritten query run on the one range).
type expected struct {
	rows    []string
	keys    [][]any // nil unless the query is a streaming ORDER BY
	limited bool    // TOP or LIMIT cut the results
	// resumable is false for shapes whose tokens only continue their own pager.
	resumable bool
}

func reference(t *testing.T, ref *Container, q diffCase) (*expected, error) {
	t.Helper()
	ps := params(q.Params)
	ctx := context.Background()
	all, err := ref.routingMap(ctx)
	if err != nil {
		return nil, err
	}
	var rows []json.RawMessage
	var cont string
	for {
		resp, err := ref.page(inRange(ctx, all[0].ID), nil, q.Query, ps, cont, 0, nil)
		if err != nil {
			return nil, err
		}
		for _, it := range resp.Items {
			rows = append(rows, it)
		}
		if resp.ContinuationToken == nil {
			break
		}
		cont = *resp.ContinuationToken
	}
	e := &expected{rows: normals(rows)}
	p, _, err := ref.fetchPlan(ctx, nil, q.Query, ps, nil)
	if err != nil {
		return nil, err
	}
	ex := &execution{c: ref, touched: map[string]bool{}}
	if err := ex.configure(q.Query, p); err != nil {
		return e, nil //nolint:nilerr // the engine refuses it; compared as refused
	}
	e.limited = ex.take >= 0
	e.resumable = ex.shape == shapePlain || ex.shape == shapeOrderBy
	if ex.shape != shapeOrderBy {
		return e, nil
	}
	var keyed [][]any
	cont = ""
	for {
		resp, err := ref.page(inRange(ctx, all[0].ID), nil, ex.query, ps, cont, 1000, nil)
		if err != nil {
			return nil, err
		}
		rs, err := ex.parseRows(resp.Items)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if ex.emit(r) {
				keyed = append(keyed, r.keys)
			}
		}
		if resp.ContinuationToken == nil {
			break
		}
		cont = *resp.ContinuationToken
	}
	if len(keyed) != len(e.rows) {
		// The server's rewritten query does not agree with the query on one partition: compare
		// without ORDER BY values (the answer must still be right).
		t.Logf("%s: the rewritten query returns %d rows on one partition, the query %d", q.Query, len(keyed), len(e.rows))
		return e, nil
	}
	e.keys = keyed
	return e, nil
}

// compare checks got (rows and their ORDER BY values) against want.
func compare(want *expected, got []string, gotKeys [][]any, desc []bool) string {
	if len(got) != len(want.rows) {
		return fmt.Sprintf("%d rows, want %d:\n got %v\nwant %v", len(got), len(want.rows), got, want.rows)
	}
	if want.keys == nil {
		if want.limited {
			return "" // TOP/LIMIT without ORDER BY: any rows will do; the count is checked
		}
		a, b := slices.Clone(got), slices.Clone(want.rows)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return fmt.Sprintf("rows differ (as multisets):\n got %v\nwant %v", got, want.rows)
		}
		return ""
	}
	// Ordered: the ORDER BY values must follow the same sequence, and each run of equal values
	// must hold the same rows (in any order: ties are broken by partition, as the SDKs do),
	// except a run cut by TOP/LIMIT, which may hold any of the tied rows.
	for i := range got {
		// A query passed through to one range (passthrough.go) has no ORDER BY values: the
		// backend ordered its rows, which the runs of tied rows below still check.
		if gotKeys[i] != nil && compareKeys(gotKeys[i], want.keys[i], desc) != 0 {
			return fmt.Sprintf("ORDER BY values differ at row %d: got %v, want %v\n got %v\nwant %v", i, gotKeys[i], want.keys[i], got, want.rows)
		}
	}
	for i := 0; i < len(got); {
		j := i + 1
		for j < len(got) && compareKeys(want.keys[j], want.keys[i], desc) == 0 {
			j++
		}
		if j == len(got) && want.limited {
			break
		}
		a, b := slices.Clone(got[i:j]), slices.Clone(want.rows[i:j])
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return fmt.Sprintf("rows %d..%d (tied) differ:\n got %v\nwant %v", i, j, got, want.rows)
		}
		i = j
	}
	return ""
}

// TestDifferential runs every query of the table across 1, 4 and 8 physical partitions, page by
// page (each page from the previous page's token through a new pager) at page sizes 1, 7 and the
// default, and with a split of a range in the middle of a read, and compares with one partition
// holding the same documents.
func TestDifferential(t *testing.T) {
	t.Parallel() // independent: its own servers
	cases := loadDiffTable(t)
	docs := diffDocs(t)
	_, ref := diffContainer(t, 1, docs)
	servers := map[int]*Container{}
	for _, n := range []int{1, 4, 8} {
		_, servers[n] = diffContainer(t, n, docs)
	}
	var compared, refused, invalid, splits int
	var splitSrv *cosmostest.Server
	var splitX *Container
	for qi, q := range cases {
		want, err := reference(t, ref, q)
		if err != nil {
			// The service refuses it (on one partition too): across partitions it must be refused
			// as well, never answered.
			invalid++
			if rows, err := readAll(t, servers[8], q.Query, params(q.Params), 0, nil); err == nil {
				t.Errorf("%q is refused on one partition but answered across partitions: %s", q.Query, rows)
			}
			continue
		}
		ps := params(q.Params)
		ok := true
		check := func(label string, x *Container, size int32, between func(int)) {
			var keys [][]any
			x.observe = func(k []any, _ []byte) { keys = append(keys, k) }
			defer func() { x.observe = nil }()
			read := readAll
			if !want.resumable {
				read = readOnePager
			}
			rows, err := read(t, x, q.Query, ps, size, between)
			if errors.Is(err, cosmoserr.ErrUnsupported) {
				if ok {
					refused++
					t.Logf("refused %q: %v", q.Query, err)
				}
				ok = false
				return
			}
			if err != nil {
				t.Errorf("%s %q: %v", label, q.Query, err)
				ok = false
				return
			}
			p, _, _ := ref.fetchPlan(context.Background(), nil, q.Query, ps, nil)
			var desc []bool
			for _, d := range p.QueryInfo.OrderBy {
				desc = append(desc, d == "Descending")
			}
			if msg := compare(want, normals(rows), keys, desc); msg != "" {
				t.Errorf("%s %q: %s", label, q.Query, msg)
				ok = false
			}
		}
		// Every query on 1, 4 and 8 partitions and at page sizes 1, 7 and the default (a covering
		// set of runs); every third query on every combination. Run time: each page of a query
		// resumed from its token in a new pager asks every range again.
		type run struct {
			n    int
			size int32
		}
		runs := []run{{1, 0}, {8, 0}, {4, 7}, {8, 1}}
		if qi%3 == 0 {
			runs = []run{{1, 0}, {4, 0}, {8, 0}, {1, 7}, {4, 7}, {8, 7}, {4, 1}, {8, 1}}
		}
		for _, r := range runs {
			if !ok || r.size == 1 && len(want.rows) > 12 {
				continue
			}
			check(fmt.Sprintf("%d partitions, page size %d:", r.n, r.size), servers[r.n], r.size, nil)
		}
		if ok && len(want.rows) > 7 {
			// A split of a range after the first page, on a server shared by a few
			// queries (it accumulates ranges, and its routing map is refreshed on every 410).
			if splits%6 == 0 {
				splitSrv, splitX = diffContainer(t, 8, docs)
			}
			splits++
			check("8 partitions, a split after page 1:", splitX, 7, func(page int) {
				if page == 0 {
					splitFirst(t, splitSrv, splitX)
				}
			})
		}
		if ok {
			compared++
		}
	}
	t.Logf("%d queries: %d compared, %d refused (cosmoserr.ErrUnsupported), %d refused by the service on one partition and across partitions", len(cases), compared, refused, invalid)
	if compared+refused < 150 {
		t.Errorf("only %d queries ran; the table needs at least 150", compared+refused)
	}
}

// splitFirst splits the first partition key range that can still be split, as the service does
// when a partition grows.
func splitFirst(t *testing.T, s *cosmostest.Server, x *Container) {
	t.Helper()
	all, err := x.routingMap(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		if err := s.SplitRange("db", "c", r.ID); err == nil {
			return
		}
	}
	t.Fatal("no range could be split")
}
