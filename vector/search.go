package vector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/crosspartition"
	"github.com/cosmoskit/cosmoskit-go/internal/plural"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// DefaultMaxK is Options.MaxK when unset.
//
// Why 1,000: a cross-partition search asks every physical partition for its own top k and
// merges them in memory (crosspartition's non-streaming ORDER BY keeps a bounded top-k buffer and
// refuses TOP above its Options.MaxNonStreamingItems, 50,000 by default). With k at most 1,000,
// which is also the largest page a partition returns in one response, each partition answers in
// one round trip and the merge holds at most k rows; beyond that latency, memory and RU grow with
// k times the number of partitions, and approximate indexes (quantizedFlat, diskANN) lose
// recall. MaxK may be raised up to the crosspartition cap, never above it.
const DefaultMaxK = 1000

// Options configure a Searcher. The zero value is the documented defaults; Searcher.Options
// returns the options in effect.
type Options struct {
	// Path is the embedding's path in the container's vector embedding policy ("/embedding"):
	// letters, digits and _ between slashes. Default (""): the policy's only embedding (an error
	// at the first search if it has several).
	Path string
	// MaxK bounds Query.K. Default (0): DefaultMaxK (1,000), lowered to the crosspartition
	// engine's MaxNonStreamingItems if that is smaller. An explicit MaxK must be positive and at
	// most that cap.
	MaxK int
	// CrossPartition configures the engine of cross-partition searches (crosspartition.New
	// validates it). Default: its defaults (its Logger: slog.Default(), see crosspartition.Options).
	CrossPartition crosspartition.Options
}

// Searcher runs vector searches on one container. It is safe for concurrent use; keep one per
// container (it caches the container's vector policy and partition key ranges).
type Searcher struct {
	c    *azcosmos.ContainerClient
	xq   *crosspartition.Container
	opts Options

	mu     sync.Mutex
	idx    *Index
	vecErr error // the container has no vector embedding policy for the path (Text works without)
}

// New returns a Searcher over c. It sends no request; the container's properties are read on the
// first search (or Index) and cached. Errors: a *cosmoserr.ValidationError (matching
// cosmoserr.ErrValidation) naming the option ("Options.MaxK", "Options.Path",
// "Options.CrossPartition.MaxConcurrency", ...) for a nil c or a value that is neither zero nor
// usable.
func New(c *azcosmos.ContainerClient, o Options) (*Searcher, error) {
	if c == nil {
		return nil, invalid(cosmoserr.ErrValidation, "container", "is nil")
	}
	if o.Path != "" {
		if _, err := sqlPath(o.Path); err != nil {
			return nil, invalid(cosmoserr.ErrValidation, "Options.Path", "must be a path such as /embedding of letters, digits and _ only")
		}
	}
	xq, err := crosspartition.New(c, o.CrossPartition)
	if err != nil {
		var ve *cosmoserr.ValidationError
		if errors.As(err, &ve) {
			return nil, &cosmoserr.ValidationError{Kind: ve.Kind, Field: "Options.CrossPartition." + strings.TrimPrefix(ve.Field, "Options."), Reason: ve.Reason}
		}
		return nil, err
	}
	o.CrossPartition = xq.Options()
	switch {
	case o.MaxK < 0:
		return nil, invalid(cosmoserr.ErrValidation, "Options.MaxK", "must not be negative (0 means the default, %d)", DefaultMaxK)
	case o.MaxK > o.CrossPartition.MaxNonStreamingItems:
		return nil, invalid(cosmoserr.ErrValidation, "Options.MaxK", "is above Options.CrossPartition.MaxNonStreamingItems (%d), the most a cross-partition search can merge", o.CrossPartition.MaxNonStreamingItems)
	case o.MaxK == 0:
		o.MaxK = min(DefaultMaxK, o.CrossPartition.MaxNonStreamingItems)
	}
	return &Searcher{c: c, xq: xq, opts: o}, nil
}

// Options returns the options in effect.
func (s *Searcher) Options() Options { return s.opts }

// Index returns the container's vector policy for the Searcher's path, reading the container's
// properties on the first call (a failed read is not cached). A policy is immutable once the
// container exists, so the cache is never refreshed.
func (s *Searcher) Index(ctx context.Context) (Index, error) {
	return s.index(ctx, true)
}

