package repository

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
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
		{`{"a":[1,2,{"b":[9007199254740993]}],"id":"x"}`, `"x"`, "", 0, cosmoserr.ErrUnsafeNumber, "/a/2/b/0"},
		{`{"a":-9007199254740993}`, "", "", 0, cosmoserr.ErrUnsafeNumber, "/a"},
		{`{"a":0.1,"b":1e300,"c":-9007199254740992,"d":1.5e-7,"e":123456789.12345678,"f":-0.0,"g":5e-324}`, "", "", 0, nil, ""},
		// numbers whose text does not survive a float64 round trip
		{`{"a":9007199254740993.5,"b":1e300}`, "", "", 0, cosmoserr.ErrUnsafeNumber, "/a"},
		{`{"x":{"price":1234567890.123456789}}`, "", "", 0, cosmoserr.ErrUnsafeNumber, "/x/price"},
		{`{"a":[1,1e-400]}`, "", "", 0, cosmoserr.ErrUnsafeNumber, "/a/1"},
		{`{"a":1e400}`, "", "", 0, cosmoserr.ErrUnsafeNumber, "/a"},
		{`{"a":0.30000000000000000001}`, "", "", 0, cosmoserr.ErrUnsafeNumber, "/a"},
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
// exactDouble is the reference for unsafeNumber: the literal's exact value equals the exact value
// of the nearest double.
func exactDouble(t *testing.T, n string) bool {
	r, ok := new(big.Rat).SetString(n)
	if !ok {
		t.Skip("big.Rat does not parse the number: no reference")
	}
	f, _ := strconv.ParseFloat(n, 64)
	if math.IsInf(f, 0) {
		return false
	}
	g := new(big.Rat)
	if g.SetFloat64(f) == nil {
		return false
	}
	// the double's shortest text
	s, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'e', -1, 64))
	return r.Cmp(s) == 0
}

func FuzzUnsafeNumber(f *testing.F) {
	for _, s := range []string{"0.1", "1e300", "9007199254740993.5", "1234567890.123456789", "1e-400", "-0.0", "5e-324", "12345678901234567.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, n string) {
		if len(n) > 40 || !json.Valid([]byte(n)) || n == "" || (n[0] != '-' && (n[0] < '0' || n[0] > '9')) || !strings.ContainsAny(n, ".eE") {
			t.Skip("not a JSON number with a fraction or an exponent, of at most 40 bytes")
		}
		if i := strings.IndexAny(n, "eE"); i >= 0 && len(strings.TrimLeft(n[i+1:], "+-0")) > 4 {
			t.Skip("exponent of more than 4 digits: the big.Rat reference would compute 10^exponent")
		}
		if got, want := unsafeNumber([]byte(n)), !exactDouble(t, n); got != want {
			t.Fatalf("unsafeNumber(%s) = %v, want %v", n, got, want)
		}
	})
}

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

// TestTypedKeys: a Key carries its typed values, which the repository checks and compares with
// the document's own; an SDK key is read (sdkKey) and checked the same way.
func TestTypedKeys(t *testing.T) {
	c := &core{pkLevels: 1, pkPaths: []string{"/pk"}, pkMax: partitionkey.MaxValueBytes}
	long := strings.Repeat("p", partitionkey.MaxValueBytes+1)
	for _, tc := range []struct {
		key    PartitionKey
		prefix bool
		ok     bool
	}{
		{partitionkey.Of("a"), false, true},
		{partitionkey.Of(long), false, false},
		{partitionkey.Of("a", "b"), false, false},
		{partitionkey.Of(), false, false},
		{partitionkey.Of(1, 2, 3, 4), false, false},
		{partitionkey.Of(struct{}{}), false, false},
		{partitionkey.Key{}, true, false},
		{nil, false, false},
		{azcosmos.NewPartitionKeyString(long), false, false}, // read by sdkKey and checked as a Key
		{azcosmos.NewPartitionKeyString("a"), false, true},
	} {
		_, _, err := c.checkKey(tc.key, tc.prefix)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, cosmoserr.ErrInvalidPartitionKey)) {
			t.Errorf("checkKey(%v) = %v, want ok %v", tc.key, err, tc.ok)
		}
	}
	if got := partitionkey.Of("a", 2, true, nil); got.Len() != 0 || !errors.Is(got.Err(), cosmoserr.ErrInvalidPartitionKey) {
		t.Errorf("four components: %+v", got)
	}
	if v := partitionkey.Of("a", int64(2), nil).Values(); len(v) != 3 || v[0] != "a" || v[1] != 2.0 || v[2] != nil {
		t.Errorf("Values = %#v", v)
	}
	err := c.checkDocKey([]byte(`{"id":"x","pk":"`+long+`"}`), azcosmos.NewPartitionKeyString(long))
	var ve *cosmoserr.ValidationError
	if !errors.As(err, &ve) || !errors.Is(ve.Kind, cosmoserr.ErrInvalidPartitionKey) || ve.Field != "/pk" {
		t.Fatalf("long document key = %v, want cosmoserr.ErrInvalidPartitionKey at /pk", err)
	}
	if err := c.checkDocKey([]byte(`{"id":"x","pk":"a\u0062"}`), partitionkey.Of("ab")); err != nil {
		t.Fatalf("escaped key = %v", err)
	}
	if err := c.checkDocKey([]byte(`{"id":"x","pk":"a"}`), partitionkey.Of("b")); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("other key = %v, want cosmoserr.ErrInvalidPartitionKey", err)
	}
	for doc, want := range map[string]partitionkey.Key{
		`{"pk":true}`:             partitionkey.Of(true),
		`{"pk":null}`:             partitionkey.Of(nil),
		`{"pk":-1.5e1}`:           partitionkey.Of(-15),
		`{"a":{"pk":1},"pk":"z"}`: partitionkey.Of("z"),
	} {
		if err := c.checkDocKey([]byte(doc), want); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
	for _, doc := range []string{`{"pk":{}}`, `{"pk":[1]}`, `{"id":"x"}`} {
		if err := c.checkDocKey([]byte(doc), partitionkey.Of("a")); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
			t.Errorf("%s: %v, want cosmoserr.ErrInvalidPartitionKey", doc, err)
		}
	}
}
