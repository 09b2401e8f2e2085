package query

import (
	"math"
	"regexp"
	"strings"
	"unicode/utf8"
)

func init() {
	register("CONCAT", 2, -1, func(ev *evaluator, a []any) any {
		n := 0
		for i := range a {
			s, ok := argStr(a, i)
			if !ok {
				return undefined
			}
			n += len(s)
		}
		if n > maxStringLen {
			ev.fail(resourceLimit())
			return undefined
		}
		var b strings.Builder
		for i := range a {
			b.WriteString(a[i].(string))
		}
		return b.String()
	})
	stringTest := func(name string, f func(s, t string) bool) {
		register(name, 2, 3, func(_ *evaluator, a []any) any {
			s, ok1 := argStr(a, 0)
			t, ok2 := argStr(a, 1)
			if !ok1 || !ok2 {
				return undefined
			}
			if len(a) == 3 {
				ic, ok := argBool(a, 2)
				if !ok {
					return undefined
				}
				if ic {
					s, t = strings.ToLower(s), strings.ToLower(t)
				}
			}
			return f(s, t)
		})
	}
	stringTest("CONTAINS", strings.Contains)
	// CONTAINS_ANY_CI/CS and CONTAINS_ALL_CI/CS: ORs and ANDs of CONTAINS (case-insensitive CI,
	// case-sensitive CS) with undefined's three-valued logic, as documented:
	// CONTAINS_ALL_CI("Have a nice day!", undefined, "nice", "day!") is undefined,
	// CONTAINS_ANY_CI("Have a nice day!", undefined, "had") undefined. A search value that is not a
	// string counts as undefined (unsure: the pages show only strings and undefined).
	containsSome := func(name string, all, ci bool) {
		register(name, 2, -1, func(_ *evaluator, a []any) any {
			s, ok := argStr(a, 0)
			if !ok {
				return undefined
			}
			if ci {
				s = strings.ToLower(s)
			}
			vs := make([]any, len(a)-1)
			for i, v := range a[1:] {
				t, ok := v.(string)
				switch {
				case !ok:
					vs[i] = undefined
				case ci:
					vs[i] = strings.ToLower(t)
				default:
					vs[i] = t
				}
			}
			has := func(v any) bool { return strings.Contains(s, v.(string)) }
			if all {
				return allOf(vs, has)
			}
			return anyOf(vs, has)
		})
	}
	containsSome("CONTAINS_ANY_CI", false, true)
	containsSome("CONTAINS_ANY_CS", false, false)
	containsSome("CONTAINS_ALL_CI", true, true)
	containsSome("CONTAINS_ALL_CS", true, false)
	// SUBSTRINGBEFORE, SUBSTRINGAFTER, LASTSUBSTRINGBEFORE, LASTSUBSTRINGAFTER split at the first
	// or last occurrence of the delimiter. A delimiter that does not occur gives "" (unsure: the
	// pages document only strings that hold it).
	around := func(name string, last, after bool) {
		register(name, 2, 2, func(_ *evaluator, a []any) any {
			s, ok1 := argStr(a, 0)
			d, ok2 := argStr(a, 1)
			if !ok1 || !ok2 {
				return undefined
			}
			i := strings.Index(s, d)
			if last {
				i = strings.LastIndex(s, d)
			}
			switch {
			case i < 0:
				return ""
			case after:
				return s[i+len(d):]
			}
			return s[:i]
		})
	}
	around("SUBSTRINGBEFORE", false, false)
	around("SUBSTRINGAFTER", false, true)
	around("LASTSUBSTRINGBEFORE", true, false)
	around("LASTSUBSTRINGAFTER", true, true)
	stringTest("STARTSWITH", strings.HasPrefix)
	stringTest("ENDSWITH", strings.HasSuffix)
	stringTest("STRINGEQUALS", func(s, t string) bool { return s == t })
	register("INDEX_OF", 2, 3, func(_ *evaluator, a []any) any {
		s, ok1 := argStr(a, 0)
		t, ok2 := argStr(a, 1)
		if !ok1 || !ok2 {
			return undefined
		}
		rs := []rune(s)
		start := 0
		if len(a) == 3 {
			n, ok := argInt(a, 2)
			if !ok {
				return undefined
			}
			start = n
		}
		if start < 0 || start > len(rs) {
			return float64(-1)
		}
		i := strings.Index(string(rs[start:]), t)
		if i < 0 {
			return float64(-1)
		}
		return float64(start + utf8.RuneCountInString(string(rs[start:])[:i]))
	})
	register("LASTINDEXOF", 2, 3, func(_ *evaluator, a []any) any {
		s, ok1 := argStr(a, 0)
		t, ok2 := argStr(a, 1)
		if !ok1 || !ok2 {
			return undefined
		}
		rs := []rune(s)
		tr := []rune(t)
		last := len(rs) - len(tr) // the last start of a match
		if len(a) == 3 {
			// The search proceeds from the position toward the beginning: a match must end at or
			// before it (documented: LASTINDEXOF("abcdeabc", "abc", 6) is 0, with 7 it is 5).
			n, ok := argInt(a, 2)
			if !ok {
				return undefined
			}
			if n < 0 {
				return float64(-1)
			}
			last = min(last, n-len(tr)+1)
		}
		for i := last; i >= 0; i-- {
			if string(rs[i:i+len(tr)]) == t {
				return float64(i)
			}
		}
		return float64(-1)
	})
	register("LEFT", 2, 2, func(_ *evaluator, a []any) any {
		s, ok1 := argStr(a, 0)
		n, ok2 := argInt(a, 1)
		if !ok1 || !ok2 || n < 0 {
			return undefined
		}
		rs := []rune(s)
		return string(rs[:min(n, len(rs))])
	})
	register("RIGHT", 2, 2, func(_ *evaluator, a []any) any {
		s, ok1 := argStr(a, 0)
		n, ok2 := argInt(a, 1)
		if !ok1 || !ok2 || n < 0 {
			return undefined
		}
		rs := []rune(s)
		return string(rs[len(rs)-min(n, len(rs)):])
	})
	register("LENGTH", 1, 1, func(_ *evaluator, a []any) any {
		s, ok := argStr(a, 0)
		if !ok {
			return undefined
		}
		return float64(utf8.RuneCountInString(s))
	})
	strMap := func(name string, f func(string) string) {
		register(name, 1, 1, func(_ *evaluator, a []any) any {
			s, ok := argStr(a, 0)
			if !ok {
				return undefined
			}
			return f(s)
		})
	}
	strMap("LOWER", strings.ToLower)
	strMap("UPPER", strings.ToUpper)
	trim := func(name string, f func(s, cutset string) string) {
		register(name, 1, 2, func(_ *evaluator, a []any) any {
			s, ok := argStr(a, 0)
			if !ok {
				return undefined
			}
			cutset := " \t\n\r\v\f"
			if len(a) == 2 {
				if cutset, ok = argStr(a, 1); !ok {
					return undefined
				}
			}
			return f(s, cutset)
		})
	}
	trim("TRIM", strings.Trim)
	trim("LTRIM", strings.TrimLeft)
	trim("RTRIM", strings.TrimRight)
	strMap("REVERSE", func(s string) string {
		rs := []rune(s)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs)
	})
	register("REPLACE", 3, 3, func(ev *evaluator, a []any) any {
		s, ok1 := argStr(a, 0)
		f, ok2 := argStr(a, 1)
		r, ok3 := argStr(a, 2)
		if !ok1 || !ok2 || !ok3 {
			return undefined
		}
		if f == "" {
			return s
		}
		if len(r) > len(f) && len(s)/len(f)*(len(r)-len(f)) > maxStringLen {
			ev.fail(resourceLimit())
			return undefined
		}
		return ev.checkString(strings.ReplaceAll(s, f, r))
	})
	register("REPLICATE", 2, 2, func(_ *evaluator, a []any) any {
		s, ok1 := argStr(a, 0)
		n, ok2 := argInt(a, 1)
		if !ok1 || !ok2 || n < 0 || len(s)*n > 10000 {
			return undefined
		}
		return strings.Repeat(s, n)
	})
	register("SUBSTRING", 3, 3, func(_ *evaluator, a []any) any {
		s, ok1 := argStr(a, 0)
		start, ok2 := argInt(a, 1)
		n, ok3 := argInt(a, 2)
		if !ok1 || !ok2 || !ok3 {
			return undefined
		}
		rs := []rune(s)
		if start < 0 {
			start = 0
		}
		if start >= len(rs) || n <= 0 {
			return ""
		}
		end := min(len(rs), start+n)
		return string(rs[start:end])
	})
	register("TOSTRING", 1, 1, func(_ *evaluator, a []any) any {
		switch v := a[0].(type) {
		case undefinedT:
			return undefined
		case string:
			return v
		case float64:
			switch {
			case math.IsNaN(v):
				return "NaN"
			case math.IsInf(v, 1):
				return "Infinity"
			case math.IsInf(v, -1):
				return "-Infinity"
			}
			return string(appendNumber(nil, v))
		default:
			return string(marshalValue(nil, v))
		}
	})
	fromJSON := func(name string, accept func(v any) bool) {
		register(name, 1, 1, func(_ *evaluator, a []any) any {
			s, ok := argStr(a, 0)
			if !ok {
				return undefined
			}
			v, err := Decode([]byte(strings.TrimSpace(s)))
			if err != nil || !accept(v) {
				return undefined
			}
			return v
		})
	}
	fromJSON("STRINGTONUMBER", func(v any) bool { _, ok := v.(float64); return ok })
	fromJSON("STRINGTOBOOLEAN", func(v any) bool { _, ok := v.(bool); return ok })
	fromJSON("STRINGTONULL", func(v any) bool { return v == nil })
	fromJSON("STRINGTOARRAY", func(v any) bool { _, ok := v.([]any); return ok })
	fromJSON("STRINGTOOBJECT", func(v any) bool { _, ok := v.(*record); return ok })
	register("STRINGJOIN", 2, 2, func(ev *evaluator, a []any) any {
		arr, ok1 := a[0].([]any)
		sep, ok2 := argStr(a, 1)
		if !ok1 || !ok2 {
			return undefined
		}
		parts := make([]string, len(arr))
		for i, e := range arr {
			s, ok := e.(string)
			if !ok {
				return undefined
			}
			parts[i] = s
		}
		return ev.checkString(strings.Join(parts, sep))
	})
	register("STRINGSPLIT", 2, 2, func(_ *evaluator, a []any) any {
		s, ok1 := argStr(a, 0)
		sep, ok2 := argStr(a, 1)
		if !ok1 || !ok2 {
			return undefined
		}
		if sep == "" {
			// Documented: STRINGSPLIT("Helmet", "") is ["Helmet"], STRINGSPLIT("", "") is [""].
			return []any{s}
		}
		parts := strings.Split(s, sep)
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out
	})
	register("REGEXMATCH", 2, 3, func(ev *evaluator, a []any) any {
		s, ok1 := argStr(a, 0)
		pat, ok2 := argStr(a, 1)
		if !ok1 || !ok2 {
			return undefined
		}
		mods := ""
		if len(a) == 3 {
			m, ok := argStr(a, 2)
			if !ok {
				return undefined
			}
			mods = m
		}
		re := ev.regexpFor(pat, mods)
		if re == nil {
			return undefined
		}
		return re.MatchString(s)
	})
}

