package cosmostest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// minimalEngine understands only what the SDK itself sends until internal/query lands:
// SELECT * FROM <alias> [WHERE <cond>], where <cond> combines with AND, OR, NOT and parentheses:
// <path> = <value>, <path> != <value> (and <, <=, >, >=), <path> IN (<value>, ...), IS_NULL(<path>),
// IS_DEFINED(<path>); <path> is alias.a.b or alias["a"]["b"]; <value> is @param, a string, number,
// true, false or null. Patch conditions ("from c where ...") use the same grammar.
// Anything else is a 400 that names cosmostest.
type minimalEngine struct{}

func (minimalEngine) parse(text string) (parsedQuery, error) {
	p := &mparser{toks: nil}
	if err := p.lex(text); err != nil {
		return nil, err
	}
	q := &mquery{}
	if !p.keyword("SELECT") {
		return nil, p.unsupported(text)
	}
	if !p.punct("*") {
		return nil, p.unsupported(text)
	}
	if err := p.from(q); err != nil {
		return nil, p.unsupported(text)
	}
	if p.keyword("WHERE") {
		e, err := p.expr(q.alias)
		if err != nil {
			return nil, p.unsupported(text)
		}
		q.where = e
	}
	if !p.done() {
		return nil, p.unsupported(text)
	}
	return q, nil
}

func (minimalEngine) match(condition string, doc map[string]any) (bool, error) {
	p := &mparser{}
	if err := p.lex(condition); err != nil {
		return false, err
	}
	q := &mquery{}
	if p.keyword("SELECT") && !p.punct("*") {
		return false, p.unsupported(condition)
	}
	if err := p.from(q); err != nil {
		return false, p.unsupported(condition)
	}
	if p.keyword("WHERE") {
		e, err := p.expr(q.alias)
		if err != nil {
			return false, p.unsupported(condition)
		}
		q.where = e
	}
	if !p.done() {
		return false, p.unsupported(condition)
	}
	if q.where == nil {
		return true, nil
	}
	v, err := q.where.eval(doc, nil)
	if err != nil {
		return false, err
	}
	return v == true, nil
}

type mquery struct {
	alias string
	where mexpr
}

func (q *mquery) info() queryInfo { return queryInfo{} }

