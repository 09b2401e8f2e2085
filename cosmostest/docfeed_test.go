package cosmostest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

type feedPage struct {
	Documents []struct {
		ID string `json:"id"`
		PK string `json:"pk"`
	}
	Count int `json:"_count"`
}

// readDocFeed reads the whole document feed of db/c1 with the given headers, page by page (a
// split between pages when split is set), and returns the ids in order and the number of pages.
func readDocFeed(t *testing.T, s *cosmostest.Server, path string, hdr http.Header, split func(page int)) ([]string, int) {
	t.Helper()
	var ids []string
	cont := ""
	for page := 0; ; page++ {
		h := http.Header{"x-ms-max-item-count": {"7"}}
		for k, v := range hdr {
			h[k] = v
		}
		if cont != "" {
			h["x-ms-continuation"] = []string{cont}
		}
		st, rh, b := rawDo(t, s, path, "docs", "dbs/db/colls/c1", time.Now().UTC().Format(http.TimeFormat), h)
		if st != http.StatusOK {
			t.Fatalf("page %d: %d %s", page, st, b)
		}
		var p feedPage
		if err := json.Unmarshal(b, &p); err != nil || p.Count != len(p.Documents) || rh.Get("x-ms-item-count") != fmt.Sprint(p.Count) {
			t.Fatalf("page %d: %s (%v), item count %q", page, b, err, rh.Get("x-ms-item-count"))
		}
		for _, d := range p.Documents {
			ids = append(ids, d.ID)
		}
		cont = rh.Get("x-ms-continuation")
		if cont == "" {
			return ids, page + 1
		}
		if split != nil {
			split(page)
		}
	}
}

// TestDocumentFeed: GET …/docs without a query lists the documents with paging, of the whole
// container, of one logical partition and of one physical partition, across a split.
func TestDocumentFeed(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(3))
	if err := s.CreateContainer("db", "c1", "/pk"); err != nil {
		t.Fatal(err)
	}
	var all []string
	for i := range 25 {
		id := fmt.Sprintf("d%02d", i)
		all = append(all, id)
		if err := s.Seed("db", "c1", map[string]any{"id": id, "pk": fmt.Sprint("p", i%5)}); err != nil {
			t.Fatal(err)
		}
	}
	const path = "dbs/db/colls/c1/docs"
	ids, pages := readDocFeed(t, s, path, nil, nil)
	if fmt.Sprint(ids) != fmt.Sprint(all) || pages != 4 {
		t.Fatalf("whole feed: %d pages %v", pages, ids)
	}
	// The same with a trailing slash, signed over the container's link as a feed is.
	if ids, _ := readDocFeed(t, s, path+"/", nil, nil); len(ids) != 25 {
		t.Fatalf("trailing slash: %v", ids)
	}
	ids, _ = readDocFeed(t, s, path, http.Header{"x-ms-documentdb-partitionkey": {`["p1"]`}}, nil)
	if fmt.Sprint(ids) != "[d01 d06 d11 d16 d21]" {
		t.Fatalf("logical partition p1: %v", ids)
	}
	var union []string
	for _, r := range []string{"0", "1", "2"} {
		ids, _ := readDocFeed(t, s, path, http.Header{"x-ms-documentdb-partitionkeyrangeid": {r}}, nil)
		union = append(union, ids...)
	}
	sort.Strings(union)
	if fmt.Sprint(union) != fmt.Sprint(all) {
		t.Fatalf("the ranges' feeds: %v", union)
	}
	// A split between pages neither repeats nor loses a document.
	ids, _ = readDocFeed(t, s, path, nil, func(page int) {
		if page == 0 {
			if err := s.SplitRange("db", "c1", "0"); err != nil {
				t.Fatal(err)
			}
		}
	})
	if fmt.Sprint(ids) != fmt.Sprint(all) {
		t.Fatalf("across a split: %v", ids)
	}
	if st, _, _ := rawDo(t, s, path, "docs", "dbs/db/colls/c1", time.Now().UTC().Format(http.TimeFormat),
		http.Header{"x-ms-documentdb-partitionkeyrangeid": {"0"}}); st != http.StatusGone {
		t.Fatalf("a range that split: %d, want 410", st)
	}
	if st, _, _ := rawDo(t, s, path, "docs", "dbs/db/colls/c1", time.Now().UTC().Format(http.TimeFormat),
		http.Header{"x-ms-continuation": {"nonsense"}}); st != http.StatusBadRequest {
		t.Fatalf("a foreign continuation: %d, want 400", st)
	}
	if n := s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReadAllItems, Container: "c1"}); n == 0 {
		t.Fatal("the document feed is not counted as read_all_items")
	}
}
