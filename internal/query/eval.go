package query

import (
	"math"
	"regexp"
	"strings"
	"time"
)

// env is one scope of FROM bindings; parent is the enclosing query's scope (for correlated subqueries).
type env struct {
	vals   []any
	parent *env
	group  []*env // rows of the current group, when evaluating aggregates
	// grouped marks a group scope (group may then be empty: an aggregate over no rows).
	grouped bool
}

// evaluator holds per-execution state: parameters, caches and the clock.
type evaluator struct {
	params  map[string]any
	now     time.Time
	vector  VectorDefaults
	regexps map[string]*regexp.Regexp
	err     error // first runtime error (e.g. a bad argument the service rejects)
	// rootVals is the reused binding slice of the root query's "FROM c" rows.
	rootVals []any
}

func (ev *evaluator) fail(err error) {
	if ev.err == nil {
		ev.err = err
	}
}

func (ev *evaluator) eval(x expr, e *env) any {
	switch n := x.(type) {
	case litExpr:
		return n.v
	case paramExpr:
		v, ok := ev.params[n.name]
		if !ok {
			return undefined
		}
		return v
	case *identExpr:
		s := e
		for d := n.depth; d > 0 && s != nil; d-- {
			s = s.parent
		}
		if s == nil || n.slot >= len(s.vals) {
			return undefined
		}
		return s.vals[n.slot]
	case propExpr:
		o := ev.eval(n.obj, e)
		switch m := o.(type) {
		case map[string]any:
			if v, ok := m[n.name]; ok {
				return v
			}
		case *record:
			for i, k := range m.keys {
				if k == n.name {
					return m.vals[i]
				}
			}
		}
		return undefined
	case indexExpr:
		o := ev.eval(n.obj, e)
		idx := ev.eval(n.index, e)
		switch i := idx.(type) {
		case float64:
			if a, ok := o.([]any); ok && i >= 0 && i == math.Trunc(i) && i < float64(len(a)) {
				return a[int(i)]
			}
		case string:
			if m := asMap(o); m != nil {
				if v, ok := m[i]; ok {
					return v
				}
			}
		}
		return undefined
	case arrayExpr:
		out := make([]any, 0, len(n.elems))
		for _, el := range n.elems {
			v := ev.eval(el, e)
			if !isUndef(v) {
				out = append(out, plain(v))
			}
		}
		return out
	case objectExpr:
		out := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			v := ev.eval(n.vals[i], e)
			if !isUndef(v) {
				out[k] = plain(v)
			}
		}
		return out
	case unaryExpr:
		return ev.unary(n.op, ev.eval(n.x, e))
	case binaryExpr:
		return ev.binary(n, e)
	case inExpr:
		v := ev.eval(n.x, e)
		if isUndef(v) {
			return undefined
		}
		found := false
		for _, le := range n.list {
			if eq, ok := equalValues(v, ev.eval(le, e)); ok && eq {
				found = true
				break
			}
		}
		return found != n.not
	case betweenExpr:
		v := ev.eval(n.x, e)
		c1, ok1 := compareScalar(v, ev.eval(n.lo, e))
		c2, ok2 := compareScalar(v, ev.eval(n.hi, e))
		if !ok1 || !ok2 {
			return undefined
		}
		return (c1 >= 0 && c2 <= 0) != n.not
	case likeExpr:
		return ev.like(n, e)
	case condExpr:
		if c, ok := ev.eval(n.cond, e).(bool); ok && c {
			return ev.eval(n.a, e)
		}
		return ev.eval(n.b, e)
	case *callExpr:
		if n.agg != aggNone {
			return ev.aggregate(n, e)
		}
		args := make([]any, len(n.args))
		for i, a := range n.args {
			args[i] = ev.eval(a, e)
		}
		if n.name == "VECTORDISTANCE" {
			return ev.vectorDistance(n, args)
		}
		return n.fn.call(ev, args)
	case subqueryExpr:
		return ev.subquery(n, e)
	}
	return undefined
}

func (ev *evaluator) truthy(x expr, e *env) bool {
	b, ok := ev.eval(x, e).(bool)
	return ok && b
}

func (ev *evaluator) unary(op string, v any) any {
	switch op {
	case "NOT":
		if b, ok := v.(bool); ok {
			return !b
		}
	case "-":
		if f, ok := v.(float64); ok {
			return -f
		}
	case "+":
		if f, ok := v.(float64); ok {
			return f
		}
	case "~":
		if f, ok := v.(float64); ok {
			return float64(^toInt(f))
		}
	}
	return undefined
}

func toInt(f float64) int64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return int64(f)
}