// index returns the container's Index; with vector, the missing vector policy is an error.
func (s *Searcher) index(ctx context.Context, vector bool) (Index, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idx == nil {
		ix, vecErr, err := readIndex(ctx, s.c, s.opts.Path)
		if err != nil {
			return Index{}, err
		}
		s.idx, s.vecErr = &ix, vecErr
	}
	if vector && s.vecErr != nil {
		return Index{}, s.vecErr
	}
	return *s.idx, nil
}

// Query is one search. Vector and K are required.
type Query struct {
	// Vector is the query vector: exactly the policy's dimensions, no NaN or infinity, values
	// its data type can hold (int8: integers in [-128, 127]; uint8: [0, 255]). It is sent as the
	// parameter @vector.
	Vector []float32
	// K is how many hits to return (TOP @k), 1 to Options.MaxK.
	K int
	// Where is an optional condition over c with parameters ("c.category = @cat"): no string
	// literals (pass values in Params), and no parameters named @k, @vector, @type, @pk<n> or
	// @p<n> (the search's own and the repository filter's).
	Where  string
	Params []azcosmos.QueryParameter
	// PartitionKey scopes the search: partitionkey.Of with every component of the container's
	// key (one query to one partition) or a prefix of a hierarchical key (only the physical
	// partitions holding it), checked as partitionkey.Of checks it. Default (the zero Key): every partition
	// (cross-partition, merged to the global top K).
	PartitionKey partitionkey.Key
	// Fields are the top-level properties each hit returns. Default: "id" and the partition key
	// properties for a Searcher; the JSON fields of T for a Repo[T]. The embedding is never
	// returned unless IncludeEmbedding is set.
	Fields []string
	// IncludeEmbedding returns the embedding too (with no Fields, the whole document).
	IncludeEmbedding bool
	// Exact compares every document in scope (VectorDistance(..., true)), ignoring the vector
	// index: for recall checks of approximate indexes. Costs RU in proportion to the documents.
	Exact bool
}

// Hit is one result: the item and its score (a similarity for cosine and dot product, a
// distance for Euclidean: see Index.HigherIsCloser).
type Hit[T any] struct {
	Item  T
	Score float64
}

// Result is a search's hits, closest first, and what it cost.
type Result[T any] struct {
	Hits []Hit[T]
	// RequestCharge is the sum of the charges of every request (the query plan and each
	// partition's pages for a cross-partition search).
	RequestCharge float32
	// Method is what the search relied on: the vector index's type, or MethodBruteForce.
	Method Method
	// CrossPartition reports whether the search fanned out to several partitions.
	CrossPartition bool
	// Index is the container's vector policy the search used.
	Index Index
}

var (
	identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	paramName  = regexp.MustCompile(`^@[A-Za-z_][A-Za-z0-9_]*$`)
	reserved   = regexp.MustCompile(`^@(k|vector|type|pk[0-9]+|p[0-9]+)$`)
)

// sqlPath turns "/a/b" into c.a.b (identifiers only).
func sqlPath(p string) (string, error) {
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if !strings.HasPrefix(p, "/") {
		return "", invalid(cosmoserr.ErrNoPolicy, "Path", "%q does not start with /", p)
	}
	var b strings.Builder
	b.WriteString("c")
	for _, s := range segs {
		if !identifier.MatchString(s) {
			return "", invalid(cosmoserr.ErrNoPolicy, "Path", "%q: vector search supports paths of letters, digits and _ only", p)
		}
		b.WriteString("." + s)
	}
	return b.String(), nil
}

// checkVector validates v against the policy.
func checkVector(v []float32, ix Index) error {
	if len(v) != ix.Dimensions {
		return invalid(cosmoserr.ErrInvalidVector, "Vector", "has %s, the policy of %s has %d", plural.Count(len(v), "dimension", "dimensions"), ix.Path, ix.Dimensions)
	}
	for i, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return invalid(cosmoserr.ErrInvalidVector, "Vector", "component %d is NaN or infinite", i)
		}
		switch strings.ToLower(string(ix.DataType)) {
		case "int8":
			if f != math.Trunc(f) || f < -128 || f > 127 {
				return invalid(cosmoserr.ErrInvalidVector, "Vector", "component %d is not an int8", i)
			}
		case "uint8":
			if f != math.Trunc(f) || f < 0 || f > 255 {
				return invalid(cosmoserr.ErrInvalidVector, "Vector", "component %d is not a uint8", i)
			}
		case "float16":
			if math.Abs(f) > 65504 {
				return invalid(cosmoserr.ErrInvalidVector, "Vector", "component %d is out of float16 range", i)
			}
		}
	}
	return nil
}

