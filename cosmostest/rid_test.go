package cosmostest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

func selfOf(t *testing.T, b []byte) (self, rid string) {
	t.Helper()
	var m struct {
		Self string `json:"_self"`
		RID  string `json:"_rid"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Self == "" {
		t.Fatalf("no _self in %s: %v", b, err)
	}
	return m.Self, m.RID
}

// TestAddressingByResourceID: the _self links of a database, a container, an item and the
// container's feeds are served, signed as the SDKs sign rid-based paths (the rid lower-cased);
// signed over the path as given they are 401. Responses carry x-ms-alt-content-path, the
// name-based path of the parent.
func TestAddressingByResourceID(t *testing.T) {
	s, cc := setup(t)
	ctx := context.Background()
	if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("a"), []byte(`{"id":"i1","pk":"a"}`), nil); err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, s, nil)
	db, _ := cl.NewDatabase("db")
	dbr, err := db.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := cc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	ir, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("a"), "i1", nil)
	if err != nil {
		t.Fatal(err)
	}
	dbSelf, dbRID := dbr.DatabaseProperties.SelfLink, dbr.DatabaseProperties.ResourceID
	collSelf, collRID := cr.ContainerProperties.SelfLink, cr.ContainerProperties.ResourceID
	itemSelf, itemRID := selfOf(t, ir.Value)
	now := time.Now().UTC().Format(http.TimeFormat)
	pk := http.Header{"x-ms-documentdb-partitionkey": {`["a"]`}}
	for _, tc := range []struct {
		name, path, rtype, link string
		hdr                     http.Header
		id, alt                 string
	}{
		{"database", dbSelf, "dbs", dbRID, nil, "db", ""},
		{"container", collSelf, "colls", collRID, nil, "c1", "dbs/db"},
		{"item", itemSelf, "docs", itemRID, pk, "i1", "dbs/db/colls/c1"},
		{"pkranges", collSelf + "pkranges", "pkranges", collRID, nil, "", "dbs/db/colls/c1"},
	} {
		st, h, b := rawDo(t, s, tc.path, tc.rtype, strings.ToLower(tc.link), now, tc.hdr)
		if st != 200 {
			t.Errorf("%s: GET %s: %d %s", tc.name, tc.path, st, b)
			continue
		}
		if tc.id != "" {
			var m struct{ ID string }
			if err := json.Unmarshal(b, &m); err != nil || m.ID != tc.id {
				t.Errorf("%s: id %q, want %q", tc.name, m.ID, tc.id)
			}
		}
		if got := h.Get(wire.HeaderAltContentPath); got != tc.alt {
			t.Errorf("%s: x-ms-alt-content-path %q, want %q", tc.name, got, tc.alt)
		}
		// The rid as given (mixed case) is not what the service checks.
		if tc.link != strings.ToLower(tc.link) {
			if st, _, _ := rawDo(t, s, tc.path, tc.rtype, tc.link, now, tc.hdr); st != http.StatusUnauthorized {
				t.Errorf("%s: signed over the rid as given: %d, want 401", tc.name, st)
			}
		}
	}
	if n := s.Requests(cosmostest.RequestFilter{Database: "db", Container: "c1", Operation: cosmostest.OpReadContainer}); n < 2 {
		t.Errorf("the rid-based container read is counted under its name: %d", n)
	}
	// An unknown rid is 404.
	if st, _, _ := rawDo(t, s, "dbs/AQAAAA==/", "dbs", "aqaaaa==", now, nil); st != http.StatusNotFound {
		t.Errorf("unknown database rid: %d", st)
	}
}
