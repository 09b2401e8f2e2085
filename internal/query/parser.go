package query

import (
	"cmp"
	"fmt"
	"math"
	"strings"
)

type parser struct {
	toks  []token
	i     int
	text  string
	depth int
	// udf is the first user-defined function call parsed ("udf.f"), "" if none.
	udf string
}

// maxDepth bounds expression nesting so that hostile input cannot exhaust the stack.
const maxDepth = 200

func (p *parser) peek() token { return p.at(0) }

// at returns the token k places ahead (the EOF token past the end).
func (p *parser) at(k int) token {
	if p.i+k >= len(p.toks) {
		return p.toks[len(p.toks)-1]
	}
	return p.toks[p.i+k]
}

func (p *parser) next() token {
	t := p.at(0)
	p.i++
	return t
}

func (p *parser) isKw(kw string) bool {
	t := p.at(0)
	return t.kind == tKeyword && t.text == kw
}

func (p *parser) isOp(op string) bool {
	t := p.at(0)
	return t.kind == tOp && t.text == op
}

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.i++
		return true
	}
	return false
}

// fail reports a syntax error at the current token.
func (p *parser) fail() error {
	t := p.peek()
	if t.kind == tEOF {
		return syntaxErrorEOF()
	}
	return syntaxErrorNear(p.tokText(t))
}

func (p *parser) tokText(t token) string {
	switch t.kind {
	case tKeyword:
		return p.text[t.pos : t.pos+len(t.text)]
	case tString, tNumber, tIdent, tParam, tOp:
		return t.text
	}
	return ""
}

func (p *parser) expectKw(kw string) error {
	if !p.acceptKw(kw) {
		return p.fail()
	}
	return nil
}

func (p *parser) expectOp(op string) error {
	if !p.acceptOp(op) {
		return p.fail()
	}
	return nil
}

