package changefeed

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// dotnetFixture returns testdata/dotnet/name with each {{KEY}} replaced by repl[KEY].
func dotnetFixture(t testing.TB, name string, repl map[string]string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/dotnet/" + name)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for k, v := range repl {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	if i := strings.Index(s, "{{"); i >= 0 {
		t.Fatalf("%s: placeholder left at %d", name, i)
	}
	return []byte(s)
}

// A lease .NET wrote reads into lease and writes back with every field .NET reads, unchanged (the
// service's _etag and _ts aside), its timestamp to the 100 ns .NET keeps.
func TestLeaseRoundTripsDotNetFixtures(t *testing.T) {
	repl := map[string]string{"PREFIX": "procacct.documents.azure.com_AWABAA==_AWABAIAAAAE=", "RANGE_ID": "3",
		"MIN": "05C1DFFFFFFFFC", "MAX": "FF", "OWNER": `"dotnet-host-1"`, "CONTINUATION": `"\"1234\""`}
	for _, name := range []string{"lease_v0.json", "lease_v1.json"} {
		raw := dotnetFixture(t, name, repl)
		l, ok, err := decodeLease(raw)
		if err != nil || !ok {
			t.Fatalf("%s: decodeLease: %v, %v", name, ok, err)
		}
		if !modeOK(l.Mode) || l.owner() != "dotnet-host-1" || l.continuation() != `"1234"` ||
			l.feedRange().MinInclusive != "05C1DFFFFFFFFC" || l.feedRange().MaxExclusive != "FF" {
			t.Errorf("%s: read %+v", name, l)
		}
		out, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		var want, got map[string]any
		_ = json.Unmarshal(raw, &want)
		_ = json.Unmarshal(out, &got)
		delete(want, "_etag")
		delete(want, "_ts")
		delete(got, "_etag")
		for k, w := range want {
			gb, _ := json.Marshal(got[k])
			wb, _ := json.Marshal(w)
			if string(gb) != string(wb) {
				t.Errorf("%s: %s written as %s, .NET wrote %s", name, k, gb, wb)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: writes %s, which .NET does not", name, k)
			}
		}
	}
}

// The .lock and .info documents are .NET's.
func TestMarkerDocumentsAreDotNets(t *testing.T) {
	ids := newIDs("proc", "acct.documents.azure.com", "AWABAIAAAAE=")
	if ids.base != "procacct.documents.azure.com_AWABAA==_AWABAIAAAAE=" {
		t.Errorf("prefix %q", ids.base)
	}
	for _, c := range []struct {
		name string
		doc  any
	}{{"lock.json", lockDoc{ID: ids.lock(), TTL: int(lockTTL.Seconds())}}, {"info.json", infoDoc{ID: ids.info()}}} {
		var want, got any
		_ = json.Unmarshal(dotnetFixture(t, c.name, map[string]string{"PREFIX": ids.base}), &want)
		b, _ := json.Marshal(c.doc)
		_ = json.Unmarshal(b, &got)
		wb, _ := json.Marshal(want)
		gb, _ := json.Marshal(got)
		if string(wb) != string(gb) {
			t.Errorf("%s: wrote %s, .NET writes %s", c.name, gb, wb)
		}
	}
}

// Lease modes: .NET's latest-version mode in any case, none, and this package's earlier name are
// read; the all-versions-and-deletes mode is not.
func TestLeaseModes(t *testing.T) {
	for mode, ok := range map[string]bool{"": true, "Incremental Feed": true, "incremental feed": true, "LatestVersion": true,
		"Full-Fidelity Feed": false} {
		if modeOK(mode) != ok {
			t.Errorf("modeOK(%q) = %v", mode, !ok)
		}
	}
}

// A container rid whose database part encodes to a "/" in standard base64 is written with "-", as
// the service writes rids.
func TestDatabaseRID(t *testing.T) {
	if got := databaseRID("AWABAIAAAAE="); got != "AWABAA==" {
		t.Errorf("databaseRID = %q", got)
	}
	if got := databaseRID("----------8="); got != "-----w==" { // standard base64 "//////////8=", "/////w=="
		t.Errorf("databaseRID = %q", got)
	}
}
