package query

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tKeyword
	tNumber
	tString
	tParam
	tOp
)

type token struct {
	kind tokKind
	text string  // identifier (original case), keyword (upper case), operator, or raw text
	str  string  // decoded string literal
	num  float64 // number literal
	pos  int
}

// keywords are the reserved words of the language; an identifier that spells one (in any case) is a
// keyword token.
var keywords = map[string]bool{
	"AND": true, "ARRAY": true, "AS": true, "ASC": true, "BETWEEN": true, "BY": true, "DESC": true,
	"DISTINCT": true, "ESCAPE": true, "EXISTS": true, "FALSE": true, "FROM": true, "GROUP": true,
	"IN": true, "JOIN": true, "LIKE": true, "LIMIT": true, "NOT": true, "NULL": true, "OFFSET": true,
	"OR": true, "ORDER": true, "SELECT": true, "TOP": true, "TRUE": true, "UNDEFINED": true,
	"VALUE": true, "WHERE": true,
}

// lex splits text into tokens. It reports the first character it cannot read as a syntax error.
func lex(text string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		}
		start := i
		switch {
		case isIdentStart(c):
			for i < len(text) && isIdentPart(text[i]) {
				i++
			}
			word := text[start:i]
			up := strings.ToUpper(word)
			if keywords[up] {
				toks = append(toks, token{kind: tKeyword, text: up, pos: start})
			} else {
				toks = append(toks, token{kind: tIdent, text: word, pos: start})
			}
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsLetter(r) {
				return nil, syntaxErrorNear(string(r))
			}
			i += n
			for i < len(text) {
				if isIdentPart(text[i]) {
					i++
					continue
				}
				if text[i] >= 0x80 {
					r, n := utf8.DecodeRuneInString(text[i:])
					if unicode.IsLetter(r) || unicode.IsDigit(r) {
						i += n
						continue
					}
				}
				break
			}
			toks = append(toks, token{kind: tIdent, text: text[start:i], pos: start})
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9':
			tok, n, err := lexNumber(text[i:])
			if err != nil {
				return nil, err
			}
			tok.pos = start
			toks = append(toks, tok)
			i += n
		case c == '\'' || c == '"':
			s, n, err := lexString(text[i:])
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tString, text: text[i : i+n], str: s, pos: start})
			i += n
		case c == '@':
			i++
			for i < len(text) && isIdentPart(text[i]) {
				i++
			}
			if i == start+1 {
				return nil, syntaxErrorNear("@")
			}
			toks = append(toks, token{kind: tParam, text: text[start:i], pos: start})
		default:
			op := lexOp(text[i:])
			if op == "" {
				r, _ := utf8.DecodeRuneInString(text[i:])
				return nil, syntaxErrorNear(string(r))
			}
			toks = append(toks, token{kind: tOp, text: op, pos: start})
			i += len(op)
		}
	}
	toks = append(toks, token{kind: tEOF, pos: len(text)})
	return toks, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}

var ops = []string{">>>", "??", "||", "<=", ">=", "!=", "<>", "<<", ">>",
	"=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "~", "(", ")", "[", "]", "{", "}", ",", ".", ":", "?"}

func lexOp(s string) string {
	for _, op := range ops {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}

func lexNumber(s string) (token, int, error) {
	i := 0
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		i = 2
		for i < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[i]) >= 0 {
			i++
		}
		v, err := strconv.ParseUint(s[2:i], 16, 64)
		if err != nil || i == 2 {
			return token{}, 0, syntaxErrorNear(s[:i])
		}
		return token{kind: tNumber, text: s[:i], num: float64(v)}, i, nil
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			i = j
		}
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return token{}, 0, syntaxErrorNear(s[:i])
	}
	return token{kind: tNumber, text: s[:i], num: v}, i, nil
}

// lexString reads a quoted string literal with JSON-style escapes and returns its value and length.
func lexString(s string) (string, int, error) {
	quote := s[0]
	var b strings.Builder
	i := 1
	for i < len(s) {
		c := s[i]
		switch c {
		case quote:
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return "", 0, syntaxErrorEOF()
			}
			e := s[i+1]
			i += 2
			switch e {
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if i+4 > len(s) {
					return "", 0, syntaxErrorNear(s[i-2:])
				}
				v, err := strconv.ParseUint(s[i:i+4], 16, 32)
				if err != nil {
					return "", 0, syntaxErrorNear(s[i-2 : i+4])
				}
				i += 4
				r := rune(v)
				if r >= 0xD800 && r < 0xDC00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if lo, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil && lo >= 0xDC00 && lo < 0xE000 {
						r = (r-0xD800)<<10 + (rune(lo) - 0xDC00) + 0x10000
						i += 6
					}
				}
				b.WriteRune(r)
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, syntaxErrorEOF()
}
