package vector

import (
	"context"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/plural"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// MethodFullText is Result.Method of a Text search: BM25 ranking, through the full-text index when
// the path has one (else the service scores without it, at a higher charge).
const MethodFullText Method = "fullText"

// MaxTerms bounds TextRank.Terms (each term is a parameter and a hit count in the statistics of
// a cross-partition search).
const MaxTerms = 16

// TextRank is the full-text part of a Text or Hybrid search. It ranks by ORDER BY RANK
// FullTextScore(path, terms...), alone (Text) or fused with the vector distance by reciprocal rank
// fusion (Hybrid: ORDER BY RANK RRF(VectorDistance(...), FullTextScore(...)[, weights])). The path
// need not be in the container's full-text policy nor have a full-text index: the service then
// scores without the index, at a higher RU charge (declare both for production). Each term is a
// word or a phrase, sent as a parameter.
type TextRank struct {
	// Path is the text's path ("/text"): letters, digits and _ per segment. Required.
	Path string
	// Terms are scored by BM25 (1 to MaxTerms, each with at least one letter or digit).
	Terms []string
	// Weights, for Hybrid only, are the weights of the vector ranking and the text ranking, in
	// that order (RRF's optional weights; a negative weight reverses its ranking). Default: equal.
	Weights []float64
}

var rankReserved = regexp.MustCompile(`^@(t[0-9]+|weights)$`)

// renderRanked validates and renders a Text (vector false) or Hybrid (vector true) search.
func (s *Searcher) renderRanked(q *Query, t TextRank, vector bool, ix Index, cond string, condParams []azcosmos.QueryParameter, defFields []string) (*plan, error) {
	if q.K < 1 || q.K > s.opts.MaxK {
		return nil, invalid(cosmoserr.ErrValidation, "K", "is %d: must be 1 to %d (Options.MaxK)", q.K, s.opts.MaxK)
	}
	textPath, err := sqlPath(t.Path)
	if err != nil {
		return nil, invalid(cosmoserr.ErrValidation, "TextRank.Path", "%q: a path of letters, digits and _ segments starting with /", t.Path)
	}
	if len(t.Terms) == 0 || len(t.Terms) > MaxTerms {
		return nil, invalid(cosmoserr.ErrValidation, "TextRank.Terms", "has %s: must be 1 to %d", plural.Count(len(t.Terms), "term", "terms"), MaxTerms)
	}
	for i, term := range t.Terms {
		if strings.IndexFunc(term, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
			return nil, invalid(cosmoserr.ErrValidation, "TextRank.Terms", "term %d has no letter or digit", i)
		}
	}
	for _, p := range q.Params {
		if rankReserved.MatchString(p.Name) {
			return nil, invalid(cosmoserr.ErrValidation, "Params", "parameter name %q is reserved by Text and Hybrid searches (@t<n>, @weights)", p.Name)
		}
	}
	lead := []azcosmos.QueryParameter{{Name: "@k", Value: q.K}}
	var dist string
	if vector {
		if err := checkVector(q.Vector, ix); err != nil {
			return nil, err
		}
		path, err := sqlPath(ix.Path)
		if err != nil {
			return nil, err
		}
		lead = append(lead, azcosmos.QueryParameter{Name: "@vector", Value: q.Vector})
		dist = "VectorDistance(" + path + ", @vector)"
		if q.Exact {
			dist = "VectorDistance(" + path + ", @vector, true)"
		}
		if len(t.Weights) != 0 && len(t.Weights) != 2 {
			return nil, invalid(cosmoserr.ErrValidation, "TextRank.Weights", "has %s: give none or two (vector, text)", plural.Count(len(t.Weights), "weight", "weights"))
		}
		for i, w := range t.Weights {
			if math.IsNaN(w) || math.IsInf(w, 0) {
				return nil, invalid(cosmoserr.ErrValidation, "TextRank.Weights", "weight %d is NaN or infinite", i)
			}
		}
	} else {
		if len(q.Vector) > 0 || q.Exact {
			return nil, invalid(cosmoserr.ErrValidation, "Vector", "a Text search takes no vector (use Hybrid)")
		}
		if len(t.Weights) > 0 {
			return nil, invalid(cosmoserr.ErrValidation, "TextRank.Weights", "only a Hybrid search has weights")
		}
	}
	terms := make([]string, len(t.Terms))
	for i, term := range t.Terms {
		terms[i] = "@t" + strconv.Itoa(i)
		lead = append(lead, azcosmos.QueryParameter{Name: terms[i], Value: term})
	}
	score := "FullTextScore(" + textPath + ", " + strings.Join(terms, ", ") + ")"
	if vector {
		if len(t.Weights) == 2 {
			lead = append(lead, azcosmos.QueryParameter{Name: "@weights", Value: t.Weights})
			score = "RRF(" + dist + ", " + score + ", @weights)"
		} else {
			score = "RRF(" + dist + ", " + score + ")"
		}
	}
	pl, where, proj, err := scope(q, ix, cond, condParams, defFields, lead...)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("SELECT TOP @k VALUE {\"item\": " + proj)
	if vector {
		b.WriteString(", \"score\": " + dist)
	}
	b.WriteString("} FROM c")
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	b.WriteString(" ORDER BY RANK " + score)
	pl.text = b.String()
	return pl, nil
}

// Text runs a full-text search: the K documents with the highest BM25 score for t.Terms at
// t.Path, best first (ORDER BY RANK FullTextScore). q.Vector must be empty; q.K, Where, Params,
// PartitionKey and Fields work as for Search. It needs no vector embedding policy, and no
// full-text policy or index either: the service serves FullTextScore without them (the full-text
// search documentation: such queries run, costing more RU and time), so a path outside
// Index.FullTextPaths is sent, not refused. Hit.Score is 0: the service does not return BM25
// scores (FullTextScore cannot be projected). Across partitions the scores use the statistics of
// the whole container (the plan's global statistics query).
func (s *Searcher) Text(ctx context.Context, q Query, t TextRank) (Result[json.RawMessage], error) {
	return s.ranked(ctx, q, t, false)
}

// Hybrid runs a hybrid search: the K documents best by reciprocal rank fusion of the vector ranking
// of q.Vector and the BM25 ranking of t.Terms, best first. The fusion uses k = 60 (ORDER BY RANK
// RRF(VectorDistance, FullTextScore[, weights])). Hit.Score is the vector score (as for Search);
// the fused score is not returned by the service.
func (s *Searcher) Hybrid(ctx context.Context, q Query, t TextRank) (Result[json.RawMessage], error) {
	return s.ranked(ctx, q, t, true)
}

func (s *Searcher) ranked(ctx context.Context, q Query, t TextRank, vector bool) (Result[json.RawMessage], error) {
	ix, err := s.index(ctx, vector)
	if err != nil {
		return Result[json.RawMessage]{}, err
	}
	def := append([]string{"id"}, topLevel(ix.PartitionKeyPaths)...)
	pl, err := s.renderRanked(&q, t, vector, ix, "", nil, def)
	if err != nil {
		return Result[json.RawMessage]{}, err
	}
	res := Result[json.RawMessage]{Method: rankedMethod(ix, q, vector), Index: ix, CrossPartition: pl.pk == nil}
	err = s.run(ctx, pl, q.K, func(r row) error {
		res.Hits = append(res.Hits, Hit[json.RawMessage](r))
		return nil
	}, &res.RequestCharge)
	return res, err
}

func rankedMethod(ix Index, q Query, vector bool) Method {
	if vector {
		return ix.Method(q.Exact)
	}
	return MethodFullText
}

// Text is Searcher.Text over the repository's items, with filter and fields as for Search.
func (x *Repo[T]) Text(ctx context.Context, q Query, t TextRank, filter *repository.Query) (Result[T], error) {
	return x.ranked(ctx, q, t, false, filter)
}

// Hybrid is Searcher.Hybrid over the repository's items, with filter and fields as for Search.
func (x *Repo[T]) Hybrid(ctx context.Context, q Query, t TextRank, filter *repository.Query) (Result[T], error) {
	return x.ranked(ctx, q, t, true, filter)
}

func (x *Repo[T]) ranked(ctx context.Context, q Query, t TextRank, vector bool, filter *repository.Query) (Result[T], error) {
	ix, cond, params, def, err := x.prepare(ctx, filter, vector)
	if err != nil {
		return Result[T]{}, err
	}
	if q.Fields != nil {
		q.Fields = append(append([]string(nil), q.Fields...), "id", "type", "schemaVersion")
	} else if !q.IncludeEmbedding {
		def = append(append([]string(nil), def...), "type", "schemaVersion")
	}
	pl, err := x.s.renderRanked(&q, t, vector, ix, cond, params, def)
	if err != nil {
		return Result[T]{}, err
	}
	res := Result[T]{Method: rankedMethod(ix, q, vector), Index: ix, CrossPartition: pl.pk == nil}
	err = x.collect(ctx, pl, q.K, &res)
	return res, err
}
