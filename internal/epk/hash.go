package epk

import (
	"encoding/binary"
	"math"
)

// Partition key kinds, as in a container's partitionKey.kind.
const (
	KindHash      = "Hash"
	KindMultiHash = "MultiHash"
)

// undefinedType is the type of [Undefined].
type undefinedType struct{}

// Undefined is the component of a partition key path that is missing from the document.
var Undefined undefinedType

// Component type markers of the hash input encoding.
const (
	markerUndefined byte = 0x00
	markerNull      byte = 0x01
	markerFalse     byte = 0x02
	markerTrue      byte = 0x03
	markerNumber    byte = 0x05
	markerString    byte = 0x08
)

// blockLen is the length in hex digits of one component's EPK block (V1 and V2 alike).
const blockLen = 32

// v1Zeros is the constant head of a V1 block.
const v1Zeros = "000000000000000000000000"

const hexDigits = "0123456789ABCDEF"

// Hash returns the effective partition key (upper-case hex) the SDK computes for routing.
//
// kind is "Hash" or "MultiHash" (any other kind hashes as "Hash"); version is 1 or 2, and 0 means 1 as
// in the SDK. Version 1 always uses the V1 form, one block per component, whatever the kind.
// components hold nil (JSON null), [Undefined], bool, float64 or string; Go integer types are
// hashed as the float64 of their value, and any other type contributes nothing, as in the SDK.
// An empty (or nil) slice hashes as a single [Undefined] component.
func Hash(components []any, kind string, version int) string {
	if len(components) == 0 {
		components = []any{Undefined}
	}
	var scratch [64]byte
	switch {
	case version <= 1:
		out := make([]byte, 0, blockLen*len(components))
		for _, c := range components {
			buf := encode(scratch[:0], c, 0x00)
			out = append(out, v1Zeros...)
			out = appendHex32(out, murmur3x86x32(buf, 0))
		}
		return string(out)
	case kind == KindMultiHash:
		out := make([]byte, 0, blockLen*len(components))
		for _, c := range components {
			buf := encode(scratch[:0], c, 0xFF)
			out = appendV2Block(out, buf, true)
		}
		return string(out)
	default:
		buf := scratch[:0]
		for _, c := range components {
			buf = encode(buf, c, 0xFF)
		}
		return string(appendV2Block(make([]byte, 0, blockLen), buf, true))
	}
}

// rawV2 is the unmasked V2 hash of the components (Hash kind, or one block per component for
// MultiHash): the values the SDK's baseline files list.
func rawV2(components []any, multi bool) string {
	if !multi {
		var buf []byte
		for _, c := range components {
			buf = encode(buf, c, 0xFF)
		}
		return string(appendV2Block(nil, buf, false))
	}
	var out []byte
	for _, c := range components {
		out = appendV2Block(out, encode(nil, c, 0xFF), false)
	}
	return string(out)
}

// appendV2Block appends the 32 hex digits of the MurmurHash3 x64_128 of buf: the 16 bytes
// low-then-high little-endian, reversed, with the top 2 bits of the first byte cleared if mask.
func appendV2Block(out, buf []byte, mask bool) []byte {
	lo, hi := murmur3x64x128(buf)
	var b [16]byte
	binary.BigEndian.PutUint64(b[0:8], hi)
	binary.BigEndian.PutUint64(b[8:16], lo)
	if mask {
		b[0] &= 0x3F
	}
	for _, x := range b {
		out = append(out, hexDigits[x>>4], hexDigits[x&0x0F])
	}
	return out
}

func appendHex32(out []byte, v uint32) []byte {
	for shift := 28; shift >= 0; shift -= 4 {
		out = append(out, hexDigits[(v>>uint(shift))&0x0F])
	}
	return out
}

// encode appends the hash input encoding of one component: a type marker, then for numbers the
// float64 little-endian, for strings the UTF-8 bytes and stringSuffix (0x00 in V1, 0xFF in V2).
func encode(buf []byte, c any, stringSuffix byte) []byte {
	switch v := c.(type) {
	case nil:
		return append(buf, markerNull)
	case undefinedType:
		return append(buf, markerUndefined)
	case bool:
		if v {
			return append(buf, markerTrue)
		}
		return append(buf, markerFalse)
	case string:
		buf = append(buf, markerString)
		buf = append(buf, v...)
		return append(buf, stringSuffix)
	case float64:
		return appendNumber(buf, v)
	case float32:
		return appendNumber(buf, float64(v))
	case int:
		return appendNumber(buf, float64(v))
	case int8:
		return appendNumber(buf, float64(v))
	case int16:
		return appendNumber(buf, float64(v))
	case int32:
		return appendNumber(buf, float64(v))
	case int64:
		return appendNumber(buf, float64(v))
	case uint:
		return appendNumber(buf, float64(v))
	case uint8:
		return appendNumber(buf, float64(v))
	case uint16:
		return appendNumber(buf, float64(v))
	case uint32:
		return appendNumber(buf, float64(v))
	case uint64:
		return appendNumber(buf, float64(v))
	default:
		return buf
	}
}

func appendNumber(buf []byte, f float64) []byte {
	buf = append(buf, markerNumber)
	return binary.LittleEndian.AppendUint64(buf, math.Float64bits(f))
}