func (p *parser) parseSelect() (*selectQuery, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, badRequest("The query is too deeply nested.")
	}
	q := &selectQuery{}
	for _, clause := range []func(q *selectQuery) error{
		p.parseSelectClause, p.parseFrom, p.parseWhere, p.parseGroupBy, p.parseOrderBy, p.parseOffsetLimit,
	} {
		if err := clause(q); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// parseSelectClause reads SELECT [DISTINCT] [TOP n] followed by *, VALUE x or a projection list.
func (p *parser) parseSelectClause(q *selectQuery) error {
	if err := p.expectKw("SELECT"); err != nil {
		return err
	}
	q.distinct = p.acceptKw("DISTINCT")
	if p.acceptKw("TOP") {
		t := p.next()
		switch t.kind {
		case tNumber:
			q.top = litExpr{t.num}
		case tParam:
			q.top = paramExpr{t.text}
		default:
			p.i--
			return p.fail()
		}
	}
	switch {
	case p.acceptOp("*"):
		q.star = true
	case p.acceptKw("VALUE"):
		x, err := p.parseExpr()
		if err != nil {
			return err
		}
		q.value = x
	default:
		n := 0 // unnamed items so far: they are named $1, $2, ...
		for {
			item, err := p.parseSelectItem(&n)
			if err != nil {
				return err
			}
			q.items = append(q.items, item)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	return nil
}

// parseSelectItem reads one projection with its alias (AS name, or a bare name); an item without
// one is named after its last property, or $n for the n-th unnamed item.
func (p *parser) parseSelectItem(unnamed *int) (selectItem, error) {
	x, err := p.parseExpr()
	if err != nil {
		return selectItem{}, err
	}
	item := selectItem{x: x}
	if p.acceptKw("AS") {
		t := p.next()
		if t.kind != tIdent {
			p.i--
			return selectItem{}, p.fail()
		}
		item.name = t.text
		item.aliased = true
	} else if p.peek().kind == tIdent {
		item.name = p.next().text
		item.aliased = true
	}
	if item.name == "" {
		switch x := x.(type) {
		case *identExpr:
			item.name = x.name
		case propExpr:
			item.name = x.name
		default:
			*unnamed++
			item.name = fmt.Sprintf("$%d", *unnamed)
		}
	}
	return item, nil
}

// parseFrom reads an optional FROM source and its JOINs.
func (p *parser) parseFrom(q *selectQuery) error {
	if !p.acceptKw("FROM") {
		return nil
	}
	src, container, err := p.parseSource(true)
	if err != nil {
		return err
	}
	q.container = container
	q.sources = append(q.sources, src)
	for p.acceptKw("JOIN") {
		src, _, err := p.parseSource(false)
		if err != nil {
			return err
		}
		q.sources = append(q.sources, src)
	}
	return nil
}

// parseWhere reads an optional WHERE condition.
func (p *parser) parseWhere(q *selectQuery) error {
	if !p.acceptKw("WHERE") {
		return nil
	}
	x, err := p.parseExpr()
	q.where = x
	return err
}

// parseGroupBy reads an optional GROUP BY list.
func (p *parser) parseGroupBy(q *selectQuery) error {
	if !p.isKw("GROUP") {
		return nil
	}
	p.next()
	if err := p.expectKw("BY"); err != nil {
		return err
	}
	for {
		x, err := p.parseExpr()
		if err != nil {
			return err
		}
		q.groupBy = append(q.groupBy, x)
		if !p.acceptOp(",") {
			return nil
		}
	}
}

// parseOrderBy reads an optional ORDER BY: RANK and one scoring function, or items with their
// directions.
func (p *parser) parseOrderBy(q *selectQuery) error {
	if !p.isKw("ORDER") {
		return nil
	}
	p.next()
	if err := p.expectKw("BY"); err != nil {
		return err
	}
	if t := p.peek(); t.kind == tIdent && strings.EqualFold(t.text, "RANK") && p.at(1).kind == tIdent {
		// ORDER BY RANK <scoring function>: one item, no direction (highest score first).
		p.next()
		x, err := p.parseExpr()
		if err != nil {
			return err
		}
		q.orderBy = []orderItem{{x: x, desc: true}}
		q.rank = true
		return nil
	}
	for {
		x, err := p.parseExpr()
		if err != nil {
			return err
		}
		it := orderItem{x: x}
		if p.acceptKw("DESC") {
			it.desc = true
		} else {
			it.asc = p.acceptKw("ASC")
		}
		q.orderBy = append(q.orderBy, it)
		if !p.acceptOp(",") {
			return nil
		}
	}
}

// parseOffsetLimit reads an optional OFFSET n LIMIT m.
func (p *parser) parseOffsetLimit(q *selectQuery) error {
	if !p.acceptKw("OFFSET") {
		return nil
	}
	x, err := p.parseCount()
	if err != nil {
		return err
	}
	q.offset = x
	if err := p.expectKw("LIMIT"); err != nil {
		return err
	}
	q.limit, err = p.parseCount()
	return err
}

func (p *parser) parseCount() (expr, error) {
	t := p.next()
	switch t.kind {
	case tNumber:
		return litExpr{t.num}, nil
	case tParam:
		return paramExpr{t.text}, nil
	}
	p.i--
	return nil, p.fail()
}

// parseSource reads "alias IN expr", "expr [AS] alias" or "(subquery) [AS] alias". For the root source it
// also returns the container name (the first identifier of the collection expression).
func (p *parser) parseSource(root bool) (source, string, error) {
	if p.peek().kind == tIdent && p.at(1).kind == tKeyword && p.at(1).text == "IN" {
		alias := p.next().text
		p.next()
		x, err := p.parsePostfix()
		if err != nil {
			return source{}, "", err
		}
		container := ""
		if root {
			if container = pathRoot(x); container == "" {
				return source{}, "", p.fail()
			}
		}
		return source{alias: alias, in: true, x: x}, container, nil
	}
	var src source
	container := ""
	if p.isOp("(") && p.at(1).kind == tKeyword && p.at(1).text == "SELECT" {
		p.next()
		sub, err := p.parseSelect()
		if err != nil {
			return source{}, "", err
		}
		if err := p.expectOp(")"); err != nil {
			return source{}, "", err
		}
		src.sub = sub
	} else {
		x, err := p.parsePostfix()
		if err != nil {
			return source{}, "", err
		}
		container = pathRoot(x)
		if container == "" {
			return source{}, "", p.fail()
		}
		src.x = x
		switch x := x.(type) {
		case *identExpr:
			src.alias = x.name
		case propExpr:
			src.alias = x.name
		}
	}
	if p.acceptKw("AS") {
		t := p.next()
		if t.kind != tIdent {
			p.i--
			return source{}, "", p.fail()
		}
		src.alias = t.text
	} else if p.peek().kind == tIdent {
		src.alias = p.next().text
	}
	if src.alias == "" && src.sub == nil {
		return source{}, "", p.fail()
	}
	if !root {
		container = ""
	}
	return src, container, nil
}

// pathRoot returns the identifier a path expression (c, c.a, c["a"][0]) starts from, or "".
func pathRoot(x expr) string {
	for {
		switch e := x.(type) {
		case *identExpr:
			return e.name
		case propExpr:
			x = e.obj
		case indexExpr:
			if _, ok := e.index.(litExpr); !ok {
				return ""
			}
			x = e.obj
		default:
			return ""
		}
	}
}

func (p *parser) parseExpr() (expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, badRequest("The query is too deeply nested.")
	}
	return p.parseTernary()
}

func (p *parser) parseTernary() (expr, error) {
	c, err := p.parseCoalesce()
	if err != nil {
		return nil, err
	}
	if !p.acceptOp("?") {
		return c, nil
	}
	a, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if err := p.expectOp(":"); err != nil {
		return nil, err
	}
	b, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	return condExpr{c, a, b}, nil
}

func (p *parser) parseCoalesce() (expr, error) {
	l, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	for p.acceptOp("??") {
		r, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		l = binaryExpr{"??", l, r}
	}
	return l, nil
}

func (p *parser) parseOr() (expr, error) {
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.acceptKw("OR") {
		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		l = binaryExpr{"OR", l, r}
	}
	return l, nil
}

func (p *parser) parseAnd() (expr, error) {
	l, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for p.acceptKw("AND") {
		r, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		l = binaryExpr{"AND", l, r}
	}
	return l, nil
}

// parseNot parses an AND operand. NOT itself is a unary operator that binds tighter than the binary
// operators (NOT c.a = 1 is (NOT c.a) = 1), as in the grammar of the SDKs' query parser.
func (p *parser) parseNot() (expr, error) {
	return p.parsePredicate()
}

func (p *parser) parsePredicate() (expr, error) {
	x, err := p.parseBinary(0)
	if err != nil {
		return nil, err
	}
	not := false
	if p.isKw("NOT") {
		n := p.at(1)
		if n.kind == tKeyword && (n.text == "IN" || n.text == "BETWEEN" || n.text == "LIKE") {
			p.next()
			not = true
		}
	}
	switch {
	case p.acceptKw("IN"):
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		var list []expr
		for {
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			list = append(list, e)
			if !p.acceptOp(",") {
				break
			}
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return inExpr{x, list, not}, nil
	case p.acceptKw("BETWEEN"):
		lo, err := p.parseBinary(0)
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("AND"); err != nil {
			return nil, err
		}
		hi, err := p.parseBinary(0)
		if err != nil {
			return nil, err
		}
		return betweenExpr{x, lo, hi, not}, nil
	case p.acceptKw("LIKE"):
		pat, err := p.parseBinary(0)
		if err != nil {
			return nil, err
		}
		var esc expr
		if p.acceptKw("ESCAPE") {
			if esc, err = p.parseBinary(0); err != nil {
				return nil, err
			}
		}
		return likeExpr{x, pat, esc, not}, nil
	}
	if not {
		return nil, p.fail()
	}
	return x, nil
}

// binaryLevels lists the binary operators from the loosest to the tightest binding.
var binaryLevels = [][]string{
	{"||"},
	{"|"},
	{"^"},
	{"&"},
	{"=", "!=", "<>"},
	{"<", "<=", ">", ">="},
	{"<<", ">>", ">>>"},
	{"+", "-"},
	{"*", "/", "%"},
}

func (p *parser) parseBinary(level int) (expr, error) {
	if level == len(binaryLevels) {
		return p.parseUnary()
	}
	l, err := p.parseBinary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tOp || !contains(binaryLevels[level], t.text) {
			return l, nil
		}
		p.next()
		r, err := p.parseBinary(level + 1)
		if err != nil {
			return nil, err
		}
		op := t.text
		if op == "<>" {
			op = "!="
		}
		l = binaryExpr{op, l, r}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (p *parser) parseUnary() (expr, error) {
	t := p.peek()
	if t.kind == tOp && (t.text == "-" || t.text == "+" || t.text == "~") {
		p.next()
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			return nil, badRequest("The query is too deeply nested.")
		}
		x, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		if l, ok := x.(litExpr); ok && t.text == "-" {
			if f, ok := l.v.(float64); ok {
				return litExpr{-f}, nil
			}
		}
		return unaryExpr{t.text, x}, nil
	}
	if p.isKw("NOT") {
		p.next()
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			return nil, badRequest("The query is too deeply nested.")
		}
		x, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return unaryExpr{"NOT", x}, nil
	}
	return p.parsePostfix()
}

func (p *parser) parsePostfix() (expr, error) {
	x, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.acceptOp("."):
			t := p.next()
			if t.kind != tIdent && t.kind != tKeyword {
				p.i--
				return nil, p.fail()
			}
			name := t.text
			if t.kind == tKeyword {
				name = p.text[t.pos : t.pos+len(t.text)]
			}
			x = propExpr{obj: x, name: name}
		case p.acceptOp("["):
			idx, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp("]"); err != nil {
				return nil, err
			}
			if l, ok := idx.(litExpr); ok {
				if s, ok := l.v.(string); ok {
					x = propExpr{obj: x, name: s, quoted: true}
					continue
				}
			}
			x = indexExpr{x, idx}
		default:
			return x, nil
		}
	}
}

