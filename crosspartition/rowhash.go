package crosspartition

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// rowHash is hashValue(decode(b)) for a JSON value b without decoding it into maps: the FNV-1a
// hash of the bytes json.Marshal would write for the decoded value (object members sorted by
// key, numbers as float64, strings as encoding/json escapes them), computed from b. It is what
// DISTINCT and the rows of aggregates and GROUP BY are told apart by, and what a token's DISTINCT
// set holds, so it must agree with hashValue exactly: FuzzRowHash checks it. Anything the fast
// path does not handle (undefined, escapes or characters encoding/json rewrites in strings,
// duplicate keys, numbers a float64 cannot hold, invalid JSON) goes through hashValue.
func rowHash(b []byte) uint64 {
	h := fnvBasis
	if json.Valid(b) {
		if end, ok := canonHash(b, skipWS(b, 0), &h, 0); ok && skipWS(b, end) == len(b) {
			return h
		}
	}
	v, _ := decode(b)
	return hashValue(v)
}

// FNV-1a 64, the hash of rawHash and rowHash.
const (
	fnvBasis = uint64(14695981039346656037)
	fnvPrime = uint64(1099511628211)
)

func fnvBytes(h *uint64, b []byte) {
	x := *h
	for _, c := range b {
		x ^= uint64(c)
		x *= fnvPrime
	}
	*h = x
}

func fnvByte(h *uint64, c byte) { *h = (*h ^ uint64(c)) * fnvPrime }

// maxCanonDepth bounds the nesting the fast path follows (deeper values take the slow path), so
// that its work stays linear in the row's size.
const maxCanonDepth = 16

// canonHash feeds h with the canonical encoding of the valid JSON value at b[i] and returns its
// end; ok is false when the value must take the slow path (rowHash).
func canonHash(b []byte, i int, h *uint64, depth int) (end int, ok bool) {
	if i >= len(b) || depth > maxCanonDepth {
		return 0, false
	}
	switch c := b[i]; {
	case c == 'n' || c == 't' || c == 'f': // null, true, false (b is valid JSON)
		end := skipValue(b, i)
		fnvBytes(h, b[i:end])
		return end, true
	case c == '"':
		_, end, ok := plainString(b, i)
		if !ok {
			return 0, false
		}
		fnvBytes(h, b[i:end]) // the quotes and the characters, as encoding/json writes them
		return end, true
	case c == '-' || '0' <= c && c <= '9':
		return canonNumber(b, i, h)
	case c == '[':
		fnvByte(h, '[')
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			fnvByte(h, ']')
			return i + 1, true
		}
		for first := true; ; first = false {
			if !first {
				fnvByte(h, ',')
			}
			end, ok := canonHash(b, i, h, depth+1)
			if !ok {
				return 0, false
			}
			i = skipWS(b, end)
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case ',':
				i = skipWS(b, i+1)
			case ']':
				fnvByte(h, ']')
				return i + 1, true
			default:
				return 0, false
			}
		}
	case c == '{':
		return canonObject(b, i, h, depth)
	}
	return 0, false
}

// plainString reports whether the string starting at b[i] is printable ASCII without escapes or
// the characters encoding/json escapes (<, >, &): encoding/json writes it back byte for byte.
func plainString(b []byte, i int) (s []byte, end int, ok bool) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c < 0x20 || c >= 0x7f || c == '\\' || c == '<' || c == '>' || c == '&':
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// canonNumber feeds h with the number at b[i] (valid JSON) as encoding/json writes a float64.
func canonNumber(b []byte, i int, h *uint64) (int, bool) {
	j := skipValue(b, i)
	n := b[i:j]
	if len(n) <= 15 && !bytes.ContainsAny(n, ".eE") {
		fnvBytes(h, n) // an integer of at most 15 digits is exact and written back as it is
		return j, true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return 0, false
	}
	var buf [32]byte
	fnvBytes(h, appendJSONFloat(buf[:0], f))
	return j, true
}

// appendJSONFloat appends f as encoding/json writes a float64: the shortest representation, in
// exponent form only below 1e-6 or from 1e21 on, with a one-digit negative exponent unpadded.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// canonObject feeds h with the object at b[i], its members sorted by key as encoding/json sorts
// a map's keys.
func canonObject(b []byte, i int, h *uint64, depth int) (int, bool) {
	type member struct {
		key        []byte
		start, end int
	}
	var arr [16]member
	members := arr[:0]
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		fnvBytes(h, []byte("{}"))
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		key, end, ok := plainString(b, i)
		if !ok {
			return 0, false
		}
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i = skipWS(b, i+1)
		vend := skipValue(b, i) // b is valid JSON; the value is hashed in key order below
		members = append(members, member{key: key, start: i, end: vend})
		i = skipWS(b, vend)
		if i >= len(b) {
			return 0, false
		}
		if b[i] == '}' {
			i++
			break
		}
		if b[i] != ',' {
			return 0, false
		}
		i = skipWS(b, i+1)
	}
	slices.SortFunc(members, func(x, y member) int { return bytes.Compare(x.key, y.key) })
	fnvByte(h, '{')
	for k, m := range members {
		if k > 0 {
			if bytes.Equal(members[k-1].key, m.key) {
				return 0, false // a duplicate key: json.Unmarshal keeps the last; leave it to it
			}
			fnvByte(h, ',')
		}
		fnvByte(h, '"')
		fnvBytes(h, m.key)
		fnvBytes(h, []byte(`":`))
		if _, ok := canonHash(b, m.start, h, depth+1); !ok {
			return 0, false
		}
	}
	fnvByte(h, '}')
	return i, true
}