func (ev *evaluator) binary(n binaryExpr, e *env) any {
	switch n.op {
	case "AND":
		l := ev.eval(n.l, e)
		if b, ok := l.(bool); ok && !b {
			return false
		}
		r := ev.eval(n.r, e)
		if b, ok := r.(bool); ok && !b {
			return false
		}
		lb, lok := l.(bool)
		rb, rok := r.(bool)
		if lok && rok {
			return lb && rb
		}
		return undefined
	case "OR":
		l := ev.eval(n.l, e)
		if b, ok := l.(bool); ok && b {
			return true
		}
		r := ev.eval(n.r, e)
		if b, ok := r.(bool); ok && b {
			return true
		}
		_, lok := l.(bool)
		_, rok := r.(bool)
		if lok && rok {
			return false
		}
		return undefined
	case "??":
		l := ev.eval(n.l, e)
		if !isUndef(l) {
			return l
		}
		return ev.eval(n.r, e)
	}
	l := ev.eval(n.l, e)
	r := ev.eval(n.r, e)
	switch n.op {
	case "=", "!=":
		eq, ok := equalValues(l, r)
		if !ok {
			return undefined
		}
		return eq == (n.op == "=")
	case "<", "<=", ">", ">=":
		c, ok := compareScalar(l, r)
		if !ok {
			return undefined
		}
		switch n.op {
		case "<":
			return c < 0
		case "<=":
			return c <= 0
		case ">":
			return c > 0
		}
		return c >= 0
	case "||":
		ls, ok1 := l.(string)
		rs, ok2 := r.(string)
		if ok1 && ok2 {
			return ls + rs
		}
		return undefined
	}
	a, ok1 := l.(float64)
	b, ok2 := r.(float64)
	if !ok1 || !ok2 {
		return undefined
	}
	var out float64
	switch n.op {
	case "+":
		out = a + b
	case "-":
		out = a - b
	case "*":
		out = a * b
	case "/":
		if b == 0 {
			return undefined
		}
		out = a / b
	case "%":
		if b == 0 {
			return undefined
		}
		out = math.Mod(a, b)
	case "&":
		out = float64(toInt(a) & toInt(b))
	case "|":
		out = float64(toInt(a) | toInt(b))
	case "^":
		out = float64(toInt(a) ^ toInt(b))
	case "<<":
		out = float64(int32(toInt(a)) << (uint(toInt(b)) & 31))
	case ">>":
		out = float64(int32(toInt(a)) >> (uint(toInt(b)) & 31))
	case ">>>":
		out = float64(uint32(toInt(a)) >> (uint(toInt(b)) & 31))
	default:
		return undefined
	}
	if math.IsNaN(out) || math.IsInf(out, 0) {
		return undefined
	}
	return out
}

func (ev *evaluator) like(n likeExpr, e *env) any {
	v := ev.eval(n.x, e)
	p := ev.eval(n.pattern, e)
	s, ok1 := v.(string)
	pat, ok2 := p.(string)
	if !ok1 || !ok2 {
		return undefined
	}
	esc := ""
	if n.escape != nil {
		es, ok := ev.eval(n.escape, e).(string)
		if !ok {
			return undefined
		}
		esc = es
	}
	re := ev.likeRegexp(pat, esc)
	if re == nil {
		return undefined
	}
	return re.MatchString(s) != n.not
}

// likeRegexp translates a LIKE pattern (% _ [set] [^set], with an optional escape character) into an
// anchored regular expression, cached per execution.
func (ev *evaluator) likeRegexp(pat, esc string) *regexp.Regexp {
	key := "like\x00" + esc + "\x00" + pat
	if re, ok := ev.regexps[key]; ok {
		return re
	}
	var b strings.Builder
	b.WriteString("(?s)^")
	rs := []rune(pat)
	var escR rune = -1
	if esc != "" {
		escR = []rune(esc)[0]
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == escR && i+1 < len(rs):
			i++
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		case r == '%':
			b.WriteString(".*")
		case r == '_':
			b.WriteString(".")
		case r == '[':
			j := i + 1
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				b.WriteString(`\[`)
				continue
			}
			set := rs[i+1 : j]
			b.WriteByte('[')
			for k, c := range set {
				switch {
				case k == 0 && c == '^':
					b.WriteByte('^')
				case c == '-' && k > 0 && k < len(set)-1:
					b.WriteByte('-')
				case c == '\\' || c == ']' || c == '[' || c == '^' || c == '-':
					b.WriteByte('\\')
					b.WriteRune(c)
				default:
					b.WriteRune(c)
				}
			}
			b.WriteByte(']')
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteByte('$')
	re, err := regexp.Compile(b.String())
	if err != nil {
		re = nil
	}
	if ev.regexps == nil {
		ev.regexps = map[string]*regexp.Regexp{}
	}
	ev.regexps[key] = re
	return re
}
