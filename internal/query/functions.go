package query

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"strings"
)

// builtin is a system function: min/max arguments (max -1: any number) and its implementation.
type builtin struct {
	min, max int
	call     func(ev *evaluator, args []any) any
}

// builtins maps upper-case function names to their implementations; filled by init functions of the
// files that define them.
var builtins = map[string]*builtin{}

func register(name string, min, max int, f func(ev *evaluator, args []any) any) {
	builtins[strings.ToUpper(name)] = &builtin{min: min, max: max, call: f}
}

func init() {
	typeCheck := func(name string, f func(v any) bool) {
		register(name, 1, 1, func(_ *evaluator, a []any) any { return f(a[0]) })
	}
	typeCheck("IS_DEFINED", func(v any) bool { return !isUndef(v) })
	typeCheck("IS_NULL", func(v any) bool { return v == nil })
	typeCheck("IS_BOOL", func(v any) bool { _, ok := v.(bool); return ok })
	typeCheck("IS_NUMBER", func(v any) bool { _, ok := v.(float64); return ok })
	typeCheck("IS_STRING", func(v any) bool { _, ok := v.(string); return ok })
	typeCheck("IS_ARRAY", func(v any) bool { _, ok := v.([]any); return ok })
	typeCheck("IS_OBJECT", func(v any) bool { return typeRank(v) == 6 })
	typeCheck("IS_PRIMITIVE", func(v any) bool {
		switch v.(type) {
		case nil, bool, float64, string:
			return true
		}
		return false
	})
	typeCheck("IS_INTEGER", func(v any) bool {
		f, ok := v.(float64)
		return ok && f == math.Trunc(f) && math.Abs(f) <= 1<<63
	})
	typeCheck("IS_FINITE_NUMBER", func(v any) bool {
		f, ok := v.(float64)
		return ok && !math.IsInf(f, 0) && !math.IsNaN(f)
	})
}

// Helpers that fetch typed arguments; ok is false when the argument has another type, which makes
// most functions return undefined.

func argNum(a []any, i int) (float64, bool) {
	if i >= len(a) {
		return 0, false
	}
	f, ok := a[i].(float64)
	return f, ok
}

func argStr(a []any, i int) (string, bool) {
	if i >= len(a) {
		return "", false
	}
	s, ok := a[i].(string)
	return s, ok
}

func argBool(a []any, i int) (bool, bool) {
	if i >= len(a) {
		return false, false
	}
	b, ok := a[i].(bool)
	return b, ok
}

func argInt(a []any, i int) (int, bool) {
	f, ok := argNum(a, i)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<52 {
		return 0, false
	}
	return int(f), true
}

// num is a math function's result. NaN and the infinities stay numbers (IS_FINITE_NUMBER tells
// them apart, comparisons see them); a query whose result holds one is refused (nonFinite): the
// service's answer to LOG10(0), COT(0), SQRT(-1), LOG of a negative number, an overflow.
func num(f float64) any { return f }

// hasNonFinite reports whether v holds NaN or an infinity at any depth.
func hasNonFinite(v any) bool {
	switch x := v.(type) {
	case float64:
		return math.IsNaN(x) || math.IsInf(x, 0)
	case []any:
		for _, e := range x {
			if hasNonFinite(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if hasNonFinite(e) {
				return true
			}
		}
	case *record:
		for _, e := range x.vals {
			if hasNonFinite(e) {
				return true
			}
		}
	}
	return false
}

func init() {
	// DOCUMENTID(root) is the document's number within its physical partition: the last eight
	// bytes of its _rid, little-endian (the reference's example: _rid 36ZyAPW+uN8NAAAAAAAAAA== is
	// document 13). Undefined for a value without such a _rid (unsure whether the service refuses
	// an argument that is not the root alias; the reference allows only that).
	register("DOCUMENTID", 1, 1, func(_ *evaluator, a []any) any {
		rid, ok := property(a[0], "_rid").(string)
		if !ok {
			return undefined
		}
		b, err := base64.StdEncoding.DecodeString(rid)
		if err != nil || len(b) != 16 {
			return undefined
		}
		return float64(binary.LittleEndian.Uint64(b[8:]))
	})
}
