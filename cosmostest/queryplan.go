package cosmostest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/epk"
	"github.com/cosmoskit/cosmoskit-go/internal/query"
)

// Query plan requests (POST …/docs with x-ms-cosmos-is-query-plan-request: True) are how the .NET,
// Java, JS, Python and Rust SDKs learn how to run a query across partitions: the gateway answers
// the partitioned query execution info (version 2) without running the query. The same plan is the
// additionalErrorInfo of the 400/1004 a cross-partition query gets when it needs a client-side merge.
// x-ms-cosmos-query-version (the SDKs send 1.0 to 1.4) is accepted as is.

// unsupportedFeaturesMessage heads the 400 for a plan request whose client does not list a feature
// the query needs; one line per feature follows (the service's text, as the Rust SDK's emulator
// tests and the .NET SDK's former client-side check word it).
const unsupportedFeaturesMessage = "Query contains 1 or more unsupported features. Upgrade your SDK to a version that does support the requested features:"

// queryPlan answers a query plan request.
func (srv *server) queryPlan(rq *request, c *container) error {
	q, params, err := parseQuery(rq.body)
	if err != nil {
		return err
	}
	var pk []any
	if h := rq.hdr(hdrPK); h != "" {
		if pk, err = parsePartitionKeyHeader(h); err != nil {
			return err
		}
		if len(pk) == 0 || len(pk) > len(c.pk.Paths) {
			return badRequest("Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.")
		}
	}
	opts := c.planOptions(q, params, pk)
	if err := checkSupportedFeatures(q.features(opts), rq.hdr(hdrQueryFeatures)); err != nil {
		return err
	}
	b, err := q.plan(opts)
	if err != nil {
		return queryError(err)
	}
	rq.reply(http.StatusOK, b)
	return nil
}

// checkSupportedFeatures refuses a plan the client cannot execute: 400 with substatus 1004 and one
// "Query contained X, which the calling client does not support." line per missing feature.
func checkSupportedFeatures(needed []string, header string) error {
	supported := map[string]bool{}
	for _, f := range strings.Split(header, ",") {
		supported[strings.ToLower(strings.TrimSpace(f))] = true
	}
	var lines []string
	for _, f := range needed {
		if !supported[strings.ToLower(f)] {
			lines = append(lines, "Query contained "+f+", which the calling client does not support.")
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return newError(http.StatusBadRequest, subCrossPartitionQuery, "%s", unsupportedFeaturesMessage+"\r\n"+strings.Join(lines, "\r\n"))
}

// planOptions are the plan inputs for q on this container: its vector policy, the parameters that
// bind TOP/OFFSET/LIMIT, and the queryRanges: the EPK of each logical partition the query is
// limited to (pk, from the pk header, or the WHERE clause's equalities and IN lists), as a point
// [epk, epk] for a full key and [epk, epk+"FF") for a hierarchical key prefix, ["", ""] for a query
// that reads no document; else "" to "FF".
func (c *container) planOptions(q parsedQuery, params map[string]any, pk []any) query.PlanOptions {
	opts := query.PlanOptions{Vector: c.vectorDefaults(), Params: params}
	points := [][]any{pk}
	if pk == nil {
		var ok bool
		if points, ok = q.partitionKeyPoints(c.pk.Paths, params, c.geospatial()); !ok {
			return opts
		}
	}
	opts.Ranges = []query.PlanRange{}
	for _, p := range points {
		if len(p) == 0 {
			// A query that reads no document (no FROM, WHERE false, contradictory keys): the
			// service's plan has the one EPK point ["",""], one request to the first range.
			opts.Ranges = append(opts.Ranges, query.PlanRange{IsMinInclusive: true, IsMaxInclusive: true})
			continue
		}
		e := c.effectivePK(p)
		r := query.PlanRange{Min: e, Max: e, IsMinInclusive: true, IsMaxInclusive: true}
		if len(p) < len(c.pk.Paths) {
			r.Max, r.IsMaxInclusive = e+"FF", false
		}
		opts.Ranges = append(opts.Ranges, r)
	}
	slices.SortFunc(opts.Ranges, func(a, b query.PlanRange) int { return epk.Compare(a.Min, b.Min) })
	opts.Ranges = slices.Compact(opts.Ranges)
	opts.SinglePartition = len(opts.Ranges) == 1 && opts.Ranges[0].IsMaxInclusive
	return opts
}

// nonValueAggregateMessage is the gateway's 400 for a cross-partition query with GROUP BY or an
// aggregate outside SELECT VALUE: it carries no plan (recorded against a live account), so clients
// ask for the plan with a query plan request.
const nonValueAggregateMessage = "Cross partition query only supports 'VALUE <AggregateFunc>' for aggregates"

// crossPartitionRefusal is the 400/1004 for a cross-partition query that needs a client-side merge,
// with the plan in additionalErrorInfo; GROUP BY and non-VALUE aggregates get the gateway's plain
// 400 instead.
func (c *container) crossPartitionRefusal(q parsedQuery, info queryInfo, params map[string]any) error {
	return c.prefixRefusal(q, info, params, nil)
}

// prefixRefusal is crossPartitionRefusal for a query scoped to pk (a hierarchical key prefix held
// by several ranges; nil for none): the plan's queryRanges are the prefix's.
func (c *container) prefixRefusal(q parsedQuery, info queryInfo, params map[string]any, pk []any) error {
	if info.HasGroupBy || info.HasAggregates && !info.HasSelectValue {
		return badRequest("%s", nonValueAggregateMessage)
	}
	b, err := q.plan(c.planOptions(q, params, pk))
	if err != nil {
		return queryError(err) // a shape the plan generator refuses
	}
	e := newError(http.StatusBadRequest, subCrossPartitionQuery, "%s", crossPartitionGatewayMessage)
	e.extra = map[string]any{"additionalErrorInfo": string(b)}
	return e
}

// checkOrderByIndex refuses, as the service does, an ORDER BY on two or more items that no
// composite index of the container's indexing policy serves: one with the same paths in the same
// order, with every direction the same as the query's or every one reversed.
func (c *container) checkOrderByIndex(q parsedQuery, vec query.VectorDefaults) error {
	info := q.info(vec)
	if !info.HasOrderBy || info.HasNonStreamingOrderBy || len(info.OrderPaths) < 2 {
		return nil
	}
	paths := info.OrderPaths
	reversed := make([]query.IndexPath, len(paths))
	for i, p := range paths {
		reversed[i] = query.IndexPath{Path: p.Path, Descending: !p.Descending}
	}
	ip, _ := c.props["indexingPolicy"].(map[string]any)
	if hasCompositeIndex(ip, paths) || hasCompositeIndex(ip, reversed) {
		return nil
	}
	return badRequest("The order by query does not have a corresponding composite index that it can be served from.")
}
