package crosspartition

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"reflect"
	"testing"
)

// FuzzParseOrderByRow: the fast reading of an ORDER BY row agrees with encoding/json's
// wherever it answers, and rawHash is FNV-1a 64.
func FuzzParseOrderByRow(f *testing.F) {
	for _, s := range []string{
		`{"orderByItems":[{"item":3}],"payload":{"id":"a","n":3}}`,
		`{"payload":"x", "orderByItems" : [ {"item":"s"} , {} ] }`,
		`{"orderByItems":[{"item":null},{"item":true}],"payload":null}`,
		`{"orderByItems":[{"item":[1,{"a":"]"}]},{"item":{"b":"\"}"}}]}`,
		`{"orderByItems":[{"item":"\u00e9"},{"item":-1.5e3}],"PAYLOAD":1}`,
		`{"orderByItems":[{"Item":1,"item":2,"item":false}],"payload":[1,2]}`,
		`{"orderByItems":[null],"payload":1}`,
		`{"orderByItems":[{"item":1e400}]}`,
		`{"orderbyitems":[{"item":1}]}`,
		`[1]`,
		`{"_rid":"AAAAAAAAAAABAAAAAAAAAA==","orderByItems":[{"item":1}],"payload":{"id":"a"}}`,
		`{"_rid":"a\/b","orderByItems":[{"item":1}]}`,
		`{"_rid":5,"orderByItems":[{"item":1}]}`,
	} {
		f.Add([]byte(s), 1)
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, it []byte, n int) {
		if n < 0 || n > 4 {
			return
		}
		h := fnv.New64a()
		_, _ = h.Write(it)
		if rawHash(it) != h.Sum64() {
			t.Fatal("rawHash is not FNV-1a 64")
		}
		if !json.Valid(it) {
			return
		}
		wantKeys, wantItems, wantPayload, wantRid, err := parseOrderByRowSlow(it, n)
		keys := make([]any, n)
		items, payload, rid, ok := parseOrderByRow(it, keys)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("fast reading accepts a row encoding/json refuses: %v", err)
		}
		if !reflect.DeepEqual(keys, wantKeys) || !bytes.Equal(items, wantItems) || !bytes.Equal(payload, wantPayload) || (payload == nil) != (wantPayload == nil) || !bytes.Equal(rid, wantRid) {
			t.Fatalf("fast %v %s %s, encoding/json %v %s %s", keys, items, payload, wantKeys, wantItems, wantPayload)
		}
	})
}
