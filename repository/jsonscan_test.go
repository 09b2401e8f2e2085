package repository

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func TestScanHeader(t *testing.T) {
	cases := []struct {
		doc     string
		id, typ string
		version int
		issue   error
		pointer string
	}{
		{`{"id":"a","type":"order","schemaVersion":2}`, `"a"`, `"order"`, 2, nil, ""},
		{` { "x" : { "type" : "no", "id": "no" } , "s":"}\"{,", "id" : "b\"c" , "type":"t" } `, `"b\"c"`, `"t"`, 0, nil, ""},
		{`{"a":[1,2,{"b":[9007199254740993]}],"id":"x"}`, `"x"`, "", 0, ErrUnsafeInteger, "/a/2/b/0"},
		{`{"a":-9007199254740993}`, "", "", 0, ErrUnsafeInteger, "/a"},
		{`{"a":9007199254740993.5,"b":1e300,"c":-9007199254740992}`, "", "", 0, nil, ""},
		{`{"a\\":"\\","id":"y"}`, `"y"`, "", 0, nil, ""},
		{`{"schemaVersion":"3"}`, "", "", 0, nil, ""},
	}
	for _, c := range cases {
		h, issue := scanHeader([]byte(c.doc), true)
		if string(h.id) != c.id || string(h.typ) != c.typ || (c.version > 0 && h.version != c.version) {
			t.Errorf("%s: header %q %q %d", c.doc, h.id, h.typ, h.version)
		}
		switch {
		case c.issue == nil && issue != nil:
			t.Errorf("%s: unexpected issue %v", c.doc, issue.kind)
		case c.issue != nil && (issue == nil || !errors.Is(issue.kind, c.issue)):
			t.Errorf("%s: issue %v, want %v", c.doc, issue, c.issue)
		case c.issue != nil && pointerAt([]byte(c.doc), issue.at) != c.pointer:
			t.Errorf("%s: pointer %q, want %q", c.doc, pointerAt([]byte(c.doc), issue.at), c.pointer)
		}
	}
	if h, _ := scanHeader([]byte(`{"schemaVersion":"3"}`), false); !h.badVersion {
		t.Error("a string schemaVersion is not bad")
	}
}

// FuzzScanHeader checks the byte walk against encoding/json on every valid object.
func FuzzScanHeader(f *testing.F) {
	for _, s := range []string{`{"id":"a","type":"t","schemaVersion":1}`, `{"x":[{"id":1}],"id":"\"","type":null}`, `{}`, `{"a":{"b":[]}, "type":"z"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		// never panics, whatever the input
		if _, issue := scanHeader(doc, true); issue != nil {
			_ = pointerAt(doc, issue.at)
		}
		_ = pointerAt(doc, len(doc))
		var m map[string]json.RawMessage
		if json.Unmarshal(doc, &m) != nil {
			return
		}
		h, _ := scanHeader(doc, true)
		for key, got := range map[string][]byte{"id": h.id, "type": h.typ} {
			want, ok := m[key]
			if !ok {
				if got != nil {
					t.Fatalf("%s found in %s", key, doc)
				}
				continue
			}
			var a, b any
			if json.Unmarshal(want, &a) != nil || json.Unmarshal(got, &b) != nil || !jsonEqual(a, b) {
				t.Fatalf("%s = %s, want %s in %s", key, got, want, doc)
			}
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestKeyReflection fails if an SDK upgrade changes azcosmos.PartitionKey's layout, which the
// partition key validation reads.
func TestKeyReflection(t *testing.T) {
	if pkValues < 0 {
		t.Fatal("azcosmos.PartitionKey has no values slice any more")
	}
	k := azcosmos.NewPartitionKeyString("a").AppendNumber(2).AppendString("c")
	if n, ok := keyLen(k); !ok || n != 3 {
		t.Fatalf("keyLen = %d, %v", n, ok)
	}
	if s, ok := keyString(k, 2); !ok || s != "c" {
		t.Fatalf("keyString = %q, %v", s, ok)
	}
	if _, ok := keyString(k, 1); ok {
		t.Fatal("a number read as a string")
	}
	if !keyEqual(k, azcosmos.NewPartitionKeyString("a").AppendNumber(2).AppendString("c")) || keyEqual(k, azcosmos.NewPartitionKeyString("a")) ||
		keyEqual(azcosmos.NewPartitionKeyString("a"), azcosmos.NewPartitionKeyString("b")) || !keyEqual(azcosmos.NullPartitionKey, azcosmos.NullPartitionKey) {
		t.Fatal("keyEqual")
	}
}

// TestKeyChecksDegradeSafely runs the partition key checks as they would behave if a future SDK
// changed azcosmos.PartitionKey's layout: caller keys are not checked (no panic), and writes still
// check the document's own values.
func TestKeyChecksDegradeSafely(t *testing.T) {
	if keyLayout(reflect.TypeFor[struct{ values []string }]()) != -1 || keyLayout(reflect.TypeFor[struct{ other []any }]()) != -1 ||
		keyLayout(reflect.TypeFor[int]()) != -1 {
		t.Fatal("keyLayout accepted an unexpected layout")
	}
	saved := pkValues
	pkValues = -1
	defer func() { pkValues = saved }()
	c := &core{pkLevels: 1, pkPaths: []string{"/pk"}, pkMax: MaxPartitionKeyBytes}
	long := strings.Repeat("p", MaxPartitionKeyBytes+1)
	if err := c.checkKey(azcosmos.NewPartitionKeyString(long).AppendString("x"), false); err != nil {
		t.Fatalf("checkKey without the layout = %v, want nil (skipped)", err)
	}
	if _, ok := keyString(azcosmos.NewPartitionKeyString("a"), 0); ok {
		t.Fatal("keyString read a key without the layout")
	}
	err := c.checkDocKey([]byte(`{"id":"x","pk":"`+long+`"}`), azcosmos.NewPartitionKeyString(long))
	var ve *ValidationError
	if !errors.As(err, &ve) || !errors.Is(ve.Kind, ErrInvalidPartitionKey) || ve.Field != "/pk" {
		t.Fatalf("long document key = %v, want ErrInvalidPartitionKey at /pk", err)
	}
	if err := c.checkDocKey([]byte(`{"id":"x","pk":"a\u0062"}`), azcosmos.NewPartitionKeyString("ab")); err != nil {
		t.Fatalf("escaped key = %v", err)
	}
	for doc, want := range map[string]azcosmos.PartitionKey{
		`{"pk":true}`:             azcosmos.NewPartitionKeyBool(true),
		`{"pk":null}`:             azcosmos.NullPartitionKey,
		`{"pk":-1.5e1}`:           azcosmos.NewPartitionKeyNumber(-15),
		`{"a":{"pk":1},"pk":"z"}`: azcosmos.NewPartitionKeyString("z"),
	} {
		if err := c.checkDocKey([]byte(doc), want); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
	for _, doc := range []string{`{"pk":{}}`, `{"pk":[1]}`, `{"id":"x"}`} {
		if err := c.checkDocKey([]byte(doc), azcosmos.NewPartitionKeyString("a")); !errors.Is(err, ErrInvalidPartitionKey) {
			t.Errorf("%s: %v, want ErrInvalidPartitionKey", doc, err)
		}
	}
}
