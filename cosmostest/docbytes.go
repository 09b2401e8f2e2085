package cosmostest

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// The service returns an item's properties in the order they were written, with the system
// properties appended at the end. Items therefore keep their JSON bytes: the written body,
// re-encoded value by value as encoding/json would encode the decoded value (numbers as float64,
// strings with their escapes normalized, no insignificant whitespace) but in the written order.

// jsonScanner walks JSON that encoding/json has already validated.
type jsonScanner struct {
	src []byte
	pos int
}

func (s *jsonScanner) ws() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// skip moves past one value and returns its bytes.
func (s *jsonScanner) skip() []byte {
	s.ws()
	start := s.pos
	switch c := s.src[s.pos]; c {
	case '{', '[':
		depth := 0
		for s.pos < len(s.src) {
			switch s.src[s.pos] {
			case '"':
				s.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.pos++
					return s.src[start:s.pos]
				}
			}
			s.pos++
		}
	case '"':
		s.skipString()
	default:
		for s.pos < len(s.src) {
			switch s.src[s.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.src[start:s.pos]
			}
			s.pos++
		}
	}
	return s.src[start:s.pos]
}

// skipString moves past a string literal starting at pos.
func (s *jsonScanner) skipString() {
	s.pos++
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case '\\':
			s.pos += 2
			continue
		case '"':
			s.pos++
			return
		}
		s.pos++
	}
}

// members calls f for each member of the object at pos with the raw key literal and value.
func (s *jsonScanner) members(f func(key, value []byte)) {
	s.ws()
	s.pos++ // {
	for {
		s.ws()
		if s.src[s.pos] == '}' {
			s.pos++
			return
		}
		if s.src[s.pos] == ',' {
			s.pos++
			s.ws()
		}
		key := s.skip()
		s.ws()
		s.pos++ // :
		f(key, s.skip())
	}
}

// elements calls f for each element of the array at pos.
func (s *jsonScanner) elements(f func(value []byte)) {
	s.ws()
	s.pos++ // [
	for {
		s.ws()
		if s.src[s.pos] == ']' {
			s.pos++
			return
		}
		if s.src[s.pos] == ',' {
			s.pos++
		}
		f(s.skip())
	}
}

// appendNormalized appends v (one valid JSON value) as encoding/json would re-encode its decoded
// form, keeping object members in their order; it adds the number of object members to *keys.
func appendNormalized(out, v []byte, keys *int) []byte {
	switch v[0] {
	case '{':
		out = append(out, '{')
		n := 0
		s := jsonScanner{src: v}
		s.members(func(key, value []byte) {
			if n > 0 {
				out = append(out, ',')
			}
			n++
			out = appendString(out, key)
			out = append(out, ':')
			out = appendNormalized(out, value, keys)
		})
		*keys += n
		return append(out, '}')
	case '[':
		out = append(out, '[')
		n := 0
		s := jsonScanner{src: v}
		s.elements(func(value []byte) {
			if n > 0 {
				out = append(out, ',')
			}
			n++
			out = appendNormalized(out, value, keys)
		})
		return append(out, ']')
	case '"':
		return appendString(out, v)
	case 't', 'f', 'n':
		return append(out, v...)
	}
	return appendNumber(out, v)
}

// appendString appends a string literal; plain ASCII without escapes is already canonical.
func appendString(out, lit []byte) []byte {
	for _, c := range lit[1 : len(lit)-1] {
		if c == '\\' || c >= 0x80 {
			var s string
			if err := json.Unmarshal(lit, &s); err != nil {
				panic("cosmostest: string literal: " + err.Error())
			}
			return append(out, mustJSON(s)...)
		}
	}
	return append(out, lit...)
}

// appendNumber appends a number as its float64 value encodes; short integers already do.
func appendNumber(out, lit []byte) []byte {
	canonical := len(lit) <= 15
	for i, c := range lit {
		if (c < '0' || c > '9') && (c != '-' || i != 0) {
			canonical = false
			break
		}
	}
	if canonical {
		return append(out, lit...)
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		panic("cosmostest: number literal: " + err.Error())
	}
	return append(out, mustJSON(f)...)
}

// isSystemKey reports whether the key literal names a property the server assigns.
func isSystemKey(key []byte) bool {
	if len(key) < 3 || key[1] != '_' {
		return false
	}
	for _, k := range systemProperties {
		if string(key[1:len(key)-1]) == k {
			return true
		}
	}
	return false
}