func (p *parser) parsePrimary() (expr, error) {
	t := p.next()
	switch t.kind {
	case tNumber:
		return litExpr{t.num}, nil
	case tString:
		return litExpr{t.str}, nil
	case tParam:
		return paramExpr{t.text}, nil
	case tKeyword:
		switch t.text {
		case "TRUE":
			return litExpr{true}, nil
		case "FALSE":
			return litExpr{false}, nil
		case "NULL":
			return litExpr{nil}, nil
		case "UNDEFINED":
			return litExpr{undefined}, nil
		case "EXISTS", "ARRAY":
			if !p.isOp("(") || p.at(1).kind != tKeyword || p.at(1).text != "SELECT" {
				return nil, p.fail()
			}
			p.next()
			q, err := p.parseSelect()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			k := subExists
			if t.text == "ARRAY" {
				k = subArray
			}
			return subqueryExpr{q, k}, nil
		}
	case tIdent:
		if p.isOp("(") {
			return p.parseCall(t)
		}
		switch t.text {
		case "NaN":
			return litExpr{math.NaN()}, nil
		case "Infinity":
			return litExpr{math.Inf(1)}, nil
		}
		if strings.EqualFold(t.text, "udf") && p.isOp(".") {
			p.next()
			n := p.next()
			if n.kind == tIdent && p.isOp("(") {
				return p.parseUDFCall(t, n)
			}
			return nil, badRequest("'%s' is not a recognized user-defined function: cosmostest does not support user-defined functions.", "udf."+n.text)
		}
		return &identExpr{name: t.text, depth: -1}, nil
	case tOp:
		switch t.text {
		case "(":
			if p.isKw("SELECT") {
				q, err := p.parseSelect()
				if err != nil {
					return nil, err
				}
				if err := p.expectOp(")"); err != nil {
					return nil, err
				}
				return subqueryExpr{q, subScalar}, nil
			}
			x, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return x, nil
		case "[":
			var elems []expr
			if !p.acceptOp("]") {
				for {
					e, err := p.parseExpr()
					if err != nil {
						return nil, err
					}
					elems = append(elems, e)
					if !p.acceptOp(",") {
						break
					}
				}
				if err := p.expectOp("]"); err != nil {
					return nil, err
				}
			}
			return arrayExpr{elems}, nil
		case "{":
			o := objectExpr{}
			if !p.acceptOp("}") {
				for {
					k := p.next()
					var key string
					switch k.kind {
					case tString:
						key = k.str
					case tIdent:
						key = k.text
					case tKeyword:
						key = p.text[k.pos : k.pos+len(k.text)]
					default:
						p.i--
						return nil, p.fail()
					}
					if err := p.expectOp(":"); err != nil {
						return nil, err
					}
					v, err := p.parseExpr()
					if err != nil {
						return nil, err
					}
					o.keys = append(o.keys, key)
					o.vals = append(o.vals, v)
					if !p.acceptOp(",") {
						break
					}
				}
				if err := p.expectOp("}"); err != nil {
					return nil, err
				}
			}
			return o, nil
		}
	}
	p.i--
	return nil, p.fail()
}

