package epk

import (
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// baseline mirrors the SDK's PartitionKeyHashBaselineTest.*.xml files (copied into testdata/).
type baseline struct {
	Results []struct {
		Description string `xml:"Input>Description"`
		Value       string `xml:"Input>PartitionKeyValue"`
		V1          string `xml:"Output>PartitionKeyHashV1"`
		V2          string `xml:"Output>PartitionKeyHashV2"`
	} `xml:"Result"`
}

// baselineComponents decodes a PartitionKeyValue: UNDEFINED, a JSON scalar (the strings "NaN",
// "Infinity" and "-Infinity" stand for those numbers, NaN with .NET's bit pattern), or a JSON array of
// strings (a hierarchical key).
func baselineComponents(t *testing.T, raw string) []any {
	t.Helper()
	if raw == "UNDEFINED" {
		return []any{Undefined}
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("bad baseline value %q: %v", raw, err)
	}
	switch v := v.(type) {
	case []any:
		return v
	case string:
		switch v {
		case "NaN":
			return []any{math.Float64frombits(0xFFF8000000000000)}
		case "Infinity":
			return []any{math.Inf(1)}
		case "-Infinity":
			return []any{math.Inf(-1)}
		}
	}
	return []any{v}
}

func TestHashBaselines(t *testing.T) {
	files, err := filepath.Glob("testdata/PartitionKeyHashBaselineTest.*.xml")
	if err != nil || len(files) != 4 {
		t.Fatalf("want 4 baseline files, got %v (%v)", files, err)
	}
	cases := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var b baseline
		if err := xml.Unmarshal(data, &b); err != nil {
			t.Fatal(err)
		}
		multi := strings.HasSuffix(file, ".Lists.xml")
		kind := KindHash
		if multi {
			kind = KindMultiHash
		}
		for _, r := range b.Results {
			cases++
			comps := baselineComponents(t, r.Value)
			name := filepath.Base(file) + "/" + r.Description
			if got := Hash(comps, kind, 1); got != r.V1 {
				t.Errorf("%s: V1 = %s, want %s", name, got, r.V1)
			}
			if got := Hash(comps, kind, 0); got != r.V1 {
				t.Errorf("%s: version 0 = %s, want V1 %s", name, got, r.V1)
			}
			if got := rawV2(comps, multi); got != r.V2 {
				t.Errorf("%s: raw V2 = %s, want %s", name, got, r.V2)
			}
			// The routing value is the baseline with the top 2 bits of each 32-hex block cleared.
			want := maskBlocks(r.V2)
			if got := Hash(comps, kind, 2); got != want {
				t.Errorf("%s: V2 routing = %s, want %s", name, got, want)
			}
		}
	}
	if cases != 29 {
		t.Fatalf("read %d baseline cases, want the 29 of the SDK files", cases)
	}
}

// maskBlocks clears the top 2 bits of the first byte of every 32-hex block, written independently of
// the implementation (by nibble arithmetic on the text).
func maskBlocks(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i += blockLen {
		n := strings.IndexByte(hexDigits, b[i])
		b[i] = hexDigits[n&0x3]
	}
	return string(b)
}

func TestHashKnownValues(t *testing.T) {
	tests := []struct {
		name    string
		comps   []any
		kind    string
		version int
		want    string
	}{
		// From rest_protocol.md §7: "" hashes to B2E9… raw, 32E9… for routing.
		{"empty string V2", []any{""}, KindHash, 2, "32E9366E637A71B4E710384B2F4970A0"},
		{"asdf V2 (top bits already clear)", []any{"asdf"}, KindHash, 2, "208BF1D598F5B63AD5520F04FE58C5E8"},
		{"empty key is Undefined", nil, KindHash, 2, Hash([]any{Undefined}, KindHash, 2)},
		{"empty slice is Undefined, V1", []any{}, KindHash, 1, Hash([]any{Undefined}, KindHash, 1)},
		{"int hashes as float64", []any{7}, KindHash, 2, Hash([]any{7.0}, KindHash, 2)},
		{"uint64 hashes as float64", []any{uint64(7)}, KindHash, 2, Hash([]any{7.0}, KindHash, 2)},
		{"unknown kind hashes as Hash", []any{"a", "b"}, "Range", 2, Hash([]any{"a", "b"}, KindHash, 2)},
		{"multihash prefix is the first block", []any{"a"}, KindMultiHash, 2, Hash([]any{"a", "b"}, KindMultiHash, 2)[:32]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Hash(tc.comps, tc.kind, tc.version); got != tc.want {
				t.Errorf("Hash(%v, %s, %d) = %s, want %s", tc.comps, tc.kind, tc.version, got, tc.want)
			}
		})
	}
	if Hash([]any{"a", "b"}, KindHash, 2) == Hash([]any{"a", "b"}, KindMultiHash, 2)[:32] {
		t.Error("Hash of two components must hash the concatenation, not the first component")
	}
}

