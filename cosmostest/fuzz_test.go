package cosmostest

import (
	"encoding/json"
	"errors"
	"testing"
)

// requireClientError fails unless err is nil or a 4xx statusError with a message.
func requireClientError(t *testing.T, in string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var se *statusError
	if !errors.As(err, &se) || se.status < 400 || se.status > 499 || se.message == "" {
		t.Fatalf("%q: not a 4xx with a message: %v", in, err)
	}
}

func FuzzPatchBody(f *testing.F) {
	for _, s := range []string{
		`{"operations":[{"op":"set","path":"/s","value":"x"}]}`,
		`{"condition":"from c where c.n = 5","operations":[{"op":"incr","path":"/n","value":1}]}`,
		`{"operations":[{"op":"move","from":"/a","path":"/b"}]}`,
		`{"operations":[{"op":"add","path":"/arr/-","value":[1]}]}`,
		`{"operations":[{"op":"remove","path":"/arr/0"}]}`,
		`{"operations":[{"op":"replace","path":"/a~1b"}]}`,
		`{"operations":[{"op":"incr","path":"/n","value":null}]}`,
		`{"operations":[]}`, `{}`, `[`, `{"operations":[{"op":"set","path":""}]}`,
	} {
		f.Add(s)
	}
	c := &container{pk: partitionKeyDef{Paths: []string{"/pk"}, Kind: "Hash"}}
	f.Fuzz(func(t *testing.T, s string) {
		pb, err := parsePatch([]byte(s), c)
		requireClientError(t, s, err)
		if err != nil {
			return
		}
		doc := map[string]any{"id": "a", "pk": "p", "n": 1.0, "arr": []any{1.0, map[string]any{"x": 1.0}}, "obj": map[string]any{"k": "v"}}
		for _, op := range pb.Operations {
			if err := applyPatchOp(doc, op); err != nil {
				var pe patchError
				if !errors.As(err, &pe) {
					t.Fatalf("%q: unexpected error type %T", s, err)
				}
				return
			}
		}
		if _, err := json.Marshal(doc); err != nil {
			t.Fatalf("%q: result not JSON: %v", s, err)
		}
		if doc["id"] != "a" || doc["pk"] != "p" {
			t.Fatalf("%q: id or pk changed: %v", s, doc)
		}
	})
}

func FuzzContainerBody(f *testing.F) {
	for _, s := range []string{
		`{"id":"c1","partitionKey":{"kind":"Hash","paths":["/pk"],"version":2}}`,
		`{"id":"c2","partitionKey":{"kind":"MultiHash","paths":["/a","/b","/c"],"version":2},"defaultTtl":3600}`,
		`{"id":"c3","partitionKey":{"paths":["/a","/b"]},"indexingPolicy":{"indexingMode":"Consistent"}}`,
		`{"id":"c4","partitionKey":{"paths":["/a","/b","/c","/d"]}}`,
		`{"id":"c5"}`, `{"id":"a/b","partitionKey":{"paths":["/pk"]}}`, `null`, `{"id":"x","partitionKey":{"paths":[""]}}`,
		`{"id":"x","partitionKey":{"paths":["/pk"]},"defaultTtl":0}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		props, id, def, err := parseContainerBody([]byte(s))
		requireClientError(t, s, err)
		if err != nil {
			return
		}
		if validateID(id) != nil || len(def.Paths) == 0 || len(def.Paths) > 3 || props["indexingPolicy"] == nil {
			t.Fatalf("%q: accepted an invalid container: %q %+v", s, id, def)
		}
		if _, err := json.Marshal(props); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzQueryBody(f *testing.F) {
	for _, s := range []string{
		`{"query":"SELECT * FROM c WHERE c.id IN (@a, @b)","parameters":[{"name":"@a","value":"1"},{"name":"@b","value":2}]}`,
		`{"query":"SELECT * FROM c WHERE (c.id = @p0 AND c[\"my-pk\"] = @p1) OR IS_NULL(c.x)","parameters":[{"name":"@p0","value":"a"},{"name":"@p1","value":null}]}`,
		`{"query":"SELECT * FROM root r WHERE r.id = @id","parameters":[{"name":"@id","value":"db"}]}`,
		`{"query":"SELECT * FROM c WHERE c.offerResourceId = 'AQAAAA=='"}`,
		`{"query":""}`, `{}`, `{"query":1}`, `[`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		qb, params, err := parseQueryBody([]byte(s))
		requireClientError(t, s, err)
		if err != nil {
			return
		}
		q, err := engine.parse(qb.Query)
		requireClientError(t, s, err)
		if err != nil {
			return
		}
		docs := []queryDoc{{Key: "1", Value: map[string]any{"id": "1", "pk": "a"}}, {Key: "2", Value: map[string]any{"id": "2", "pk": nil}}}
		_, err = q.execute(docs, queryOptions{Params: params, MaxItemCount: 1})
		requireClientError(t, s, err)
		_, _ = q.partitionKeyFilter([]string{"/pk"}, params)
	})
}
