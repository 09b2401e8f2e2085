package crosspartition

import "testing"

// FuzzRowHash: the hash of a row read from its bytes equals the hash of the decoded value
// (hashValue of encoding/json's reading), for any input, so DISTINCT answers and the DISTINCT sets
// tokens hold are those of the reference.
func FuzzRowHash(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","n":3}`, `{"n":3,"id":"a"}`, ` { "b" : [1, 2.50, -0, 1e21, 1E-7, 0.000001], "a" : null } `,
		`"x"`, `"<&>"`, `"\u00e9"`, `"é"`, `12345678901234567890123`, `1e400`, `-0.0`, `[]`, `{}`,
		`{"a":1,"a":2}`, `{"a\"":1}`, `[true,false,null,{"x":{"y":[{}]}}]`, ``, `nul`, `[1,]`, `01`,
		`[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]`, `{"k":"\n"}`, `1.0`, `100`, `1e2`, `0.1e-6`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, _ := decode(b)
		if got, want := rowHash(b), hashValue(v); got != want {
			t.Fatalf("rowHash(%q) = %x, hashValue of its decoding = %x", b, got, want)
		}
	})
}

// TestRowHashIsFastOnCommonRows: rows of plain property values hash without allocating beyond
// their objects' member lists (the reference decodes into maps and encodes again).
func TestRowHashIsFastOnCommonRows(t *testing.T) {
	row := []byte(`{"id":"order-17","customer":"c-9","total":129.5,"items":[1,2,3],"paid":true,"note":null}`)
	v, _ := decode(row)
	if rowHash(row) != hashValue(v) {
		t.Fatal("rowHash differs from hashValue")
	}
	if n := testing.AllocsPerRun(100, func() { rowHash(row) }); n > 2 {
		t.Errorf("rowHash allocates %v times per row, want at most 2", n)
	}
	if n := testing.AllocsPerRun(100, func() { v, _ := decode(row); hashValue(v) }); n < 10 {
		t.Logf("the reference allocates only %v times", n)
	}
}

// BenchmarkRowHash: a DISTINCT row's hash from its bytes against decoding it and encoding it again.
func BenchmarkRowHash(b *testing.B) {
	row := []byte(`{"id":"order-17","customer":"c-9","total":129.5,"items":[1,2,3],"paid":true,"note":null}`)
	b.Run("bytes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rowHash(row)
		}
	})
	b.Run("decoded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v, _ := decode(row)
			hashValue(v)
		}
	})
}