// plan is a rendered search.
type plan struct {
	text   string
	params []azcosmos.QueryParameter
	pk     *azcosmos.PartitionKey // nil: cross-partition
}

// render validates q and builds its text. cond and condParams are an extra condition (the
// repository's filter); fields are the default fields.
func (s *Searcher) render(q *Query, ix Index, cond string, condParams []azcosmos.QueryParameter, defFields []string) (*plan, error) {
	if q.K < 1 || q.K > s.opts.MaxK {
		return nil, invalid(cosmoserr.ErrValidation, "K", "is %d: must be 1 to %d (Options.MaxK)", q.K, s.opts.MaxK)
	}
	if err := checkVector(q.Vector, ix); err != nil {
		return nil, err
	}
	path, err := sqlPath(ix.Path)
	if err != nil {
		return nil, err
	}
	pl, where, proj, err := scope(q, ix, cond, condParams, defFields,
		azcosmos.QueryParameter{Name: "@k", Value: q.K}, azcosmos.QueryParameter{Name: "@vector", Value: q.Vector})
	if err != nil {
		return nil, err
	}
	dist := "VectorDistance(" + path + ", @vector)"
	if q.Exact {
		dist = "VectorDistance(" + path + ", @vector, true)"
	}
	var b strings.Builder
	b.WriteString("SELECT TOP @k VALUE {\"item\": ")
	b.WriteString(proj)
	b.WriteString(", \"score\": " + dist + "} FROM c")
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	b.WriteString(" ORDER BY " + dist)
	pl.text = b.String()
	return pl, nil
}

// scope validates and renders what every search shares: the conditions (the repository's cond,
// Where, a hierarchical prefix), the parameters (lead first), the partition key and the projection
// of the item.
func scope(q *Query, ix Index, cond string, condParams []azcosmos.QueryParameter, defFields []string, lead ...azcosmos.QueryParameter) (*plan, []string, string, error) {
	params := make([]azcosmos.QueryParameter, 0, len(lead)+len(q.Params)+len(condParams)+q.PartitionKey.Len())
	params = append(params, lead...)
	var where []string
	if cond != "" {
		where = append(where, "("+cond+")")
		params = append(params, condParams...)
	}
	if strings.TrimSpace(q.Where) != "" {
		if strings.ContainsAny(q.Where, `'"`) {
			return nil, nil, "", invalid(cosmoserr.ErrValidation, "Where", "contains a string literal; pass values in Params")
		}
		if !contained(q.Where) {
			return nil, nil, "", invalid(cosmoserr.ErrValidation, "Where", "must be one self-contained condition: balanced parentheses, no comments or ';'")
		}
		where = append(where, "("+q.Where+")")
	}
	for _, p := range q.Params {
		if !paramName.MatchString(p.Name) || reserved.MatchString(p.Name) {
			return nil, nil, "", invalid(cosmoserr.ErrValidation, "Params", "parameter name %q must be @ followed by letters, digits or _, and not @k, @vector, @type, @pk<n> or @p<n>", p.Name)
		}
	}
	params = append(params, q.Params...)
	pl := &plan{}
	if err := q.PartitionKey.Err(); err != nil {
		return nil, nil, "", err // partitionkey.Of's refusal: cosmoserr.ErrInvalidPartitionKey naming the value
	}
	if n := q.PartitionKey.Len(); n > 0 {
		paths := ix.PartitionKeyPaths
		if n > len(paths) {
			return nil, nil, "", invalid(cosmoserr.ErrInvalidPartitionKey, "PartitionKey", "has %s, the container's key has %s", plural.Count(n, "value", "values"), plural.Count(len(paths), "level", "levels"))
		}
		if n == len(paths) {
			pk := q.PartitionKey.SDK()
			pl.pk = &pk
		} else {
			// A prefix of a hierarchical key: a condition the plan narrows the ranges by.
			for i, v := range q.PartitionKey.Values() {
				p, err := sqlPath(paths[i])
				if err != nil {
					return nil, nil, "", invalid(cosmoserr.ErrValidation, "PartitionKey", "path %q is not letters, digits and _", paths[i])
				}
				name := "@pk" + strconv.Itoa(i)
				where = append(where, p+" = "+name)
				params = append(params, azcosmos.QueryParameter{Name: name, Value: v})
			}
		}
	}
	fields := q.Fields
	if fields == nil {
		fields = defFields
	}
	top := strings.SplitN(strings.TrimPrefix(ix.Path, "/"), "/", 2)[0]
	var proj strings.Builder
	if len(q.Fields) == 0 && q.IncludeEmbedding {
		proj.WriteString("c")
	} else {
		proj.WriteString("{")
		n := 0
		for i, f := range fields {
			if !identifier.MatchString(f) {
				return nil, nil, "", invalid(cosmoserr.ErrValidation, "Fields", "%q is not a top-level property name (letters, digits, _)", f)
			}
			if (f == top && !q.IncludeEmbedding) || slices.Contains(fields[:i], f) {
				continue
			}
			if n > 0 {
				proj.WriteString(", ")
			}
			n++
			fmt.Fprintf(&proj, "%q: c.%s", f, f)
		}
		if q.IncludeEmbedding && !slices.Contains(fields, top) {
			fmt.Fprintf(&proj, ", %q: c.%s", top, top)
		}
		proj.WriteString("}")
	}
	pl.params = params
	return pl, where, proj.String(), nil
}

