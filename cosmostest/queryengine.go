package cosmostest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/cosmoskit/cosmoskit-go/internal/query"
)

// queryEngine is the seam between the handlers and the SQL engine (internal/query). Handlers only
// see this interface, so the engine can be swapped (or wrapped, e.g. to count executions) without
// touching them.
type queryEngine interface {
	// parse parses a query; errors are *statusError (400) with the service's message.
	parse(text string) (parsedQuery, error)
	// match evaluates a patch condition ("from c where c.n = 5") against one document.
	match(condition string, doc map[string]any) (bool, error)
}

type parsedQuery interface {
	// info reports the query's features and plan for a container with vector embedding policy vec
	// (which decides the plan's direction for ORDER BY VectorDistance).
	info(vec query.VectorDefaults) queryInfo
	partitionKeyFilter(paths []string, params map[string]any) (values []any, ok bool)
	// partitionKeyPoints returns the logical partitions (or key prefixes) the WHERE clause limits
	// the query to, for a plan's queryRanges (query.PartitionKeyPoints).
	partitionKeyPoints(paths []string, params map[string]any, geo query.Geospatial) (points [][]any, ok bool)
	// plan is the partitioned query execution info JSON (query.Plan).
	plan(opts query.PlanOptions) (json.RawMessage, error)
	// features lists the query features a client must implement to run it across partitions.
	features(opts query.PlanOptions) []string
	execute(docs []queryDoc, opts queryOptions) (*queryPage, error)
}

// queryInfo mirrors query.Info.
type queryInfo struct {
	HasOrderBy, HasTop, HasOffsetLimit, HasDistinct, HasGroupBy, HasAggregates bool
	HasNonStreamingOrderBy, HasSelectValue                                     bool
	Plan                                                                       json.RawMessage
	// OrderPaths are the plan's ORDER BY items as index paths when every one is a document path
	// (nil otherwise, and without ORDER BY); OrderKey names them (an index's key in a scope).
	OrderPaths []query.IndexPath
	OrderKey   string
}

// orderPaths reads the ORDER BY items of plan as index paths (orderByPath), or nil.
func orderPaths(plan json.RawMessage) []query.IndexPath {
	var p struct {
		QueryInfo struct {
			OrderBy            []string `json:"orderBy"`
			OrderByExpressions []string `json:"orderByExpressions"`
		} `json:"queryInfo"`
	}
	if json.Unmarshal(plan, &p) != nil || len(p.QueryInfo.OrderBy) != len(p.QueryInfo.OrderByExpressions) {
		return nil
	}
	var paths []query.IndexPath
	for i, x := range p.QueryInfo.OrderByExpressions {
		path, ok := orderByPath(x)
		if !ok {
			return nil // the engine reports ORDER BY items that are not document paths
		}
		paths = append(paths, query.IndexPath{Path: path, Descending: p.QueryInfo.OrderBy[i] == "Descending"})
	}
	return paths
}

// needsGatewayPlan reports whether a cross-partition run of the query must be refused with
// 400/1004 (rest_protocol §6).
func (i queryInfo) needsGatewayPlan() bool {
	return i.HasOrderBy || i.HasTop || i.HasOffsetLimit || i.HasDistinct || i.HasGroupBy || i.HasAggregates
}

// queryDoc mirrors query.Document: Key is unique and stable, docs are passed sorted by Key.
type queryDoc = query.Document

// queryOptions mirrors query.Options.
type queryOptions = query.Options

// queryPage mirrors query.Page.
type queryPage = query.Page

// engine is the query engine in use.
var engine queryEngine = sqlEngine{}

// sqlEngine adapts internal/query to queryEngine.
type sqlEngine struct{}

// parse parses text, or returns the query parsed from the same text before: a client sends one
// text for every range and every page of a query, and a parsed query is immutable (its info is
// memoized per vector policy under a lock). At most maxParsed texts are kept; the cache is
// emptied when full.
func (sqlEngine) parse(text string) (parsedQuery, error) {
	parsed.mu.Lock()
	q := parsed.m[text]
	parsed.mu.Unlock()
	if q != nil {
		return q, nil
	}
	pq, err := query.Parse(text)
	if err != nil {
		return nil, queryError(err)
	}
	q = &sqlQuery{q: pq}
	parsed.mu.Lock()
	if len(parsed.m) >= maxParsed {
		clear(parsed.m)
	}
	parsed.m[text] = q
	parsed.mu.Unlock()
	return q, nil
}

