package cosmostest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// The Data Explorer's query editor and change feed view.

// explorerQueryFeatures is what the explorer's plan request says it supports: everything the
// other SDKs list, so the plan shown is the one their query engines would run.
const explorerQueryFeatures = "Aggregate, CompositeAggregate, Distinct, GroupBy, MultipleAggregates, MultipleOrderBy, OffsetAndLimit, OrderBy, Top, NonValueAggregate, DCount, NonStreamingOrderBy"

// queryRun is a query from the editor. PartitionKey, when set, is a JSON value (or an array of
// one value per path of a hierarchical key) and scopes the query to that logical partition, as
// azcosmos.NewPartitionKeyString does; otherwise the query runs across partitions as
// NewQueryItemsPager(query, azcosmos.NewPartitionKey(), nil) runs it. PageSize 0 leaves the page
// size to the service (as azcosmos does without PageSizeHint).
type queryRun struct {
	DB         string `json:"db"`
	Coll       string `json:"coll"`
	Query      string `json:"query"`
	Parameters []struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
	} `json:"parameters"`
	PartitionKey string `json:"partitionKey"`
	Continuation string `json:"continuation"`
	PageSize     int    `json:"pageSize"`
}

type metric struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type planView struct {
	QueryInfo   json.RawMessage `json:"queryInfo,omitempty"`
	QueryRanges json.RawMessage `json:"queryRanges,omitempty"`
	Charge      float64         `json:"charge"`
	Error       string          `json:"error,omitempty"`
}

type queryAnswer struct {
	Documents    []string `json:"documents"`
	Continuation string   `json:"continuation,omitempty"`
	Charge       float64  `json:"charge"`
	Metrics      []metric `json:"metrics"`
	IndexMetrics string   `json:"indexMetrics,omitempty"`
	Ranges       []string `json:"ranges"`
	Plan         planView `json:"plan"`
	ActivityID   string   `json:"activityId"`
}

// partitionKeyArg turns the editor's partition key into the header value: a JSON array as is,
// any other JSON value as the one value of the key.
func partitionKeyArg(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return "", refuse(`the partition key is a JSON value, e.g. "ada" or ["acme", 7]`)
	}
	if _, ok := v.([]any); !ok {
		s = "[" + s + "]"
	}
	var b bytes.Buffer
	_ = json.Compact(&b, []byte(s))
	return b.String(), nil
}

func (e *explorer) query(ctx context.Context, b queryRun) (int, any, error) {
	if b.DB == "" || b.Coll == "" || strings.TrimSpace(b.Query) == "" {
		return 0, nil, refuse("db, coll and query are required")
	}
	if b.PageSize < 0 || b.PageSize > 1000 {
		return 0, nil, refuse("pageSize is within [0, 1000]")
	}
	pk, err := partitionKeyArg(b.PartitionKey)
	if err != nil {
		return 0, nil, err
	}
	params := []map[string]any{}
	for _, p := range b.Parameters {
		if !strings.HasPrefix(p.Name, "@") || !json.Valid(p.Value) {
			return 0, nil, refuse("a parameter has a name starting with @ and a JSON value")
		}
		params = append(params, map[string]any{"name": p.Name, "value": p.Value})
	}
	body, _ := json.Marshal(map[string]any{"query": b.Query, "parameters": params})
	path := resourcePath("dbs", b.DB, "colls", b.Coll, "docs")

	out := queryAnswer{Documents: []string{}, Metrics: []metric{}, Ranges: []string{}}
	// The gateway's query plan (what the other SDKs ask for first), for the ranges it targets.
	ph := queryHeaders()
	ph.Set(hdrIsQueryPlan, "True")
	ph.Set("X-Ms-Cosmos-Query-Version", "1.0")
	ph.Set(hdrQueryFeatures, explorerQueryFeatures)
	var planRanges []epkSpan
	if g, err := e.srv.gateway(ctx, http.MethodPost, path, ph, body); err != nil {
		out.Plan.Error = err.Error()
	} else if !g.ok() {
		out.Plan.Error, out.Plan.Charge = g.failure().Message, g.charge()
	} else {
		var plan struct {
			QueryInfo   json.RawMessage `json:"queryInfo"`
			QueryRanges json.RawMessage `json:"queryRanges"`
		}
		_ = json.Unmarshal(g.body, &plan)
		out.Plan.QueryInfo, out.Plan.QueryRanges, out.Plan.Charge = plan.QueryInfo, plan.QueryRanges, g.charge()
		_ = json.Unmarshal(plan.QueryRanges, &planRanges)
	}

	h := queryHeaders()
	if pk != "" {
		h.Set(hdrPK, pk)
	}
	if b.PageSize > 0 {
		h.Set(hdrMaxItemCount, strconv.Itoa(b.PageSize))
	}
	if b.Continuation != "" {
		h.Set(hdrContinuation, b.Continuation)
	}
	g, err := e.call(ctx, http.MethodPost, path, h, body)
	if err != nil {
		return 0, nil, err
	}
	docs, err := feedDocs(g.body)
	if err != nil {
		return 0, nil, err
	}
	for _, d := range docs {
		var buf bytes.Buffer
		if json.Indent(&buf, d, "", "  ") != nil {
			buf.Reset()
			buf.Write(d)
		}
		out.Documents = append(out.Documents, buf.String())
	}
	out.Continuation, out.Charge = g.header.Get(hdrContinuation), g.charge()
	out.ActivityID = g.header.Get(hdrActivityID)
	out.IndexMetrics = g.header.Get(hdrIndexUtilization)
	for _, kv := range strings.Split(g.header.Get(hdrQueryMetrics), ";") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out.Metrics = append(out.Metrics, metric{Name: k, Value: v})
		}
	}
	if id := g.header.Get(hdrPKRangeID); id != "" {
		out.Ranges = []string{id}
	} else if planRanges != nil {
		out.Ranges, err = e.rangesOverlapping(ctx, path, planRanges)
		if err != nil {
			return 0, nil, err
		}
	}
	return http.StatusOK, out, nil
}

