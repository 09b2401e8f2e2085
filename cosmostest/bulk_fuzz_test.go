package cosmostest

import (
	"net/http"
	"testing"
)

// FuzzBulkBody: any bulk body is refused with a client error or runs operation by operation,
// each result a status the service sends, and nothing stored under a key other than the one the
// operation named.
func FuzzBulkBody(f *testing.F) {
	for _, s := range []string{
		`[{"operationType":"Upsert","partitionKey":"[\"p\"]","resourceBody":{"id":"a","pk":"p"}}]`,
		`[{"operationType":"Create","partitionKey":"[\"p\"]","resourceBody":{"id":"a","pk":"q"}},{"operationType":"Read","id":"a","partitionKey":"[\"p\"]"}]`,
		`[{"operationType":"Patch","id":"a","partitionKey":"[\"p\"]","resourceBody":{"operations":[{"op":"incr","path":"/n","value":1}]}}]`,
		`[{"operationType":"Delete","id":"a","partitionKey":"[1]"},{"operationType":"Upsert","partitionKey":"not json","resourceBody":{}}]`,
		`[{"operationType":"Upsert","partitionKey":"[\"p\",\"q\"]","resourceBody":{"id":"a","pk":"p"}}]`,
		`[]`, `{}`, `[`, `[1]`, `[{"operationType":"Read"}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ops, err := parseBulk([]byte(s))
		requireClientError(t, s, err)
		if err != nil {
			return
		}
		srv, c := fuzzContainer()
		r := c.ranges[0]
		for _, op := range ops {
			res := srv.bulkOp(c, r, op, true)
			switch res.StatusCode {
			case http.StatusOK, http.StatusCreated, http.StatusNoContent:
				if res.RequestCharge <= 0 {
					t.Fatalf("%q: success without a charge: %+v", s, res)
				}
			case http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusPreconditionFailed,
				http.StatusRequestEntityTooLarge, http.StatusGone:
			default:
				t.Fatalf("%q: result %+v", s, res)
			}
		}
		for _, it := range r.items {
			if !samePK(c.pk.values(it.doc), it.pk) {
				t.Fatalf("%q: stored an item under a key its document does not have: %v", s, it.doc)
			}
		}
	})
}