// maxParsed bounds the parsed queries kept (parse).
const maxParsed = 1024

var parsed = struct {
	mu sync.Mutex
	m  map[string]*sqlQuery
}{m: map[string]*sqlQuery{}}

func (sqlEngine) match(condition string, doc map[string]any) (bool, error) {
	ok, err := query.Match(condition, doc)
	return ok, queryError(err)
}

type sqlQuery struct {
	q *query.Query

	mu    sync.Mutex
	infos map[string]queryInfo // by vectorKey of the container's vector policy
}

// info is memoized: a query is planned once per vector policy, not on every request. Callers must
// not change the returned Plan.
func (s *sqlQuery) info(vec query.VectorDefaults) queryInfo {
	key := vectorKey(vec)
	s.mu.Lock()
	defer s.mu.Unlock()
	if qi, ok := s.infos[key]; ok {
		return qi
	}
	i := s.q.InfoFor(vec)
	qi := queryInfo{
		HasOrderBy: i.HasOrderBy, HasTop: i.HasTop, HasOffsetLimit: i.HasOffsetLimit,
		HasDistinct: i.HasDistinct, HasGroupBy: i.HasGroupBy, HasAggregates: i.HasAggregates,
		HasNonStreamingOrderBy: i.HasNonStreamingOrderBy, HasSelectValue: i.HasSelectValue, Plan: i.Plan,
	}
	if qi.HasOrderBy && !qi.HasNonStreamingOrderBy {
		if qi.OrderPaths = orderPaths(qi.Plan); qi.OrderPaths != nil {
			qi.OrderKey = fmt.Sprint(qi.OrderPaths)
		}
	}
	if s.infos == nil {
		s.infos = map[string]queryInfo{}
	}
	if len(s.infos) >= maxParsed {
		clear(s.infos)
	}
	s.infos[key] = qi
	return qi
}

// vectorKey identifies a vector policy: "" for none (no allocation), else its specs by path.
func vectorKey(vec query.VectorDefaults) string {
	if len(vec.ByPath) == 0 {
		return ""
	}
	paths := slices.Sorted(maps.Keys(vec.ByPath))
	var b strings.Builder
	for _, p := range paths {
		v := vec.ByPath[p]
		fmt.Fprintf(&b, "%q %q %q %d;", p, v.DistanceFunction, v.DataType, v.Dimensions)
	}
	return b.String()
}

func (s *sqlQuery) partitionKeyFilter(paths []string, params map[string]any) ([]any, bool) {
	return s.q.PartitionKeyFilter(paths, params)
}

func (s *sqlQuery) partitionKeyPoints(paths []string, params map[string]any, geo query.Geospatial) ([][]any, bool) {
	return s.q.PartitionKeyPoints(paths, params, geo)
}

func (s *sqlQuery) plan(opts query.PlanOptions) (json.RawMessage, error) { return s.q.Plan(opts) }

func (s *sqlQuery) features(opts query.PlanOptions) []string { return s.q.Features(opts) }

func (s *sqlQuery) execute(docs []queryDoc, opts queryOptions) (*queryPage, error) {
	p, err := s.q.Execute(docs, opts)
	return p, queryError(err)
}

// queryError turns an engine error into the service's 400.
func queryError(err error) error {
	if err == nil {
		return nil
	}
	var qe *query.Error
	if errors.As(err, &qe) {
		return &statusError{status: http.StatusBadRequest, substatus: qe.SubStatus, code: qe.Code, message: qe.Message}
	}
	return newError(http.StatusBadRequest, subNone, "%v", err)
}

// vectorDefaults converts a container's vectorEmbeddingPolicy for VectorDistance.
func (c *container) vectorDefaults() query.VectorDefaults {
	vd := query.VectorDefaults{}
	vep, _ := c.props["vectorEmbeddingPolicy"].(map[string]any)
	embs, _ := vep["vectorEmbeddings"].([]any)
	if len(embs) > 0 {
		vd.ByPath = map[string]query.VectorSpec{}
	}
	for _, e := range embs {
		m, _ := e.(map[string]any)
		path, _ := m["path"].(string)
		df, _ := m["distanceFunction"].(string)
		dt, _ := m["dataType"].(string)
		dim, _ := m["dimensions"].(float64)
		if path != "" {
			vd.ByPath[path] = query.VectorSpec{DistanceFunction: df, DataType: dt, Dimensions: int(dim)}
		}
	}
	return vd
}
