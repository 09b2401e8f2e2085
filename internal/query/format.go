package query

import (
	"math"
	"strconv"
	"strings"
)

// formatExpr renders an expression as query text, in the service's form (obj["name"] as written).
func formatExpr(x expr) string { return exprFormat{keepQuoted: true}.expr(x) }

// formatList renders expressions separated by ", ".
func formatList(xs []expr) string { return exprFormat{keepQuoted: true}.list(xs) }

// exprKey renders an expression with obj["name"] as obj.name, to compare expressions.
func exprKey(x expr) string { return exprFormat{}.expr(x) }

// exprFormat renders expressions; keepQuoted keeps obj["name"] as written.
type exprFormat struct{ keepQuoted bool }

func (f exprFormat) expr(x expr) string {
	switch e := x.(type) {
	case litExpr:
		if isUndef(e.v) {
			return "undefined"
		}
		if n, ok := e.v.(float64); ok && n != math.Trunc(n) {
			// The service prints numbers that are not integers with 17 significant digits
			// (-0.0056763873435556889 for -0.005676387343555689), as C's %.17g does.
			return strconv.FormatFloat(n, 'g', 17, 64)
		}
		return string(marshalValue(nil, e.v))
	case paramExpr:
		return e.name
	case *identExpr:
		return e.name
	case propExpr:
		if isPlainName(e.name) && (!e.quoted || !f.keepQuoted) {
			return f.expr(e.obj) + "." + e.name
		}
		return f.expr(e.obj) + "[" + string(appendString(nil, e.name)) + "]"
	case indexExpr:
		if l, isLit := e.index.(litExpr); isLit && !f.keepQuoted {
			if name, isStr := l.v.(string); isStr && isPlainName(name) {
				return f.expr(e.obj) + "." + name // c["pk"] written with a literal index is c.pk
			}
		}
		return f.expr(e.obj) + "[" + formatExpr(e.index) + "]"
	case arrayExpr:
		return "[" + formatList(e.elems) + "]"
	case objectExpr:
		parts := make([]string, len(e.keys))
		for i, k := range e.keys {
			parts[i] = string(appendString(nil, k)) + ": " + formatExpr(e.vals[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case unaryExpr:
		if e.op == "NOT" {
			return "(NOT " + formatExpr(e.x) + ")"
		}
		return "(" + e.op + formatExpr(e.x) + ")"
	case binaryExpr:
		return "(" + formatExpr(e.l) + " " + e.op + " " + formatExpr(e.r) + ")"
	case inExpr:
		not := ""
		if e.not {
			not = "NOT "
		}
		return "(" + formatExpr(e.x) + " " + not + "IN (" + formatList(e.list) + "))"
	case betweenExpr:
		not := ""
		if e.not {
			not = "NOT "
		}
		return "(" + formatExpr(e.x) + " " + not + "BETWEEN " + formatExpr(e.lo) + " AND " + formatExpr(e.hi) + ")"
	case likeExpr:
		not := ""
		if e.not {
			not = "NOT "
		}
		s := "(" + formatExpr(e.x) + " " + not + "LIKE " + formatExpr(e.pattern)
		if e.escape != nil {
			s += " ESCAPE " + formatExpr(e.escape)
		}
		return s + ")"
	case condExpr:
		return "(" + formatExpr(e.cond) + " ? " + formatExpr(e.a) + " : " + formatExpr(e.b) + ")"
	case *callExpr:
		name := e.written
		if name == "" {
			name = e.name
		}
		return name + "(" + formatList(e.args) + ")"
	case subqueryExpr:
		pre := ""
		switch e.kind {
		case subExists:
			pre = "EXISTS"
		case subArray:
			pre = "ARRAY"
		}
		return pre + "(" + formatSelect(e.q, "") + ")"
	case placeholderExpr:
		return "(" + orderByFilter + ")"
	case rawExpr:
		return e.text
	}
	return ""
}

func (f exprFormat) list(xs []expr) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = f.expr(x)
	}
	return strings.Join(parts, ", ")
}

func isPlainName(s string) bool {
	if s == "" || !isIdentStart(s[0]) || keywords[strings.ToUpper(s)] {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentPart(s[i]) {
			return false
		}
	}
	return true
}
