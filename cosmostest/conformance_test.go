package cosmostest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// conformanceCase is one example of the query reference: the items it reads, the query and the
// documented result (or the service's error), with the page it comes from. Skip says why an
// example is not reproduced (the runner still parses it). IndexingPolicy is the container's
// policy where the example needs one (a composite index for an ORDER BY on two paths). Now is the
// instant (RFC 3339) the page's answer was computed at, for the functions that read the clock: the
// case runs on a server whose clock shows it.
type conformanceCase struct {
	Page      string            `json:"page"`
	Name      string            `json:"name"`
	Items     []json.RawMessage `json:"items"`
	Query     string            `json:"query"`
	Result    []json.RawMessage `json:"result"`
	Error     *struct{ Status, Substatus int }
	Skip      string `json:"skip"`
	Unordered bool   `json:"unordered"`
	Now       string `json:"now"`

	IndexingPolicy *azcosmos.IndexingPolicy `json:"indexingPolicy"`
}

// conformancePK is the partition key path of the corpus's containers; the runner writes it into
// the items (the reference's items have none) and removes it from the results.
const conformancePK = "conformancePk"

// TestQueryConformance runs the conformance corpus (../internal/query/testdata/conformance/*.json,
// examples of the Azure Cosmos DB for NoSQL query reference, each citing its page) through the
// real azcosmos client against cosmostest, one container per example, and compares each result
// with the documented one as JSON values (in order unless the case says unordered).
func TestQueryConformance(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../internal/query/testdata/conformance/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance files: %v", err)
	}
	s := cosmostest.NewServer(t)
	c := newClient(t, s, nil)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("conformance")
	ran, skipped := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var corpus struct{ Cases []conformanceCase }
		if err := json.Unmarshal(b, &corpus); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i, tc := range corpus.Cases {
			label := filepath.Base(f) + " " + strconv.Itoa(i) + " (" + tc.Page + ": " + tc.Name + ")"
			if tc.Page == "" || tc.Query == "" || (tc.Error == nil) == (tc.Result == nil) {
				t.Fatalf("%s: a case needs page, query, and a result or an error", label)
			}
			if tc.Skip != "" {
				skipped++
				continue
			}
			ran++
			cl := c
			if tc.Now != "" {
				now, err := time.Parse(time.RFC3339Nano, tc.Now)
				if err != nil {
					t.Fatalf("%s: now: %v", label, err)
				}
				cl = newClient(t, cosmostest.NewServer(t, cosmostest.WithClock(func() time.Time { return now })), nil)
			}
			cc := newContainer(t, cl, "conf-"+strconv.Itoa(ran), &azcosmos.ContainerProperties{
				PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/" + conformancePK}},
				IndexingPolicy:         tc.IndexingPolicy})
			for _, it := range tc.Items {
				// The partition key goes last, the item's own properties keeping their order.
				var m map[string]any
				if err := json.Unmarshal(it, &m); err != nil {
					t.Fatalf("%s: item: %v", label, err)
				}
				body := bytes.Clone(bytes.TrimSuffix(bytes.TrimSpace(it), []byte("}")))
				if len(m) > 0 {
					body = append(body, ',')
				}
				doc := append(body, `"`+conformancePK+`":"conformance"}`...)
				if _, err := cc.CreateItem(ctx, pk, doc, nil); err != nil {
					t.Fatalf("%s: %v", label, err)
				}
			}
			pages, err := drainQuery(ctx, t, cc, pk, tc.Query, nil)
			if tc.Error != nil {
				st, sub := status(t, err)
				if st != tc.Error.Status || sub != strconv.Itoa(tc.Error.Substatus) {
					t.Errorf("%s: %v (status %d/%s), want %d/%d", label, err, st, sub, tc.Error.Status, tc.Error.Substatus)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", label, err)
				continue
			}
			var got, want []any
			rows := allItems(pages)
			if len(rows) == len(tc.Result) && !tc.Unordered {
				for i, r := range rows {
					if g, w := propertyOrder(t, r), propertyOrder(t, tc.Result[i]); !slices.Equal(g, w) {
						t.Errorf("%s:\n%s\nresult %d: properties in order %q, want %q", label, tc.Query, i, g, w)
					}
				}
			}
			for _, it := range rows {
				var v any
				if err := json.Unmarshal(it, &v); err != nil {
					t.Fatal(err)
				}
				if m, ok := v.(map[string]any); ok {
					delete(m, conformancePK)
				}
				got = append(got, stripSystem(v))
			}
			for _, r := range tc.Result {
				var v any
				_ = json.Unmarshal(r, &v)
				want = append(want, v)
			}
			if msg := sameResults(got, want, !tc.Unordered); msg != "" {
				t.Errorf("%s:\n%s\n%s", label, tc.Query, msg)
			}
		}
	}
	t.Logf("conformance corpus: %d examples run, %d not reproducible (listed with reasons)", ran, skipped)
}

// propertyOrder lists the property names of a JSON value in the order of its text, depth first
// (an object's names between "{" and "}"), without the system properties and the corpus's
// partition key: results must list properties in the order the service does (a document's stored
// order, a projection's SELECT order).
func propertyOrder(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	var out []string
	var inObject []bool // per open delimiter: an object, whose next string token is a name
	var expectKey []bool
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		switch x := tok.(type) {
		case json.Delim:
			switch x {
			case '{', '[':
				out = append(out, string(x))
				inObject = append(inObject, x == '{')
				expectKey = append(expectKey, x == '{')
				continue
			default:
				out = append(out, string(x))
				inObject, expectKey = inObject[:len(inObject)-1], expectKey[:len(expectKey)-1]
			}
		case string:
			if n := len(inObject); n > 0 && inObject[n-1] && expectKey[n-1] {
				expectKey[n-1] = false
				switch x {
				case "_rid", "_self", "_etag", "_attachments", "_ts", conformancePK:
				default:
					out = append(out, x)
				}
				continue
			}
		}
		if n := len(inObject); n > 0 && inObject[n-1] {
			expectKey[n-1] = true
		}
	}
}