// regexpFor compiles a REGEXMATCH pattern with its modifiers (m: multi-line, s: dot matches newline,
// i: ignore case, x: ignore whitespace in the pattern), cached per execution. It returns nil for an
// invalid pattern or modifier.
func (ev *evaluator) regexpFor(pat, mods string) *regexp.Regexp {
	key := "re\x00" + mods + "\x00" + pat
	if re, ok := ev.regexps[key]; ok {
		return re
	}
	flags := ""
	for _, m := range mods {
		switch m {
		case 'm', 's', 'i':
			if !strings.ContainsRune(flags, m) {
				flags += string(m)
			}
		case 'x':
			pat = stripPatternSpace(pat)
		default:
			ev.fail(badRequest("Invalid regular expression modifier '%c'.", m))
			return nil
		}
	}
	full := pat
	if flags != "" {
		full = "(?" + flags + ")" + pat
	}
	re, err := regexp.Compile(full)
	if err != nil {
		re = nil
	}
	if ev.regexps == nil {
		ev.regexps = map[string]*regexp.Regexp{}
	}
	ev.regexps[key] = re
	return re
}

// stripPatternSpace removes unescaped whitespace and #-comments, as the x modifier does.
func stripPatternSpace(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
		case c == '[':
			inClass = true
			b.WriteByte(c)
		case c == ']':
			inClass = false
			b.WriteByte(c)
		case !inClass && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
		case !inClass && c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