// row is one result row of a search query.
type row struct {
	Item  json.RawMessage `json:"item"`
	Score float64         `json:"score"`
}

// Search runs q and returns the hits as raw JSON items, closest first.
func (s *Searcher) Search(ctx context.Context, q Query) (Result[json.RawMessage], error) {
	ix, err := s.Index(ctx)
	if err != nil {
		return Result[json.RawMessage]{}, err
	}
	def := append([]string{"id"}, topLevel(ix.PartitionKeyPaths)...)
	pl, err := s.render(&q, ix, "", nil, def)
	if err != nil {
		return Result[json.RawMessage]{}, err
	}
	res := Result[json.RawMessage]{Method: ix.Method(q.Exact), Index: ix, CrossPartition: pl.pk == nil}
	err = s.run(ctx, pl, q.K, func(r row) error {
		res.Hits = append(res.Hits, Hit[json.RawMessage](r))
		return nil
	}, &res.RequestCharge)
	return res, err
}

// topLevel returns the top-level property of each single-segment path.
func topLevel(paths []string) []string {
	var out []string
	for _, p := range paths {
		if s := strings.TrimPrefix(p, "/"); identifier.MatchString(s) && s != "id" {
			out = append(out, s)
		}
	}
	return out
}

// run sends the search: one query to one partition, or the crosspartition engine.
func (s *Searcher) run(ctx context.Context, pl *plan, k int, each func(row) error, charge *float32) error {
	o := &azcosmos.QueryOptions{QueryParameters: pl.params, PageSizeHint: int32(k)}
	var next func() (azcosmos.QueryItemsResponse, error)
	var more func() bool
	if pl.pk != nil {
		p := s.c.NewQueryItemsPager(pl.text, *pl.pk, o)
		next, more = func() (azcosmos.QueryItemsResponse, error) { return p.NextPage(ctx) }, p.More
	} else {
		p := s.xq.NewQueryItemsPager(pl.text, o)
		next, more = func() (azcosmos.QueryItemsResponse, error) { return p.NextPage(ctx) }, p.More
	}
	n := 0
	for more() {
		page, err := next()
		*charge += page.RequestCharge
		if err != nil {
			return cosmoserr.FromError(cosmoserr.OpQueryItems, err)
		}
		for _, it := range page.Items {
			var r row
			if err := json.Unmarshal(it, &r); err != nil {
				return fmt.Errorf("vector: a result row is not {item, score}: %w", err)
			}
			if n == k {
				return nil
			}
			n++
			if err := each(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// contained reports whether a caller's condition stays inside the parentheses the search puts
// around it: its parentheses balance without ever closing one it did not open, and it holds no
// comment or statement separator that could hide the conditions after it (the type and partition
// key scope). With string literals refused before, no parenthesis hides inside a literal.
func contained(cond string) bool {
	if strings.Contains(cond, "--") || strings.Contains(cond, "/*") || strings.Contains(cond, "*/") || strings.Contains(cond, ";") {
		return false
	}
	depth := 0
	for i := 0; i < len(cond); i++ {
		switch cond[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}