func (p *parser) parseCall(name token) (expr, error) {
	up := strings.ToUpper(name.text)
	c, err := p.parseArgs(&callExpr{name: up, written: name.text})
	if err != nil {
		return nil, err
	}
	if k, ok := aggNames[up]; ok {
		c.agg = k
		if len(c.args) != 1 {
			return nil, badRequest("The function '%s' does not accept %d argument(s).", up, len(c.args))
		}
		return c, nil
	}
	fn, ok := builtins[up]
	if !ok {
		if reason, known := unsupportedFunctions[up]; known {
			return nil, badRequest("cosmostest does not support %s (%s).", up, reason)
		}
		return nil, badRequest("'%s' is not a recognized built-in function name.", name.text)
	}
	if len(c.args) < fn.min || fn.max >= 0 && len(c.args) > fn.max {
		return nil, badRequest("The function '%s' does not accept %d argument(s).", up, len(c.args))
	}
	c.fn = fn
	return c, nil
}

// parseArgs reads a call's parenthesized arguments into c, at its "(".
func (p *parser) parseArgs(c *callExpr) (*callExpr, error) {
	p.next() // (
	if p.acceptOp(")") {
		return c, nil
	}
	for {
		a, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		c.args = append(c.args, a)
		if !p.acceptOp(",") {
			break
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return c, nil
}

// parseUDFCall parses a user-defined function call after "udf" "." name, at its "(". The query
// parses and plans (the gateway plans udf calls without knowing the functions, the .NET baselines
// record such a plan) but does not run: cosmostest does not support user-defined functions, and
// Execute refuses the query (Query.udf).
func (p *parser) parseUDFCall(udf, name token) (expr, error) {
	c, err := p.parseArgs(&callExpr{name: "UDF." + strings.ToUpper(name.text), written: udf.text + "." + name.text})
	if err != nil {
		return nil, err
	}
	c.fn = &builtin{min: 0, max: -1, call: func(ev *evaluator, _ []any) any {
		ev.fail(unsupportedUDF(c.written))
		return undefined
	}}
	p.udf = cmp.Or(p.udf, c.written)
	return c, nil
}

// unsupportedUDF is the refusal of a query calling a user-defined function.
func unsupportedUDF(written string) *Error {
	return badRequest("'%s' is not a recognized user-defined function: cosmostest does not support user-defined functions.", written)
}

// unsupportedFunctions are the service's built-in functions cosmostest does not implement, with the
// reason: a query naming one is refused with an error naming cosmostest, never answered as if the
// function did not exist.
var unsupportedFunctions = map[string]string{}