// epkSpan is one of a plan's queryRanges.
type epkSpan struct {
	Min          string `json:"min"`
	Max          string `json:"max"`
	MinInclusive bool   `json:"isMinInclusive"`
	MaxInclusive bool   `json:"isMaxInclusive"`
}

// rangesOverlapping returns the ids of the container's physical partitions that the spans touch.
// Effective partition keys are upper-case hex strings, which compare as the keys do.
func (e *explorer) rangesOverlapping(ctx context.Context, docsPath string, spans []epkSpan) ([]string, error) {
	g, err := e.call(ctx, http.MethodGet, strings.TrimSuffix(docsPath, "/docs")+"/pkranges", nil, nil)
	if err != nil {
		return nil, err
	}
	raws, err := feedDocs(g.body)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, raw := range raws {
		var r rangeView
		_ = json.Unmarshal(raw, &r)
		for _, s := range spans {
			// [r.Min, r.Max) meets the span unless the span ends before r starts or starts at or after r's end.
			endsBefore := s.Max < r.MinInclusive || (s.Max == r.MinInclusive && !s.MaxInclusive)
			if s.Min == s.Max && s.MinInclusive && s.MaxInclusive {
				endsBefore = s.Max < r.MinInclusive
			}
			startsAfter := s.Min >= r.MaxExclusive && r.MaxExclusive != "FF" || s.Min > "FF"
			if !endsBefore && !startsAfter {
				out = append(out, r.ID)
				break
			}
		}
	}
	return out, nil
}

type feedRange struct {
	ID      string     `json:"id"`
	Changes []itemView `json:"changes"`
	More    bool       `json:"more"`
	Charge  float64    `json:"charge"`
}

// changeFeed reads the latest-version change feed of each physical partition from the beginning
// (up to changeFeedPageSize changes of each), as a change feed processor reads it.
func (e *explorer) changeFeed(ctx context.Context, db, coll string) (int, any, error) {
	if db == "" || coll == "" {
		return 0, nil, refuse("db and coll are required")
	}
	coll0 := resourcePath("dbs", db, "colls", coll)
	g, err := e.call(ctx, http.MethodGet, coll0+"/pkranges", nil, nil)
	if err != nil {
		return 0, nil, err
	}
	raws, err := feedDocs(g.body)
	if err != nil {
		return 0, nil, err
	}
	out := []feedRange{}
	for _, raw := range raws {
		var r rangeView
		_ = json.Unmarshal(raw, &r)
		cf, err := e.srv.gateway(ctx, http.MethodGet, coll0+"/docs", http.Header{
			"A-Im": {"Incremental feed"}, hdrPKRangeID: {r.ID}, hdrMaxItemCount: {strconv.Itoa(changeFeedPageSize)},
		}, nil)
		if err != nil {
			return 0, nil, err
		}
		var docs []json.RawMessage
		switch {
		case cf.status == http.StatusNotModified: // nothing changed in this range
		case !cf.ok():
			return 0, nil, cf.failure()
		default:
			if docs, err = feedDocs(cf.body); err != nil {
				return 0, nil, err
			}
		}
		fr := feedRange{ID: r.ID, Changes: []itemView{}, Charge: cf.charge(), More: len(docs) >= changeFeedPageSize}
		for _, d := range docs {
			v, err := e.view(db, coll, d)
			if err != nil {
				return 0, nil, err
			}
			fr.Changes = append(fr.Changes, v)
		}
		out = append(out, fr)
	}
	return http.StatusOK, map[string]any{"ranges": out}, nil
}
