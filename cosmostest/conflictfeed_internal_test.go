package cosmostest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// conflictServer starts a server with container db/c (partition key /pk) and returns it.
func conflictServer(t *testing.T) *Server {
	t.Helper()
	s := NewServer(t)
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	custom := &azcosmos.ConflictResolutionPolicy{Mode: azcosmos.ConflictResolutionModeCustom}
	props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, ConflictResolutionPolicy: custom}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// record calls recordConflict under the server lock, as the replication code does.
func record(t *testing.T, s *Server, rec conflictRecord) {
	t.Helper()
	s.s.mu.Lock()
	defer s.s.mu.Unlock()
	c, err := s.s.container("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	s.s.recordConflict(c, rec)
}

// signedDo sends a request signed with the server's key through internal/wire, as a client
// without azcosmos (the conflicts reader) does.
func signedDo(t *testing.T, s *Server, method, path, resourceType, link string, hdr map[string]string, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(s.Endpoint(), "/")+"/"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	req.Header.Set(wire.HeaderDate, date)
	req.Header.Set(wire.HeaderVersion, wire.APIVersion)
	req.Header.Set(wire.HeaderAuthorization, wire.MasterKeyAuthorization(s.s.key, method, resourceType, link, date))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: s.s.transport}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

type conflictPage struct {
	Rid       string `json:"_rid"`
	Count     int    `json:"_count"`
	Conflicts []struct {
		ID            string `json:"id"`
		Rid           string `json:"_rid"`
		Self          string `json:"_self"`
		ETag          string `json:"_etag"`
		TS            int64  `json:"_ts"`
		OperationType string `json:"operationType"`
		ResourceType  string `json:"resourceType"`
		ResourceID    string `json:"resourceId"`
		Content       string `json:"content"`
		LSN           int64  `json:"conflict_lsn"`
	} `json:"Conflicts"`
}

// TestConflictFeed records conflicts directly (deduplicated as two regions reporting one conflict
// would) and reads, pages, queries and deletes them through signed HTTP requests.
func TestConflictFeed(t *testing.T) {
	s := conflictServer(t)
	loser := &item{pk: []any{"p"}, id: "a", raw: []byte(`{"id":"a","pk":"p","v":2,"_etag":"\"e2\""}`), etag: `"e2"`, rid: "rid-a"}
	rec := conflictRecord{op: "replace", rid: "rid-a", key: itemKey([]any{"p"}, "a"), pk: []any{"p"}, id: "a", loser: loser, lsn: 7}
	record(t, s, rec)
	record(t, s, rec) // the other region reports the same losing version
	other := *loser
	other.etag, other.raw = `"e3"`, []byte(`{"id":"a","pk":"p","v":3}`)
	rec2 := rec
	rec2.loser, rec2.lsn = &other, 9
	record(t, s, rec2)
	record(t, s, conflictRecord{op: "delete", rid: "rid-b", key: itemKey([]any{"q"}, "b"), pk: []any{"q"}, id: "b", lsn: 11})
	record(t, s, conflictRecord{op: "delete", rid: "rid-b", key: itemKey([]any{"q"}, "b"), pk: []any{"q"}, id: "b", lsn: 12})

	feed := func(cont string) (conflictPage, string) {
		h := map[string]string{"x-ms-max-item-count": "2"}
		if cont != "" {
			h["x-ms-continuation"] = cont
		}
		status, hdr, body := signedDo(t, s, http.MethodGet, "dbs/db/colls/c/conflicts", "conflicts", "dbs/db/colls/c", h, "")
		if status != http.StatusOK {
			t.Fatalf("read feed: %d %s", status, body)
		}
		var p conflictPage
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		if hdr.Get("x-ms-item-count") != "" && p.Count != len(p.Conflicts) {
			t.Fatalf("_count %d for %d conflicts", p.Count, len(p.Conflicts))
		}
		return p, hdr.Get("x-ms-continuation")
	}
	p1, cont := feed("")
	if len(p1.Conflicts) != 2 || cont == "" {
		t.Fatalf("first page: %d conflicts, continuation %q", len(p1.Conflicts), cont)
	}
	p2, cont2 := feed(cont)
	if len(p2.Conflicts) != 1 || cont2 != "" {
		t.Fatalf("second page: %d conflicts, continuation %q", len(p2.Conflicts), cont2)
	}
	first := p1.Conflicts[0]
	if first.OperationType != "replace" || first.ResourceType != "document" || first.ResourceID != "rid-a" || first.LSN != 7 ||
		first.Content != string(loser.raw) || first.Rid != first.ID || !strings.HasSuffix(first.Self, "/conflicts/"+first.ID+"/") || first.ETag == "" || first.TS == 0 {
		t.Fatalf("conflict = %+v", first)
	}
	if del := p2.Conflicts[0]; del.OperationType != "delete" || del.Content != "" || del.LSN != 11 {
		t.Fatalf("delete conflict = %+v", del)
	}

	// Point read, then delete with the item's partition key; a wrong one is 404.
	status, _, body := signedDo(t, s, http.MethodGet, "dbs/db/colls/c/conflicts/"+first.ID, "conflicts", "dbs/db/colls/c/conflicts/"+first.ID, nil, "")
	if status != http.StatusOK || !strings.Contains(string(body), `"conflict_lsn":7`) {
		t.Fatalf("read: %d %s", status, body)
	}
	link := "dbs/db/colls/c/conflicts/" + first.ID
	if status, _, _ := signedDo(t, s, http.MethodDelete, link, "conflicts", link, map[string]string{"x-ms-documentdb-partitionkey": `["other"]`}, ""); status != http.StatusNotFound {
		t.Fatalf("delete with another partition key: %d, want 404", status)
	}
	if status, _, body := signedDo(t, s, http.MethodDelete, link, "conflicts", link, map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}, ""); status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", status, body)
	}
	if status, _, _ := signedDo(t, s, http.MethodGet, link, "conflicts", link, nil, ""); status != http.StatusNotFound {
		t.Fatalf("read after delete: %d, want 404", status)
	}
	record(t, s, rec) // a late report of the resolved conflict does not bring it back
	p, _ := feed("")
	if len(p.Conflicts) != 2 || p.Conflicts[0].LSN != 9 {
		t.Fatalf("after delete: %+v", p.Conflicts)
	}

	// A query over the conflicts, and a continuation the feed never gave.
	status, _, body = signedDo(t, s, http.MethodPost, "dbs/db/colls/c/conflicts", "conflicts", "dbs/db/colls/c",
		map[string]string{"Content-Type": "application/query+json", "x-ms-documentdb-isquery": "true"}, `{"query":"SELECT * FROM c WHERE c.operationType = 'delete'"}`)
	if status != http.StatusOK {
		t.Fatalf("query: %d %s", status, body)
	}
	var q conflictPage
	if err := json.Unmarshal(body, &q); err != nil || len(q.Conflicts) != 1 || q.Conflicts[0].ResourceID != "rid-b" {
		t.Fatalf("query: %s (%v)", body, err)
	}
	if status, _, _ := signedDo(t, s, http.MethodGet, "dbs/db/colls/c/conflicts", "conflicts", "dbs/db/colls/c", map[string]string{"x-ms-continuation": "bogus"}, ""); status != http.StatusBadRequest {
		t.Fatalf("bogus continuation: %d, want 400", status)
	}
	// The signature's resource type is "conflicts": signing as "docs" is 401.
	if status, _, _ := signedDo(t, s, http.MethodGet, "dbs/db/colls/c/conflicts", "docs", "dbs/db/colls/c", nil, ""); status != http.StatusUnauthorized {
		t.Fatalf("signed as docs: %d, want 401", status)
	}
	// Conflicts cannot be created; a missing container is 404.
	if status, _, _ := signedDo(t, s, http.MethodPost, "dbs/db/colls/c/conflicts", "conflicts", "dbs/db/colls/c", nil, `{"id":"x"}`); status != http.StatusMethodNotAllowed {
		t.Fatalf("create: %d, want 405", status)
	}
	if status, _, _ := signedDo(t, s, http.MethodGet, "dbs/db/colls/nope/conflicts", "conflicts", "dbs/db/colls/nope", nil, ""); status != http.StatusNotFound {
		t.Fatalf("missing container: %d, want 404", status)
	}
}

// TestConflictFeedEmpty: a container without conflicts has an empty feed.
func TestConflictFeedEmpty(t *testing.T) {
	s := conflictServer(t)
	status, _, body := signedDo(t, s, http.MethodGet, "dbs/db/colls/c/conflicts", "conflicts", "dbs/db/colls/c", nil, "")
	if status != http.StatusOK || !strings.Contains(string(body), `"Conflicts":[],"_count":0`) {
		t.Fatalf("empty feed: %d %s", status, body)
	}
}
