package query

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// runOrdered runs q over docs decoded by Decode (as cosmostest passes them) and returns the
// results joined by newlines.
func runOrdered(t *testing.T, q string, docs ...string) string {
	t.Helper()
	parsed, err := Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	var ds []Document
	for i, d := range docs {
		v, err := Decode([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, Document{Key: string(rune('a' + i)), Ordered: v})
	}
	page, err := parsed.Execute(ds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range page.Results {
		out = append(out, string(r))
	}
	return strings.Join(out, "\n")
}

// TestPropertyOrder checks that objects keep their property order as the service keeps it: a
// document's stored order (OBJECTTOARRAY, a projected object, TOSTRING), an object literal's and
// STRINGTOOBJECT's text order, while comparisons (DISTINCT, GROUP BY, ORDER BY, =) ignore order.
func TestPropertyOrder(t *testing.T) {
	t.Parallel()
	doc := `{"id":"h1","q":{"small":15,"medium":24,"large":2,"xlarge":0},"z":1,"a":2}`
	for _, tc := range []struct{ query, want string }{
		{`SELECT VALUE OBJECTTOARRAY(c.q) FROM c`, `[{"k":"small","v":15},{"k":"medium","v":24},{"k":"large","v":2},{"k":"xlarge","v":0}]`},
		{`SELECT VALUE OBJECTTOARRAY(c.q, "size", "n") FROM c`, `[{"size":"small","n":15},{"size":"medium","n":24},{"size":"large","n":2},{"size":"xlarge","n":0}]`},
		{`SELECT VALUE OBJECTTOARRAY(c.q, "x", "x") FROM c`, `[{"x":15},{"x":24},{"x":2},{"x":0}]`},
		{`SELECT c.q FROM c`, `{"q":{"small":15,"medium":24,"large":2,"xlarge":0}}`},
		{`SELECT VALUE c.q FROM c`, `{"small":15,"medium":24,"large":2,"xlarge":0}`},
		{`SELECT * FROM c`, doc},
		{`SELECT VALUE TOSTRING(c.q) FROM c`, `"{\"small\":15,\"medium\":24,\"large\":2,\"xlarge\":0}"`},
		{`SELECT VALUE {"b": 1, "a": 2, "c": c.missing} FROM c`, `{"b":1,"a":2}`},
		{`SELECT VALUE {"b": 1, "a": 2, "b": 3}`, `{"b":3,"a":2}`},
		{`SELECT VALUE STRINGTOOBJECT('{"b":1,"a":{"d":1,"c":2}}')`, `{"b":1,"a":{"d":1,"c":2}}`},
		{`SELECT VALUE OBJECTTOARRAY(STRINGTOOBJECT('{"b":1,"a":2}'))`, `[{"k":"b","v":1},{"k":"a","v":2}]`},
		{`SELECT VALUE [{"b": 1, "a": c.z}] FROM c`, `[{"b":1,"a":1}]`},
		{`SELECT VALUE ARRAY(SELECT VALUE {"b": 1, "a": c.z, "m": c.missing}) FROM c`, `[{"b":1,"a":1}]`},
		{`SELECT VALUE c.q = {"xlarge": 0, "large": 2, "medium": 24, "small": 15} FROM c`, `true`},
		{`SELECT VALUE IS_OBJECT(c.q) FROM c`, `true`},
		{`SELECT VALUE c.q["medium"] FROM c`, `24`},
	} {
		if got := runOrdered(t, tc.query, doc); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.query, got, tc.want)
		}
	}
	d1, d2 := `{"id":"1","o":{"a":1,"b":2}}`, `{"id":"2","o":{"b":2,"a":1}}`
	for _, tc := range []struct{ query, want string }{
		{`SELECT DISTINCT VALUE c.o FROM c`, `{"a":1,"b":2}`},
		{`SELECT COUNT(1) AS n FROM c GROUP BY c.o`, `{"n":2}`},
		{`SELECT VALUE MAKESET(c.o) FROM c`, `[{"a":1,"b":2}]`},
		{`SELECT VALUE c.id FROM c ORDER BY c.o, c.id DESC`, "\"2\"\n\"1\""},
	} {
		if got := runOrdered(t, tc.query, d1, d2); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.query, got, tc.want)
		}
	}
}

// TestPropertyOrderLargeObject checks lookups in an object large enough to be indexed, and that a
// repeated property keeps its first place and its last value (as encoding/json keeps the last).
func TestPropertyOrderLargeObject(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"id":"x"`)
	for i := range 40 {
		b.WriteString(`,"p` + string(rune('A'+i%26)) + strings.Repeat("x", i/26) + `":` + string(rune('0'+i%10)))
	}
	b.WriteString(`,"pC":"last"}`)
	if got := runOrdered(t, `SELECT VALUE [c.pA, c.pC, c.pZ, c.nope] FROM c`, b.String()); got != `[0,"last",5]` {
		t.Errorf("got %s", got)
	}
	got := runOrdered(t, `SELECT VALUE OBJECTTOARRAY(c)[3] FROM c`, b.String())
	if got != `{"k":"pC","v":"last"}` {
		t.Errorf("got %s", got)
	}
	for _, bad := range []string{`{"a":1} x`, `{"a":`, `[1,]`} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%s): no error", bad)
		}
	}
}

// FuzzDecode checks Decode against encoding/json: it accepts exactly what json.Unmarshal accepts
// and reads the same value (objects compared whatever their order), and its JSON decodes back to
// an equal value with the same property order.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,false,null,"x\u00e9\n"],"c":{"d":-1.5e3}}`, `[]`, `"s"`, `1e400`,
		`{"a":1,"a":2}`, `{"a":"\ud800"}`, "\"\xff\"", ` [ 1 , { } ] `, `{"a":1} x`, `{`, `-0`, `0.1e-7`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		var want any
		werr := json.Unmarshal(data, &want)
		if (err == nil) != (werr == nil) {
			t.Fatalf("Decode(%q): error %v, encoding/json %v", data, err, werr)
		}
		if err != nil {
			return
		}
		if !deepEqual(v, want) {
			t.Fatalf("Decode(%q) = %s, encoding/json %s", data, marshalValue(nil, v), marshalValue(nil, want))
		}
		out := AppendJSON(nil, v)
		again, err := Decode(out)
		if err != nil {
			t.Fatalf("Decode(%s) of its own output: %v", out, err)
		}
		if got := AppendJSON(nil, again); string(got) != string(out) {
			t.Fatalf("round trip of %q: %s then %s", data, out, got)
		}
	})
}

// Decode keeps a document's property order, which OBJECTTOARRAY and projections show.
func ExampleDecode() {
	doc, _ := Decode([]byte(`{"id":"h1","sizes":{"small":15,"medium":24,"large":2}}`))
	q, _ := Parse(`SELECT VALUE OBJECTTOARRAY(c.sizes) FROM c`)
	page, _ := q.Execute([]Document{{Key: "1", Ordered: doc}}, Options{})
	fmt.Println(string(page.Results[0]))
	// Output: [{"k":"small","v":15},{"k":"medium","v":24},{"k":"large","v":2}]
}