// TestHashMasked checks the routing invariant on many keys: every 32-hex block starts below "40".
func TestHashMasked(t *testing.T) {
	for i := range 2000 {
		comps := randomKey(i, 3)
		for _, kind := range []string{KindHash, KindMultiHash} {
			e := Hash(comps, kind, 2)
			for j := 0; j < len(e); j += blockLen {
				if e[j] > '3' {
					t.Fatalf("Hash(%v, %s, 2) = %s: block %d not masked", comps, kind, e, j/blockLen)
				}
			}
			if Compare(e, MaxEPK) >= 0 {
				t.Fatalf("Hash(%v) = %s is not below FF", comps, e)
			}
		}
		v1 := Hash(comps[:1], KindHash, 1)
		if len(v1) != 32 || !strings.HasPrefix(v1, v1Zeros) {
			t.Fatalf("V1 %s is not 24 zeros + 8 hex digits", v1)
		}
	}
}

func TestMurmur3x86x32Vectors(t *testing.T) {
	// Published MurmurHash3_x86_32 vectors.
	tests := []struct {
		in   string
		seed uint32
		want uint32
	}{
		{"", 0, 0},
		{"", 1, 0x514E28B7},
		{"", 0xffffffff, 0x81F16F39},
		{"\x00\x00\x00\x00", 0, 0x2362F9DE},
		{"aaaa", 0x9747b28c, 0x5A97808A},
		{"abc", 0, 0xB3DD93FA},
		{"Hello, world!", 0x9747b28c, 0x24884CBA},
		{"The quick brown fox jumps over the lazy dog", 0x9747b28c, 0x2FA826CD},
	}
	for _, tc := range tests {
		if got := murmur3x86x32([]byte(tc.in), tc.seed); got != tc.want {
			t.Errorf("murmur3x86x32(%q, %#x) = %#x, want %#x", tc.in, tc.seed, got, tc.want)
		}
	}
}

func TestMurmur3x64x128Vectors(t *testing.T) {
	// MurmurHash3_x64_128 with seed 0, as (h1, h2).
	tests := []struct {
		in     string
		h1, h2 uint64
	}{
		{"", 0, 0},
		{"hello", 0xcbd8a7b341bd9b02, 0x5b1e906a48ae1d19},
		{"The quick brown fox jumps over the lazy dog", 0xe34bbc7bbc071b6c, 0x7a433ca9c49a9347},
	}
	for _, tc := range tests {
		h1, h2 := murmur3x64x128([]byte(tc.in))
		if h1 != tc.h1 || h2 != tc.h2 {
			t.Errorf("murmur3x64x128(%q) = %#x, %#x, want %#x, %#x", tc.in, h1, h2, tc.h1, tc.h2)
		}
	}
}

func BenchmarkHash(b *testing.B) {
	for _, bc := range []struct {
		name    string
		comps   []any
		kind    string
		version int
	}{
		{"V2/string", []any{"tenant-000042"}, KindHash, 2},
		{"V2/multihash3", []any{"tenant-000042", "user-7", 3.0}, KindMultiHash, 2},
		{"V1/string", []any{"tenant-000042"}, KindHash, 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Hash(bc.comps, bc.kind, bc.version)
			}
		})
	}
}
