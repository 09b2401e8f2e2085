package cosmostest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/google/go-cmp/cmp"
)

// topKeys returns the top-level property names of a JSON object in order.
func topKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

var systemOrder = []string{"_rid", "_self", "_etag", "_attachments", "_ts"}

// wantOrder checks raw starts with user (minus its closing brace) and ends with the system
// properties in the service's order.
func wantOrder(t *testing.T, what string, raw []byte, user string, extra ...string) {
	t.Helper()
	if !bytes.HasPrefix(raw, []byte(strings.TrimSuffix(user, "}"))) {
		t.Errorf("%s: got %s, want it to start with the written properties %s", what, raw, user)
	}
	var u map[string]json.RawMessage
	if err := json.Unmarshal([]byte(user), &u); err != nil {
		t.Fatal(err)
	}
	keys := topKeys(t, raw)
	tail := keys[len(u):]
	if diff := cmp.Diff(append(append([]string{}, systemOrder...), extra...), tail); diff != "" {
		t.Errorf("%s: system properties (-want +got):\n%s", what, diff)
	}
}

func TestPropertyOrderKept(t *testing.T) {
	ctx := context.Background()
	_, cc := setup(t)
	pk := azcosmos.NewPartitionKeyString("p")
	user := `{"zeta":1,"id":"a","pk":"p","alpha":{"y":1,"x":[{"b":1,"a":2}]},"mid":"s"}`
	// Whitespace is dropped and values re-encoded as the decoded value would be; the order stays.
	written := "{\"zeta\": 1.0, \"id\":\"a\",\n \"pk\":\"p\",\"alpha\":{\"y\":1,\"x\":[{\"b\":1,\"a\":2e0}]},\"mid\":\"\\u0073\"}"
	opts := &azcosmos.ItemOptions{EnableContentResponseOnWrite: true}
	up, err := cc.UpsertItem(ctx, pk, []byte(written), opts)
	if err != nil {
		t.Fatal(err)
	}
	wantOrder(t, "upsert response", up.Value, user)
	rd, err := cc.ReadItem(ctx, pk, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantOrder(t, "read", rd.Value, user)
	if !bytes.Equal(rd.Value, up.Value) {
		t.Errorf("read %s differs from write response %s", rd.Value, up.Value)
	}

	// Replacing with a read document (system properties included) keeps the user order.
	repl, err := cc.ReplaceItem(ctx, pk, "a", rd.Value, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantOrder(t, "replace with system properties", repl.Value, user)

	// Patch keeps existing properties in place and appends new ones.
	var ops azcosmos.PatchOperations
	ops.AppendSet("/alpha/y", 5)
	ops.AppendAdd("/new", true)
	ops.AppendRemove("/mid")
	ops.AppendAdd("/alpha/x/0/c", 3)
	pt, err := cc.PatchItem(ctx, pk, "a", ops, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantOrder(t, "patch", pt.Value, `{"zeta":1,"id":"a","pk":"p","alpha":{"y":5,"x":[{"b":1,"a":2,"c":3}]},"new":true}`)

	// New properties follow in operation order; an object value keeps its own order.
	ops = azcosmos.PatchOperations{}
	ops.AppendAdd("/z2", 1)
	ops.AppendSet("/a2", json.RawMessage(`{"q":1,"c":{"k":1,"b":2}}`))
	ops.AppendSet("/a2/a", 0)
	pt, err = cc.PatchItem(ctx, pk, "a", ops, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantOrder(t, "patch order", pt.Value, `{"zeta":1,"id":"a","pk":"p","alpha":{"y":5,"x":[{"b":1,"a":2,"c":3}]},"new":true,"z2":1,"a2":{"q":1,"c":{"k":1,"b":2},"a":0}}`)
	ops = azcosmos.PatchOperations{}
	ops.AppendRemove("/z2")
	ops.AppendRemove("/a2")
	if _, err := cc.PatchItem(ctx, pk, "a", ops, nil); err != nil {
		t.Fatal(err)
	}

	// Batch bodies.
	b := cc.NewTransactionalBatch(pk)
	b.UpsertItem([]byte(`{"b2":1,"id":"b","pk":"p","a1":2}`), nil)
	b.ReadItem("a", nil)
	br, err := cc.ExecuteTransactionalBatch(ctx, b, nil)
	if err != nil || !br.Success {
		t.Fatalf("batch: %v %+v", err, br)
	}
	wantOrder(t, "batch upsert", br.OperationResults[0].ResourceBody, `{"b2":1,"id":"b","pk":"p","a1":2}`)
	wantOrder(t, "batch read", br.OperationResults[1].ResourceBody, `{"zeta":1,"id":"a","pk":"p","alpha":{"y":5,"x":[{"b":1,"a":2,"c":3}]},"new":true}`)

	// Change feed (with _lsn last).
	feed, err := cc.ReadChangeFeed(ctx, &azcosmos.ChangeFeedOptions{FeedRange: fullRange()})
	if err != nil {
		t.Fatal(err)
	}
	if len(feed.Items) != 2 {
		t.Fatalf("change feed: %d documents", len(feed.Items))
	}
	wantOrder(t, "change feed", feed.Items[1], `{"b2":1,"id":"b","pk":"p","a1":2}`, "_lsn")

	// Queries returning whole documents; projections keep the engine's encoding.
	for _, q := range []string{"SELECT * FROM c WHERE c.id = 'b'", "SELECT VALUE c FROM c WHERE c.id = 'b'", "SELECT * FROM c ORDER BY c.id DESC"} {
		page, err := cc.NewQueryItemsPager(q, pk, nil).NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantOrder(t, q, page.Items[0], `{"b2":1,"id":"b","pk":"p","a1":2}`)
	}
	page, err := cc.NewQueryItemsPager("SELECT c.id, c.b2 FROM c WHERE c.id = 'b'", pk, nil).NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(page.Items[0]) != `{"id":"b","b2":1}` {
		t.Errorf("projection: %s", page.Items[0])
	}

	rb, err := cc.ReadItem(ctx, pk, "b", nil)
	if err != nil {
		t.Fatal(err)
	}
	var sys struct {
		Rid string `json:"_rid"`
	}
	if err := json.Unmarshal(rb.Value, &sys); err != nil {
		t.Fatal(err)
	}
	ridB := sys.Rid
	// Objects read from a document keep its order in projections and OBJECTTOARRAY; JOIN rows and
	// object literals too.
	for q, want := range map[string]string{
		"SELECT c.alpha FROM c WHERE c.id = 'a'":                                   `{"alpha":{"y":5,"x":[{"b":1,"a":2,"c":3}]}}`,
		"SELECT VALUE ARRAY_SLICE(OBJECTTOARRAY(c), 0, 5) FROM c WHERE c.id = 'b'": `[{"k":"b2","v":1},{"k":"id","v":"b"},{"k":"pk","v":"p"},{"k":"a1","v":2},{"k":"_rid","v":"` + ridB + `"}]`,
		"SELECT VALUE OBJECTTOARRAY(c.alpha) FROM c WHERE c.id = 'a'":              `[{"k":"y","v":5},{"k":"x","v":[{"b":1,"a":2,"c":3}]}]`,
		"SELECT x FROM c JOIN x IN c.alpha.x WHERE c.id = 'a'":                     `{"x":{"b":1,"a":2,"c":3}}`,
		"SELECT VALUE {zz: c.zeta, aa: c.alpha.y} FROM c WHERE c.id = 'a'":         `{"zz":1,"aa":5}`,
	} {
		page, err := cc.NewQueryItemsPager(q, pk, nil).NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 1 || string(page.Items[0]) != want {
			t.Errorf("%s: got %s, want %s", q, page.Items, want)
		}
	}
}

func TestPropertyOrderDuplicateKeys(t *testing.T) {
	ctx := context.Background()
	_, cc := setup(t)
	pk := azcosmos.NewPartitionKeyString("p")
	// A repeated property: the last value wins, as when decoding, and it is stored once.
	if _, err := cc.UpsertItem(ctx, pk, []byte(`{"id":"a","pk":"p","n":1,"n":2}`), nil); err != nil {
		t.Fatal(err)
	}
	rd, err := cc.ReadItem(ctx, pk, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(rd.Value, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["n"] != 2.0 || strings.Count(string(rd.Value), `"n"`) != 1 {
		t.Errorf("read %s", rd.Value)
	}
}
