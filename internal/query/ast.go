package query

// expr is a scalar expression node.
type expr interface{ isExpr() }

type (
	litExpr struct{ v any }
	// paramExpr is an @name reference, resolved from Options.Params at execution.
	paramExpr struct{ name string }
	// identExpr is a reference to a FROM binding, resolved to a scope depth and slot.
	identExpr struct {
		name  string
		depth int
		slot  int
	}
	propExpr struct {
		obj    expr
		name   string
		quoted bool // written obj["name"] (the plan's rewritten query keeps it)
	}
	indexExpr struct {
		obj   expr
		index expr
	}
	arrayExpr  struct{ elems []expr }
	objectExpr struct {
		keys []string
		vals []expr
	}
	unaryExpr struct {
		op string
		x  expr
	}
	binaryExpr struct {
		op   string
		l, r expr
	}
	inExpr struct {
		x    expr
		list []expr
		not  bool
	}
	betweenExpr struct {
		x, lo, hi expr
		not       bool
	}
	likeExpr struct {
		x, pattern, escape expr
		not                bool
	}
	condExpr struct{ cond, a, b expr }
	callExpr struct {
		name    string // upper case
		written string // as written in the query text (the plan's rewritten query keeps it)
		args    []expr
		fn      *builtin
		agg     aggKind
	}
	subqueryExpr struct {
		q    *selectQuery
		kind subKind
	}
)

func (litExpr) isExpr()      {}
func (paramExpr) isExpr()    {}
func (*identExpr) isExpr()   {}
func (propExpr) isExpr()     {}
func (indexExpr) isExpr()    {}
func (arrayExpr) isExpr()    {}
func (objectExpr) isExpr()   {}
func (unaryExpr) isExpr()    {}
func (binaryExpr) isExpr()   {}
func (inExpr) isExpr()       {}
func (betweenExpr) isExpr()  {}
func (likeExpr) isExpr()     {}
func (condExpr) isExpr()     {}
func (*callExpr) isExpr()    {}
func (subqueryExpr) isExpr() {}

type subKind int

const (
	subScalar subKind = iota
	subExists
	subArray
)

type aggKind int

const (
	aggNone aggKind = iota
	aggCount
	aggSum
	aggMin
	aggMax
	aggAvg
	aggMakeList
	aggMakeSet
	aggCountIf
)

var aggNames = map[string]aggKind{"COUNT": aggCount, "SUM": aggSum, "MIN": aggMin, "MAX": aggMax, "AVG": aggAvg,
	"MAKELIST": aggMakeList, "MAKESET": aggMakeSet, "COUNTIF": aggCountIf}

func (k aggKind) planName() string {
	return [...]string{"", "Count", "Sum", "Min", "Max", "Average", "MakeList", "MakeSet", "CountIf"}[k]
}

type selectItem struct {
	x       expr
	name    string // output property name (alias, path tail or $n)
	aliased bool   // the name was written (AS alias or a bare alias)
}

type orderItem struct {
	x    expr
	desc bool
	asc  bool // ASC was written (the plan's rewritten query keeps it)
}

// source is one FROM or JOIN input.
type source struct {
	alias string
	in    bool         // "alias IN expr": iterate the elements of expr
	x     expr         // the collection expression (nil when sub is set)
	sub   *selectQuery // "(SELECT ...) AS alias": iterate the subquery's results
}

type selectQuery struct {
	distinct  bool
	top       expr // litExpr or paramExpr, nil when absent
	star      bool
	value     expr // SELECT VALUE x
	items     []selectItem
	container string // the container name of the root FROM ("" without FROM or in subqueries)
	sources   []source
	where     expr
	groupBy   []expr
	orderBy   []orderItem
	offset    expr
	limit     expr
	hasAgg    bool // an aggregate appears in the select list or ORDER BY of this query level
	rank      bool // ORDER BY RANK <scoring function>: orderBy holds that one item (rank.go)
}
