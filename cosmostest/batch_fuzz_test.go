package cosmostest

import (
	"testing"
)

// fuzzContainer is a one-range container with pk path /pk on a bare server, for driving
// handlers' inner functions without HTTP.
func fuzzContainer() (*server, *container) {
	srv := &server{cfg: defaultConfig(), store: newStore()}
	def := partitionKeyDef{Paths: []string{"/pk"}, Kind: "Hash", Version: 2}
	db := &database{id: "db", rid: "AAAAAA=="}
	c := &container{db: db, id: "c", rid: "AAAAAAAAAAA=", pk: def, props: map[string]any{}, ranges: newRanges(1, def, 0)}
	return srv, c
}

func FuzzBatchBody(f *testing.F) {
	for _, s := range []string{
		`[{"operationType":"Create","resourceBody":{"id":"a","pk":"p"}}]`,
		`[{"operationType":"Upsert","ifMatch":"\"x\"","resourceBody":{"id":"a","pk":"p"}},{"operationType":"Read","id":"a"}]`,
		`[{"operationType":"Create","resourceBody":{"id":"a","pk":"p"}},{"operationType":"Patch","id":"a","resourceBody":{"condition":"from c where c.n = 1","operations":[{"op":"incr","path":"/n","value":1}]}}]`,
		`[{"operationType":"Create","resourceBody":{"id":"a","pk":"p"}},{"operationType":"Replace","id":"a","resourceBody":{"id":"a","pk":"p","v":1}},{"operationType":"Delete","id":"a"}]`,
		`[{"operationType":"Create","resourceBody":{"id":"a","pk":"q"}}]`,
		`[{"operationType":"Nope"}]`, `[]`, `{}`, `[`, `[1]`, `[{"operationType":"Read"}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ops, err := parseBatch([]byte(s))
		requireClientError(t, s, err)
		if err != nil {
			return
		}
		srv, c := fuzzContainer()
		r := c.ranges[0]
		tx := newBatchTxn(srv, c, r, []any{"p"})
		for _, op := range ops {
			res, err := tx.run(op, true)
			requireClientError(t, s, err)
			if err != nil {
				return
			}
			if res.StatusCode < 200 || res.StatusCode > 299 || res.RequestCharge <= 0 {
				t.Fatalf("%q: result %+v", s, res)
			}
		}
		tx.commit()
		for _, it := range r.items {
			if it.doc["pk"] != "p" {
				t.Fatalf("%q: stored an item of another partition: %v", s, it.doc)
			}
		}
	})
}

func FuzzChangeFeedStart(f *testing.F) {
	for _, s := range [][2]string{
		{`"12"`, ""}, {"*", ""}, {"", "Mon, 30 Nov 2026 04:03:13 UTC"}, {"", "Mon, 30 Nov 2026 04:03:13 GMT"},
		{`"abc"`, ""}, {`"-1"`, ""}, {"", "yesterday"}, {`"99999999999999999999"`, ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, inm, ims string) {
		after, _, err := changeFeedStart(inm, ims, 7)
		requireClientError(t, inm+" | "+ims, err)
		if err == nil && after < 0 {
			t.Fatalf("%q: negative start %d", inm, after)
		}
	})
}
