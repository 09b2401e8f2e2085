package crosspartition

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// A row of the rewritten ORDER BY query, {"orderByItems":[{"item":v},…],"payload":p}, is read
// once into what the merge compares (the keys) and what it returns (the payload, raw bytes, a
// slice of the row): no maps, no copies, no re-encoding. Only objects, arrays, strings with
// escapes and anything unusual go through encoding/json (parseOrderByRowSlow, the reference,
// which FuzzParseOrderByRow checks this against).

// skipWS returns the index of the first non-space byte of b at or after i.
func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at b[i]; b is valid JSON (json.Valid).
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return len(b)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	default:
		for ; i < len(b); i++ {
			switch b[i] {
			case ' ', '\t', '\r', '\n', ',', ']', '}':
				return i
			}
		}
		return i
	}
}

// objectMembers calls f with the raw key (between its quotes) and the value of each member of
// the object starting at b[i], as long as f returns true; it reports false if b[i] is not an
// object, a key has an escape, or f stopped.
func objectMembers(b []byte, i int, f func(key, val []byte) bool) bool {
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) {
		end := skipValue(b, i)
		key := b[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		i = skipWS(b, end)
		i = skipWS(b, i+1) // ':'
		end = skipValue(b, i)
		if !f(key, b[i:end]) {
			return false
		}
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ',' {
			return true
		}
		i = skipWS(b, i+1)
	}
	return true
}

// scalar decodes a JSON value as encoding/json does into an any; ok is false when it must go
// through encoding/json (objects, arrays, strings with escapes or invalid UTF-8, odd numbers).
func scalar(v []byte) (any, bool) {
	switch v[0] {
	case '"':
		s := v[1 : len(v)-1]
		if bytes.IndexByte(s, '\\') >= 0 || !utf8.Valid(s) {
			return nil, false
		}
		return string(s), true
	case 't':
		return true, true
	case 'f':
		return false, true
	case 'n':
		return nil, true
	case '{', '[':
		return nil, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return nil, false
	}
	return f, true
}

// parseOrderByRow reads a valid JSON row of the rewritten ORDER BY query into keys (len n):
// the raw orderByItems and payload (slices of it; payload nil when absent) and the document's
// _rid (the string's bytes, nil when absent). ok is false when the row must go through
// parseOrderByRowSlow (which also reports malformed rows).
func parseOrderByRow(it []byte, keys []any) (items, payload, rid []byte, ok bool) {
	ok = objectMembers(it, skipWS(it, 0), func(key, val []byte) bool {
		switch string(key) {
		case "orderByItems":
			items = val
			return true
		case "payload":
			payload = val
			return true
		case "_rid":
			if len(val) < 2 || val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 {
				return false
			}
			rid = val[1 : len(val)-1]
			return true
		}
		// encoding/json matches struct fields case-insensitively: leave those to it.
		return !bytes.EqualFold(key, []byte("orderByItems")) && !bytes.EqualFold(key, []byte("payload")) && !bytes.EqualFold(key, []byte("_rid"))
	})
	if !ok || len(items) == 0 || items[0] != '[' {
		return nil, nil, nil, false
	}
	n := 0
	i := skipWS(items, 1)
	for i < len(items) && items[i] != ']' {
		if n == len(keys) || items[i] != '{' {
			return nil, nil, nil, false
		}
		var item []byte
		end := skipValue(items, i)
		if !objectMembers(items, i, func(key, val []byte) bool {
			if string(key) == "item" {
				item = val
			}
			return true
		}) {
			return nil, nil, nil, false
		}
		if item == nil {
			keys[n] = undefined
		} else if v, ok := scalar(item); ok {
			keys[n] = v
		} else if v, err := decode(item); err == nil {
			keys[n] = v
		} else {
			return nil, nil, nil, false
		}
		n++
		i = skipWS(items, end)
		if i < len(items) && items[i] == ',' {
			i = skipWS(items, i+1)
		}
	}
	if n != len(keys) {
		return nil, nil, nil, false
	}
	return items, payload, rid, true
}

// parseOrderByRowSlow is the reference reading of a row through encoding/json.
func parseOrderByRowSlow(it []byte, n int) (keys []any, items, payload, rid []byte, err error) {
	var d struct {
		Items   json.RawMessage `json:"orderByItems"`
		Payload json.RawMessage `json:"payload"`
		Rid     json.RawMessage `json:"_rid"`
	}
	if err := json.Unmarshal(it, &d); err != nil || len(d.Items) == 0 {
		return nil, nil, nil, nil, &PlanError{Reason: "a row of the rewritten ORDER BY query has no orderByItems"}
	}
	keys, err = parseItems(d.Items)
	if err != nil || len(keys) != n {
		return nil, nil, nil, nil, &PlanError{Reason: "a row of the rewritten ORDER BY query has malformed orderByItems"}
	}
	if len(d.Payload) > 0 {
		payload = d.Payload
	}
	var s string
	if len(d.Rid) > 0 && json.Unmarshal(d.Rid, &s) == nil {
		rid = []byte(s)
	}
	return keys, d.Items, payload, rid, nil
}

// rawHash identifies a row of a range's answer by its bytes (for ORDER BY they include the
// document's _rid): the same document is the same bytes after a split, so the rows a parent
// returned are recognised among its children's. (DISTINCT uses rowHash: equality of values.)
// It is FNV-1a 64 (tokens carry these hashes), computed without hash/fnv's allocation.
func rawHash(b []byte) uint64 {
	h := fnvBasis
	fnvBytes(&h, b)
	return h
}
