package epk_test

// Differential test against the SDK's own EPK routing. The SDK keeps its EPK code internal; the one
// exported path that exposes it is ReadManyItems, which hashes each item's partition key client side
// and sends one query per physical partition key range, naming the range in
// x-ms-documentdb-partitionkeyrangeid. A small stub gateway below serves a container whose ranges
// are cut at the EPKs of other keys (so a wrong hash, or a wrong tie-break at a boundary, lands in a
// different range), records which range each item id was sent to, and the test requires that range
// to be the one epk.Hash and Range.Contains pick. cosmostest itself is built on this package, so it
// cannot serve as the independent side of this comparison.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/internal/epk"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// stubGateway answers the requests ReadManyItems makes for one container and records the range each
// item id was routed to.
type stubGateway struct {
	pkDef  map[string]any
	ranges []epk.Range

	mu     sync.Mutex
	routed map[string][]string // item id -> range ids it was queried in
}

func (g *stubGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	base := "http://" + r.Host + "/"
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/":
		loc := []map[string]string{{"name": "West US", "databaseAccountEndpoint": base}}
		writeJSON(w, map[string]any{"id": "stub", "writableLocations": loc, "readableLocations": loc,
			"userConsistencyPolicy": map[string]string{"defaultConsistencyLevel": "Session"}})
	case r.Method == http.MethodGet && r.URL.Path == "/dbs/db/colls/c":
		writeJSON(w, map[string]any{"id": "c", "_rid": "AAAAAPxB8gE=", "_self": "dbs/AAAAAA==/colls/AAAAAPxB8gE=/",
			"_etag": `"1"`, "_ts": 1, "partitionKey": g.pkDef})
	case r.Method == http.MethodGet && r.URL.Path == "/dbs/db/colls/c/pkranges":
		w.Header().Set("etag", `"pkr-1"`)
		if r.Header.Get("If-None-Match") == `"pkr-1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		list := make([]map[string]any, len(g.ranges))
		for i, rg := range g.ranges {
			list[i] = map[string]any{"id": strconv.Itoa(i), "minInclusive": rg.MinInclusive, "maxExclusive": rg.MaxExclusive,
				"ridPrefix": i, "throughputFraction": 1, "status": "online", "parents": []string{}, "_ts": 1}
		}
		writeJSON(w, map[string]any{"_rid": "AAAAAPxB8gE=", "PartitionKeyRanges": list, "_count": len(list)})
	case r.Method == http.MethodPost && r.URL.Path == "/dbs/db/colls/c/docs":
		var q struct {
			Parameters []struct {
				Name  string `json:"name"`
				Value any    `json:"value"`
			} `json:"parameters"`
		}
		if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rangeID := r.Header.Get("x-ms-documentdb-partitionkeyrangeid")
		g.mu.Lock()
		for _, p := range q.Parameters {
			if id, ok := p.Value.(string); ok && strings.HasPrefix(p.Name, "@param_id") {
				g.routed[id] = append(g.routed[id], rangeID)
			}
		}
		g.mu.Unlock()
		writeJSON(w, map[string]any{"_rid": "AAAAAPxB8gE=", "Documents": []any{}, "_count": 0})
	default:
		http.Error(w, "stub gateway: unexpected "+r.Method+" "+r.URL.Path, http.StatusNotImplemented)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	_ = json.NewEncoder(w).Encode(v)
}

// boundariesFrom returns ranges cut at the given EPKs (sorted, deduplicated; some truncated to odd
// short lengths, as boundaries after splits can be).
func boundariesFrom(epks []string) []epk.Range {
	cuts := slices.Clone(epks)
	for i := range cuts {
		if i%5 == 0 && len(cuts[i]) > 10 {
			cuts[i] = cuts[i][:2+i%9]
		}
	}
	sort.Slice(cuts, func(i, j int) bool { return epk.Compare(cuts[i], cuts[j]) < 0 })
	cuts = slices.CompactFunc(cuts, func(a, b string) bool { return epk.Compare(a, b) == 0 })
	out := make([]epk.Range, 0, len(cuts)+1)
	lower := ""
	for _, c := range cuts {
		if epk.Compare(c, "") == 0 {
			continue
		}
		out = append(out, epk.Range{MinInclusive: lower, MaxExclusive: c})
		lower = c
	}
	return append(out, epk.Range{MinInclusive: lower, MaxExclusive: epk.MaxEPK})
}

func sdkKey(comps []any) azcosmos.PartitionKey {
	if len(comps) == 1 && comps[0] == nil {
		return azcosmos.NullPartitionKey
	}
	pk := azcosmos.NewPartitionKey()
	for _, c := range comps {
		switch v := c.(type) {
		case string:
			pk = pk.AppendString(v)
		case float64:
			pk = pk.AppendNumber(v)
		case bool:
			pk = pk.AppendBool(v)
		case nil:
			pk = pk.AppendNull()
		}
	}
	return pk
}

func randomComps(r *rand.Rand, n int) []any {
	out := make([]any, n)
	for i := range out {
		switch r.IntN(6) {
		case 0:
			out[i] = float64(r.IntN(100000) - 50000)
		case 1:
			out[i] = r.NormFloat64() * 1e6
		case 2:
			out[i] = r.IntN(2) == 0
		case 3:
			out[i] = ""
		default:
			out[i] = fmt.Sprintf("k%d-%s", r.IntN(1_000_000), strings.Repeat("é", r.IntN(12)))
		}
	}
	return out
}

func TestRoutingMatchesSDK(t *testing.T) {
	tests := []struct {
		name    string
		kind    string
		version int // as stored on the container; 0 means absent (V1)
		paths   int
		prefix  bool // also send MultiHash prefix keys
	}{
		{"Hash/v2", epk.KindHash, 2, 1, false},
		{"Hash/v1", epk.KindHash, 1, 1, false},
		{"Hash/absent version", epk.KindHash, 0, 1, false},
		{"MultiHash/v2/2 paths", epk.KindMultiHash, 2, 2, true},
		{"MultiHash/v2/3 paths", epk.KindMultiHash, 2, 3, true},
	}
	for ti, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(ti), 42))
			const nKeys = 150
			keys := make([][]any, nKeys)
			epks := make([]string, nKeys)
			for i := range keys {
				keys[i] = randomComps(r, tc.paths)
				if i == 0 {
					keys[i] = []any{nil}[:min(1, tc.paths)] // null component
					keys[i] = append(keys[i], randomComps(r, tc.paths-1)...)
				}
				epks[i] = epk.Hash(keys[i], tc.kind, tc.version)
			}
			// Cut ranges at every third key's EPK, so a third of the keys sit exactly on a boundary.
			var cuts []string
			for i := 0; i < nKeys; i += 3 {
				cuts = append(cuts, epks[i])
			}
			pkDef := map[string]any{"kind": tc.kind, "paths": []string{"/a", "/b", "/c"}[:tc.paths]}
			if tc.version != 0 {
				pkDef["version"] = tc.version
			}
			g := &stubGateway{pkDef: pkDef, ranges: boundariesFrom(cuts), routed: map[string][]string{}}
			srv := httptest.NewServer(g)
			t.Cleanup(srv.Close)

			cred, err := azcosmos.NewKeyCredential(wire.EmulatorKey)
			if err != nil {
				t.Fatal(err)
			}
			client, err := azcosmos.NewClientWithKey(srv.URL+"/", cred, nil)
			if err != nil {
				t.Fatal(err)
			}
			container, err := client.NewContainer("db", "c")
			if err != nil {
				t.Fatal(err)
			}

			want := map[string][]string{}
			var items []azcosmos.ItemIdentity
			for i, comps := range keys {
				id := "full-" + strconv.Itoa(i)
				items = append(items, azcosmos.ItemIdentity{ID: id, PartitionKey: sdkKey(comps)})
				want[id] = rangesFor(g.ranges, epks[i], "")
				if tc.prefix && i%4 == 0 {
					for n := 1; n < tc.paths; n++ {
						id := fmt.Sprintf("prefix%d-%d", n, i)
						lo := epk.Hash(comps[:n], tc.kind, tc.version)
						items = append(items, azcosmos.ItemIdentity{ID: id, PartitionKey: sdkKey(comps[:n])})
						want[id] = rangesFor(g.ranges, lo, lo+"FF")
					}
				}
			}
			if _, err := container.ReadManyItems(context.Background(), items, nil); err != nil {
				t.Fatalf("ReadManyItems: %v", err)
			}
			used := map[string]bool{}
			for id, w := range want {
				got := slices.Clone(g.routed[id])
				slices.Sort(got)
				if !slices.Equal(got, w) {
					t.Errorf("item %s: SDK queried ranges %v, epk picks %v", id, got, w)
				}
				for _, rid := range got {
					used[rid] = true
				}
			}
			if len(used) < len(g.ranges)/2 {
				t.Errorf("only %d of %d ranges used: the comparison is too coarse", len(used), len(g.ranges))
			}
		})
	}
}

// rangesFor returns the ids (sorted as strings) of the ranges that hold the EPK point e (end == ""),
// or that overlap the EPK range [e, end), by epk's rules.
func rangesFor(ranges []epk.Range, e, end string) []string {
	var out []string
	for i, r := range ranges {
		in := r.Contains(e)
		if end != "" && !in {
			in = epk.Compare(r.MinInclusive, e) > 0 && epk.Compare(r.MinInclusive, end) < 0
		}
		if in {
			out = append(out, strconv.Itoa(i))
		}
	}
	slices.Sort(out)
	return out
}
