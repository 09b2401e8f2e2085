package repository

import (
	"bytes"
	"math"
	"strconv"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// This file holds the byte-level JSON walks the repository runs instead of a second decode: one
// pass over an encoded item finds its top-level "id", "type" and "schemaVersion" and, on writes,
// checks nesting depth and number precision. The input is always valid JSON (from json.Marshal
// or the service), so the walk only needs to be right on valid input, and it allocates nothing.

const (
	maxDepth = 128
	// maxSafeInt is 2^53 as a decimal string: larger integers lose precision as IEEE-754 doubles.
	maxSafeInt = "9007199254740992"
)

// header is what the repository needs from a document's top level. The byte slices alias the
// document.
type header struct {
	id         []byte // raw JSON value, with quotes; nil if absent
	typ        []byte // raw JSON value, with quotes; nil if absent
	etag       []byte // raw JSON value of "_etag", with quotes; nil if absent
	version    int
	hasVersion bool
	badVersion bool // schemaVersion present but not a small non-negative integer
}

// scanIssue is a depth or precision problem found by scanHeader with check set.
type scanIssue struct {
	kind    error // cosmoserr.ErrNestingTooDeep or cosmoserr.ErrUnsafeNumber
	at      int   // offset of the offending byte
	decimal bool  // cosmoserr.ErrUnsafeNumber on a number with a fraction or an exponent
}

// scanHeader walks the top-level object of doc. With check it also reports the first value nested
// deeper than maxDepth or integer beyond ±2^53.
func scanHeader(doc []byte, check bool) (h header, issue *scanIssue) {
	i := skipWS(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return h, nil
	}
	i++
	for {
		i = skipWS(doc, i)
		if i >= len(doc) || doc[i] == '}' {
			return h, issue
		}
		if doc[i] == ',' {
			i++
			continue
		}
		// key
		if doc[i] != '"' {
			return h, issue // not valid JSON: stop
		}
		ks := i
		i = skipString(doc, i)
		if i-1 <= ks || i > len(doc) {
			return h, issue
		}
		key := doc[ks+1 : i-1]
		i = skipWS(doc, i)
		if i < len(doc) && doc[i] == ':' {
			i++
		}
		i = skipWS(doc, i)
		vs := i
		var bad *scanIssue
		i, bad = skipValue(doc, i, check)
		if bad != nil && issue == nil {
			issue = bad
		}
		val := doc[vs:i]
		switch string(key) {
		case "id":
			h.id = val
		case "type":
			h.typ = val
		case "_etag":
			h.etag = val
		case "schemaVersion":
			h.hasVersion = true
			n, err := strconv.Atoi(string(val))
			if err != nil || n < 0 {
				h.badVersion = true
			}
			h.version = n
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	i++
	for i < len(b) {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		// count the backslashes before the quote
		k := i - 1
		for k >= 0 && b[k] == '\\' {
			k--
		}
		i++
		if (i-2-k)%2 == 0 {
			return i
		}
	}
	return i
}

// skipValue returns the index after the value starting at b[i], a property of the top-level
// object (depth 1, so a property holding {} reaches depth 2). With check it reports the first
// container nested deeper than maxDepth or integer beyond ±2^53 inside the value.
func skipValue(b []byte, i int, check bool) (int, *scanIssue) {
	if i >= len(b) {
		return i, nil
	}
	c := b[i]
	switch c {
	case '"':
		return skipString(b, i), nil
	case '{', '[':
	default:
		j := i
		for j < len(b) {
			d := b[j]
			if d == ',' || d == '}' || d == ']' || d == ' ' || d == '\t' || d == '\n' || d == '\r' {
				break
			}
			j++
		}
		if check && (c == '-' || (c >= '0' && c <= '9')) && unsafeNumber(b[i:j]) {
			return j, &scanIssue{kind: cosmoserr.ErrUnsafeNumber, at: i, decimal: isDecimal(b[i:j])}
		}
		return j, nil
	}
	var issue *scanIssue
	d := 0
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			i = skipString(b, i)
			continue
		case c == '{' || c == '[':
			d++
			if check && 1+d > maxDepth && issue == nil {
				issue = &scanIssue{kind: cosmoserr.ErrNestingTooDeep, at: i}
			}
		case c == '}' || c == ']':
			d--
			if d == 0 {
				return i + 1, issue
			}
		case check && (c == '-' || (c >= '0' && c <= '9')):
			j := i
			for j < len(b) && (b[j] == '-' || b[j] == '+' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || (b[j] >= '0' && b[j] <= '9')) {
				j++
			}
			if issue == nil && unsafeNumber(b[i:j]) {
				issue = &scanIssue{kind: cosmoserr.ErrUnsafeNumber, at: i, decimal: isDecimal(b[i:j])}
			}
			i = j
			continue
		}
		i++
	}
	return i, issue
}

// unsafeNumber reports whether the JSON number literal n would not come back as written once
// stored: Cosmos DB holds numbers as IEEE-754 doubles. An integer literal must be within ±2^53
// (beyond, not every integer is a double); a literal with a fraction or an exponent must have the
// decimal value of the double nearest to it (the value strconv.FormatFloat prints back), so
// "0.1" and "1e300" pass, while a 19-digit decimal, "1e-400" (0) and "1e400" (infinity) do not.
// encoding/json writes float64 values this way already; json.Number, json.RawMessage and custom
// marshalers can write anything.
func unsafeNumber(n []byte) bool {
	if !isDecimal(n) {
		return unsafeInteger(n)
	}
	digits := 0
	for _, c := range n {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	if digits <= 15 && !bytes.ContainsAny(n, "eE") {
		return false // at most 15 significant digits within ±1e15..1e-15: always exact as a double
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return true
	}
	var buf [32]byte
	return !sameDecimal(n, strconv.AppendFloat(buf[:0], f, 'e', -1, 64))
}

func isDecimal(n []byte) bool { return bytes.ContainsAny(n, ".eE") }

// sameDecimal reports whether two JSON number literals have the same decimal value.
func sameDecimal(a, b []byte) bool {
	na, da, ea, oka := normDecimal(a)
	nb, db, eb, okb := normDecimal(b)
	if !oka || !okb {
		return false
	}
	if len(da) == 0 || len(db) == 0 {
		return len(da) == len(db) // zero, whatever its sign
	}
	return na == nb && ea == eb && bytes.Equal(da, db)
}

// normDecimal returns a number literal's value as sign, significant digits (no leading or
// trailing zero, a copy) and exponent e, the value being 0.digits × 10^e; ok is false for an
// exponent beyond ±10^6 (such a literal is never a double's own text).
func normDecimal(n []byte) (neg bool, digits []byte, e int, ok bool) {
	if len(n) > 0 && n[0] == '-' {
		neg, n = true, n[1:]
	}
	mant, exp := n, []byte(nil)
	if i := bytes.IndexAny(n, "eE"); i >= 0 {
		mant, exp = n[:i], n[i+1:]
	}
	intPart, frac := mant, []byte(nil)
	if i := bytes.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	e = len(intPart)
	digits = make([]byte, 0, len(intPart)+len(frac))
	digits = append(append(digits, intPart...), frac...)
	for len(digits) > 0 && digits[0] == '0' {
		digits, e = digits[1:], e-1
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		return neg, nil, 0, true // zero, whatever the exponent
	}
	if len(exp) > 0 {
		x, err := strconv.Atoi(string(exp))
		if err != nil || x > 1e6 || x < -1e6 {
			return false, nil, 0, false
		}
		e += x
	}
	return neg, digits, e, true
}

// unsafeInteger reports whether the integer literal n is beyond ±2^53.
func unsafeInteger(n []byte) bool {
	if bytes.ContainsAny(n, ".eE") {
		return false
	}
	if len(n) > 0 && n[0] == '-' {
		n = n[1:]
	}
	switch {
	case len(n) < len(maxSafeInt):
		return false
	case len(n) > len(maxSafeInt):
		return true
	default:
		return string(n) > maxSafeInt
	}
}

// pointerAt returns the JSON pointer of the innermost property or element containing offset at,
// for error messages ("/lines/3/amount"). It is only called after a problem was found.
func pointerAt(doc []byte, at int) string {
	type frame struct {
		array bool
		index int
		key   string
	}
	var stack []frame
	expectKey := false
	for i := 0; i < len(doc) && i < at; {
		c := doc[i]
		switch c {
		case '{':
			stack = append(stack, frame{})
			expectKey = true
			i++
		case '[':
			stack = append(stack, frame{array: true})
			i++
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			i++
		case ',':
			if n := len(stack); n > 0 {
				if stack[n-1].array {
					stack[n-1].index++
				} else {
					expectKey = true
				}
			}
			i++
		case '"':
			j := skipString(doc, i)
			if expectKey && len(stack) > 0 {
				var k string
				if s, err := strconv.Unquote(string(doc[i:j])); err == nil {
					k = s
				}
				stack[len(stack)-1].key = k
				expectKey = false
			}
			i = j
		default:
			i++
		}
	}
	var p []byte
	for idx, f := range stack {
		if idx == 0 && !f.array && f.key == "" {
			continue
		}
		p = append(p, '/')
		if f.array {
			p = strconv.AppendInt(p, int64(f.index), 10)
		} else {
			for _, r := range []byte(f.key) {
				switch r {
				case '~':
					p = append(p, '~', '0')
				case '/':
					p = append(p, '~', '1')
				default:
					p = append(p, r)
				}
			}
		}
	}
	if len(p) == 0 {
		return "/"
	}
	return string(p)
}