func (q *mquery) partitionKeyFilter(paths []string, params map[string]any) ([]any, bool) {
	pinned := map[string]any{}
	var walk func(e mexpr)
	walk = func(e mexpr) {
		switch e := e.(type) {
		case *mlogic:
			if e.op == "AND" {
				walk(e.l)
				walk(e.r)
			}
		case *mcmp:
			if e.op != "=" {
				return
			}
			path, okp := e.l.(*mpath)
			val, okv := e.r.(mvalue)
			if !okp || !okv {
				path, okp = e.r.(*mpath)
				val, okv = e.l.(mvalue)
			}
			if okp && okv {
				v, err := val.value(params)
				if err == nil && v != undefinedValue {
					pinned["/"+strings.Join(path.segs, "/")] = v
				}
			}
		}
	}
	if q.where != nil {
		walk(q.where)
	}
	out := make([]any, len(paths))
	for i, p := range paths {
		v, ok := pinned[p]
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// minimalToken is the continuation token of the minimal engine: the key of the last result.
type minimalToken struct {
	Engine string `json:"cosmostest"`
	After  string `json:"after"`
}

func (q *mquery) execute(docs []queryDoc, opts queryOptions) (*queryPage, error) {
	after := ""
	if opts.Continuation != "" {
		raw, err := base64.RawURLEncoding.DecodeString(opts.Continuation)
		var tok minimalToken
		if err == nil {
			err = json.Unmarshal(raw, &tok)
		}
		if err != nil || tok.Engine != "minimal" {
			return nil, badRequest("cosmostest: the continuation token is not valid for this query.")
		}
		after = tok.After
	}
	limit := opts.MaxItemCount
	if limit == 0 {
		limit = 100
	}
	maxBytes := opts.MaxBytes
	if maxBytes <= 0 {
		maxBytes = 4 << 20
	}
	page := &queryPage{}
	size := 0
	lastKey := ""
	for _, d := range docs {
		if after != "" && d.Key <= after {
			continue
		}
		page.Scanned++
		if q.where != nil {
			v, err := q.where.eval(d.Value, opts.Params)
			if err != nil {
				return nil, err
			}
			if v != true {
				continue
			}
		}
		full := (limit > 0 && len(page.Results) >= limit) || size >= maxBytes
		if full {
			// There is at least one more result: emit a continuation.
			b, _ := json.Marshal(minimalToken{Engine: "minimal", After: lastKey})
			page.Continuation = base64.RawURLEncoding.EncodeToString(b)
			page.Scanned--
			return page, nil
		}
		b, err := json.Marshal(d.Value)
		if err != nil {
			return nil, err
		}
		page.Results = append(page.Results, b)
		size += len(b)
		lastKey = d.Key
	}
	return page, nil
}

// ---- expressions ----

type undefinedT struct{}

// undefinedValue is a missing property (distinct from JSON null).
var undefinedValue = undefinedT{}

type mexpr interface {
	eval(doc map[string]any, params map[string]any) (any, error)
}

type mvalue interface {
	mexpr
	value(params map[string]any) (any, error)
}

type mlit struct{ v any }

func (l mlit) eval(map[string]any, map[string]any) (any, error) { return l.v, nil }
func (l mlit) value(map[string]any) (any, error)                { return l.v, nil }

type mparam struct{ name string }

func (m mparam) eval(_ map[string]any, params map[string]any) (any, error) { return m.value(params) }
func (m mparam) value(params map[string]any) (any, error) {
	v, ok := params[m.name]
	if !ok {
		return nil, badRequest("Parameter %s is not defined.", m.name)
	}
	return v, nil
}

type mpath struct{ segs []string }

func (p *mpath) eval(doc map[string]any, _ map[string]any) (any, error) {
	var cur any = doc
	for _, s := range p.segs {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[s]
			if !ok {
				return undefinedValue, nil
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(c) {
				return undefinedValue, nil
			}
			cur = c[i]
		default:
			return undefinedValue, nil
		}
	}
	return cur, nil
}

type mcmp struct {
	op   string
	l, r mexpr
}

func (c *mcmp) eval(doc, params map[string]any) (any, error) {
	l, err := c.l.eval(doc, params)
	if err != nil {
		return nil, err
	}
	r, err := c.r.eval(doc, params)
	if err != nil {
		return nil, err
	}
	if l == undefinedValue || r == undefinedValue {
		return undefinedValue, nil
	}
	switch c.op {
	case "=":
		return jsonEqual(l, r), nil
	case "!=", "<>":
		return !jsonEqual(l, r), nil
	}
	cmp, ok := jsonCompare(l, r)
	if !ok {
		return undefinedValue, nil
	}
	switch c.op {
	case "<":
		return cmp < 0, nil
	case "<=":
		return cmp <= 0, nil
	case ">":
		return cmp > 0, nil
	default:
		return cmp >= 0, nil
	}
}

type inExpr struct {
	l    mexpr
	list []mexpr
}

func (m *inExpr) eval(doc, params map[string]any) (any, error) {
	l, err := m.l.eval(doc, params)
	if err != nil || l == undefinedValue {
		return undefinedValue, err
	}
	for _, e := range m.list {
		r, err := e.eval(doc, params)
		if err != nil {
			return nil, err
		}
		if jsonEqual(l, r) {
			return true, nil
		}
	}
	return false, nil
}

type mfunc struct {
	name string
	arg  mexpr
}

func (f *mfunc) eval(doc, params map[string]any) (any, error) {
	v, err := f.arg.eval(doc, params)
	if err != nil {
		return nil, err
	}
	if f.name == "IS_NULL" {
		return v == nil, nil
	}
	return v != undefinedValue, nil // IS_DEFINED
}

type mlogic struct {
	op   string // AND, OR, NOT
	l, r mexpr
}

func (m *mlogic) eval(doc, params map[string]any) (any, error) {
	l, err := m.l.eval(doc, params)
	if err != nil {
		return nil, err
	}
	switch m.op {
	case "NOT":
		if b, ok := l.(bool); ok {
			return !b, nil
		}
		return undefinedValue, nil
	case "AND":
		if l == false {
			return false, nil
		}
	case "OR":
		if l == true {
			return true, nil
		}
	}
	r, err := m.r.eval(doc, params)
	if err != nil {
		return nil, err
	}
	if m.op == "AND" {
		if r == false {
			return false, nil
		}
		if l == true && r == true {
			return true, nil
		}
		return undefinedValue, nil
	}
	if r == true {
		return true, nil
	}
	if l == false && r == false {
		return false, nil
	}
	return undefinedValue, nil
}

func jsonEqual(a, b any) bool {
	switch a.(type) {
	case float64, string, bool, nil:
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

func jsonCompare(a, b any) (int, bool) {
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok {
			switch {
			case x < y:
				return -1, true
			case x > y:
				return 1, true
			}
			return 0, true
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), true
		}
	}
	return 0, false
}

// ---- parser ----

type mtok struct {
	kind byte // 'i' ident, 'p' param, 's' string, 'n' number, 'o' punctuation
	text string
	val  any
}

type mparser struct {
	toks []mtok
	pos  int
}

func (p *mparser) unsupported(text string) error {
	return badRequest("cosmostest: this query is not supported until the cosmostest query engine lands (only the queries the SDK sends itself are): %q", text)
}

func (p *mparser) lex(s string) error {
	for i := 0; i < len(s); {
		ch := rune(s[i])
		switch {
		case unicode.IsSpace(ch):
			i++
		case ch == '@' || ch == '_' || unicode.IsLetter(ch):
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 0x80 || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			kind := byte('i')
			if ch == '@' {
				kind = 'p'
			}
			p.toks = append(p.toks, mtok{kind: kind, text: s[i:j]})
			i = j
		case ch == '\'' || ch == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && rune(s[j]) != ch; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
					switch s[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(s[j])
					}
					continue
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return badRequest("Syntax error, unterminated string literal.")
			}
			p.toks = append(p.toks, mtok{kind: 's', val: b.String()})
			i = j + 1
		case ch == '-' || (ch >= '0' && ch <= '9'):
			j := i + 1
			for j < len(s) && strings.ContainsRune("0123456789.eE+-", rune(s[j])) {
				j++
			}
			f, err := strconv.ParseFloat(s[i:j], 64)
			if err != nil {
				return badRequest("Syntax error, incorrect syntax near '%s'.", s[i:j])
			}
			p.toks = append(p.toks, mtok{kind: 'n', val: f})
			i = j
		default:
			for _, op := range []string{"!=", "<>", "<=", ">=", "=", "<", ">", "(", ")", ",", ".", "[", "]", "*"} {
				if strings.HasPrefix(s[i:], op) {
					p.toks = append(p.toks, mtok{kind: 'o', text: op})
					i += len(op)
					goto next
				}
			}
			return badRequest("Syntax error, incorrect syntax near '%c'.", ch)
		next:
		}
	}
	return nil
}

func (p *mparser) peek() *mtok {
	if p.pos < len(p.toks) {
		return &p.toks[p.pos]
	}
	return nil
}

func (p *mparser) done() bool { return p.pos >= len(p.toks) }

func (p *mparser) keyword(k string) bool {
	t := p.peek()
	if t != nil && t.kind == 'i' && strings.EqualFold(t.text, k) {
		p.pos++
		return true
	}
	return false
}

func (p *mparser) punct(o string) bool {
	t := p.peek()
	if t != nil && t.kind == 'o' && t.text == o {
		p.pos++
		return true
	}
	return false
}

var errSyntax = fmt.Errorf("syntax")

func (p *mparser) from(q *mquery) error {
	if !p.keyword("FROM") {
		return errSyntax
	}
	t := p.peek()
	if t == nil || t.kind != 'i' {
		return errSyntax
	}
	p.pos++
	q.alias = t.text
	p.keyword("AS")
	if t := p.peek(); t != nil && t.kind == 'i' && !strings.EqualFold(t.text, "WHERE") {
		q.alias = t.text
		p.pos++
	}
	return nil
}

func (p *mparser) expr(alias string) (mexpr, error) {
	l, err := p.and(alias)
	if err != nil {
		return nil, err
	}
	for p.keyword("OR") {
		r, err := p.and(alias)
		if err != nil {
			return nil, err
		}
		l = &mlogic{op: "OR", l: l, r: r}
	}
	return l, nil
}

func (p *mparser) and(alias string) (mexpr, error) {
	l, err := p.unary(alias)
	if err != nil {
		return nil, err
	}
	for p.keyword("AND") {
		r, err := p.unary(alias)
		if err != nil {
			return nil, err
		}
		l = &mlogic{op: "AND", l: l, r: r}
	}
	return l, nil
}

func (p *mparser) unary(alias string) (mexpr, error) {
	if p.keyword("NOT") {
		e, err := p.unary(alias)
		if err != nil {
			return nil, err
		}
		return &mlogic{op: "NOT", l: e}, nil
	}
	if p.punct("(") {
		e, err := p.expr(alias)
		if err != nil {
			return nil, err
		}
		if !p.punct(")") {
			return nil, errSyntax
		}
		return e, nil
	}
	for _, fn := range []string{"IS_NULL", "IS_DEFINED"} {
		if p.keyword(fn) {
			if !p.punct("(") {
				return nil, errSyntax
			}
			a, err := p.operand(alias)
			if err != nil {
				return nil, err
			}
			if !p.punct(")") {
				return nil, errSyntax
			}
			return &mfunc{name: fn, arg: a}, nil
		}
	}
	l, err := p.operand(alias)
	if err != nil {
		return nil, err
	}
	if p.keyword("IN") {
		if !p.punct("(") {
			return nil, errSyntax
		}
		in := &inExpr{l: l}
		for {
			e, err := p.operand(alias)
			if err != nil {
				return nil, err
			}
			in.list = append(in.list, e)
			if p.punct(")") {
				return in, nil
			}
			if !p.punct(",") {
				return nil, errSyntax
			}
		}
	}
	for _, op := range []string{"=", "!=", "<>", "<=", ">=", "<", ">"} {
		if p.punct(op) {
			r, err := p.operand(alias)
			if err != nil {
				return nil, err
			}
			return &mcmp{op: op, l: l, r: r}, nil
		}
	}
	return nil, errSyntax
}

func (p *mparser) operand(alias string) (mexpr, error) {
	t := p.peek()
	if t == nil {
		return nil, errSyntax
	}
	p.pos++
	switch t.kind {
	case 'p':
		return mparam{name: t.text}, nil
	case 's', 'n':
		return mlit{v: t.val}, nil
	case 'i':
		switch strings.ToLower(t.text) {
		case "true":
			return mlit{v: true}, nil
		case "false":
			return mlit{v: false}, nil
		case "null":
			return mlit{v: nil}, nil
		case "undefined":
			return mlit{v: undefinedValue}, nil
		}
		if t.text != alias {
			return nil, errSyntax
		}
		path := &mpath{}
		for {
			switch {
			case p.punct("."):
				n := p.peek()
				if n == nil || n.kind != 'i' {
					return nil, errSyntax
				}
				p.pos++
				path.segs = append(path.segs, n.text)
			case p.punct("["):
				n := p.peek()
				if n == nil || (n.kind != 's' && n.kind != 'n') {
					return nil, errSyntax
				}
				p.pos++
				if s, ok := n.val.(string); ok {
					path.segs = append(path.segs, s)
				} else {
					path.segs = append(path.segs, strconv.FormatFloat(n.val.(float64), 'f', -1, 64))
				}
				if !p.punct("]") {
					return nil, errSyntax
				}
			default:
				return path, nil
			}
		}
	}
	return nil, errSyntax
}