// userBytes returns body (a JSON object that decoded to doc) re-encoded in its written order
// without the system properties, or nil if some object in body repeats a property (then the
// decoded map, where the last one won, is the truth).
func userBytes(body []byte, doc map[string]any) []byte {
	out := make([]byte, 0, len(body)+systemPropertiesRoom)
	out = append(out, '{')
	n, sys, nested := 0, 0, 0
	s := jsonScanner{src: body}
	s.members(func(key, value []byte) {
		if isSystemKey(key) {
			sys++
			return
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = appendString(out, key)
		out = append(out, ':')
		out = appendNormalized(out, value, &nested)
	})
	if n+sys != len(doc) {
		return nil
	}
	want := 0
	for k, v := range doc {
		if !slices.Contains(systemProperties, k) {
			want += countKeys(v)
		}
	}
	if nested != want {
		return nil
	}
	return append(out, '}')
}

// countKeys counts the object members in a decoded value.
func countKeys(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		n = len(v)
		for _, e := range v {
			n += countKeys(e)
		}
	case []any:
		for _, e := range v {
			n += countKeys(e)
		}
	}
	return n
}

// orderHints says where a patch put things: the members it added to each object (by the object's
// JSON pointer), in operation order, and the JSON each path was last given.
type orderHints struct {
	added  map[string][]string
	values map[string][]byte
}

// appendOrdered appends v (a decoded value, e.g. after a patch) at JSON pointer path, encoded with
// the members of each object that also exists in prev (its previous bytes, may be nil) in prev's
// order and new members after them: first those a patch added, in operation order, then any
// others in name order. This is how the service keeps existing properties in place.
func appendOrdered(out, prev []byte, v any, path string, h *orderHints) []byte {
	if b, ok := h.values[path]; ok {
		prev = b
	}
	switch v := v.(type) {
	case map[string]any:
		out = append(out, '{')
		n := 0
		seen := make(map[string]bool, len(v))
		member := func(name string, prev []byte) {
			seen[name] = true
			if n > 0 {
				out = append(out, ',')
			}
			n++
			out = append(out, mustJSON(name)...)
			out = append(out, ':')
			out = appendOrdered(out, prev, v[name], path+"/"+pointerEscaper.Replace(name), h)
		}
		if len(prev) > 0 && prev[0] == '{' {
			s := jsonScanner{src: prev}
			s.members(func(key, value []byte) {
				var name string
				if err := json.Unmarshal(key, &name); err != nil {
					return
				}
				if _, ok := v[name]; ok && !seen[name] {
					member(name, value)
				}
			})
		}
		for _, name := range h.added[path] {
			if _, ok := v[name]; ok && !seen[name] {
				member(name, nil)
			}
		}
		rest := make([]string, 0, len(v)-len(seen))
		for k := range v {
			if !seen[k] {
				rest = append(rest, k)
			}
		}
		slices.Sort(rest)
		for _, k := range rest {
			member(k, nil)
		}
		return append(out, '}')
	case []any:
		var old [][]byte
		if len(prev) > 0 && prev[0] == '[' {
			s := jsonScanner{src: prev}
			s.elements(func(value []byte) { old = append(old, value) })
		}
		out = append(out, '[')
		for i, e := range v {
			if i > 0 {
				out = append(out, ',')
			}
			var p []byte
			if i < len(old) {
				p = old[i]
			}
			out = appendOrdered(out, p, e, path+"/"+strconv.Itoa(i), h)
		}
		return append(out, ']')
	}
	return append(out, mustJSON(v)...)
}

// pointerEscaper escapes a property name for a JSON pointer.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// systemPropertiesRoom is about the bytes withSystemProperties adds, so that it rarely grows.
const systemPropertiesRoom = 224

// withSystemProperties returns user (a JSON object it may modify) with the system properties
// spliced in before its closing brace, in the order the service appends them.
func withSystemProperties(user []byte, it *item, self string) []byte {
	out := user[:len(user)-1]
	if len(user) > 2 {
		out = append(out, ',')
	}
	// rid, self and etag are printable ASCII, which Go and JSON quote alike.
	out = append(out, `"_rid":`...)
	out = strconv.AppendQuote(out, it.rid)
	out = append(out, `,"_self":`...)
	out = strconv.AppendQuote(out, self)
	out = append(out, `,"_etag":`...)
	out = strconv.AppendQuote(out, it.etag)
	out = append(out, `,"_attachments":"attachments/","_ts":`...)
	out = strconv.AppendInt(out, it.ts, 10)
	return append(out, '}')
}

// withLSN returns the item's bytes with _lsn appended, as the change feed serves them.
func withLSN(raw []byte, lsn int64) []byte {
	out := make([]byte, 0, len(raw)+32)
	out = append(out, raw[:len(raw)-1]...)
	out = append(out, `,"_lsn":`...)
	out = strconv.AppendInt(out, lsn, 10)
	return append(out, '}')
}
