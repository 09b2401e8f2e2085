package query

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// Decode reads one JSON value as the engine holds it, objects keeping their properties in the
// order of the text, as the service keeps a document's: a Document's Ordered value, so that
// OBJECTTOARRAY, projections of objects and TOSTRING list properties in document order. Numbers are
// float64 (a number beyond float64's range is an error, as for encoding/json); a property repeated
// in an object keeps its first place and its last value (encoding/json keeps the last). The result
// is immutable and may be shared by goroutines.
func Decode(data []byte) (any, error) {
	if !json.Valid(data) {
		return nil, errInvalidJSON
	}
	d := decoder{src: data}
	v := d.value()
	if d.err != nil {
		return nil, d.err
	}
	return v, nil
}

// AppendJSON appends the JSON of v, a value as Decode returns it, as the engine writes it in
// results: objects in their order, numbers as the service writes them.
func AppendJSON(buf []byte, v any) []byte { return marshalValue(buf, v) }

var errInvalidJSON = errors.New("query: invalid JSON")

// decoder reads JSON that json.Valid has accepted.
type decoder struct {
	src []byte
	pos int
	err error
}

func (d *decoder) ws() {
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value() any {
	d.ws()
	switch c := d.src[d.pos]; c {
	case '{':
		return d.object()
	case '[':
		d.pos++
		arr := []any{}
		for {
			d.ws()
			if d.src[d.pos] == ']' {
				d.pos++
				return arr
			}
			if d.src[d.pos] == ',' {
				d.pos++
			}
			arr = append(arr, d.value())
		}
	case '"':
		return d.str()
	case 't':
		d.pos += 4
		return true
	case 'f':
		d.pos += 5
		return false
	case 'n':
		d.pos += 4
		return nil
	}
	start := d.pos
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			goto end
		}
		d.pos++
	}
end:
	f, err := strconv.ParseFloat(string(d.src[start:d.pos]), 64)
	if err != nil && d.err == nil {
		d.err = err
	}
	return f
}

func (d *decoder) object() any {
	d.pos++ // '{'
	var keys []string
	var vals []any
	var seen map[string]int // positions, once the object is large
	for {
		d.ws()
		switch d.src[d.pos] {
		case '}':
			d.pos++
			return newRecord(keys, vals)
		case ',':
			d.pos++
			d.ws()
		}
		k := d.str()
		d.ws()
		d.pos++ // ':'
		v := d.value()
		if i := keyPosition(keys, seen, k); i >= 0 {
			vals[i] = v
			continue
		}
		keys, vals = append(keys, k), append(vals, v)
		switch {
		case seen != nil:
			seen[k] = len(keys) - 1
		case len(keys) == indexedRecordLen:
			seen = make(map[string]int, 2*len(keys))
			for i, key := range keys {
				seen[key] = i
			}
		}
	}
}

// str reads a string literal at pos.
func (d *decoder) str() string {
	start := d.pos
	d.pos++
	escaped := false
	for d.src[d.pos] != '"' {
		if d.src[d.pos] == '\\' {
			escaped = true
			d.pos++
		}
		d.pos++
	}
	d.pos++
	if !escaped && utf8.Valid(d.src[start+1:d.pos-1]) {
		return string(d.src[start+1 : d.pos-1])
	}
	var s string
	if err := json.Unmarshal(d.src[start:d.pos], &s); err != nil && d.err == nil {
		d.err = err
	}
	return s
}

// keyPosition is k's index in keys (through seen when not nil), or -1.
func keyPosition(keys []string, seen map[string]int, k string) int {
	if seen != nil {
		if i, ok := seen[k]; ok {
			return i
		}
		return -1
	}
	for i, key := range keys {
		if key == k {
			return i
		}
	}
	return -1
}
