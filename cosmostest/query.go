package cosmostest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// crossPartitionGatewayMessage is the service's 400/1004 message for queries the gateway cannot
// serve across partitions (the SDK's tests look for this text).
const crossPartitionGatewayMessage = "The provided cross partition query can not be directly served by the gateway. This is a first chance (internal) exception that all newer clients will know how to handle gracefully. This exception is traced, but unless you see it bubble up as an exception (which only happens on older SDK clients), then you can safely ignore this message."

// queryScope is the set of documents a query request runs over.
type queryScope struct {
	ranges []*pkRange
	pk     []any // full key or prefix; nil for all logical partitions
}

// scopeQuery decides where a query runs (rest_protocol §6): the pk header (full key or, for
// hierarchical keys, a prefix), the pk range id header, an equality filter on every pk path, or
// across all partitions (refused when cross-partition is disabled, and with 400/1004 when the
// query needs the client-side plan).
func (srv *server) scopeQuery(rq *request, c *container, q parsedQuery, params map[string]any) (*queryScope, error) {
	sc := &queryScope{}
	if h := rq.hdr(hdrPK); h != "" {
		pk, err := parsePartitionKeyHeader(h)
		if err != nil {
			return nil, err
		}
		if len(pk) == 0 || len(pk) > len(c.pk.Paths) {
			return nil, badRequest("Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.")
		}
		sc.pk = pk
		if len(pk) == len(c.pk.Paths) {
			sc.ranges = []*pkRange{c.rangeFor(pk)}
		} else {
			sc.ranges = c.ranges // a prefix spans ranges
		}
		return sc, nil
	}
	if id := rq.hdr(hdrPKRangeID); id != "" {
		r := c.rangeByID(id)
		if r == nil {
			return nil, newError(http.StatusGone, subPartitionKeyGone, "The partition key range %s is gone (split or merged).", id)
		}
		sc.ranges = []*pkRange{r}
		return sc, nil
	}
	if pk, ok := q.partitionKeyFilter(c.pk.Paths, params); ok {
		sc.pk = pk
		sc.ranges = []*pkRange{c.rangeFor(pk)}
		return sc, nil
	}
	if !strings.EqualFold(rq.hdr(hdrEnableCross), "true") {
		return nil, badRequest("Cross partition query is required but disabled. Please set x-ms-documentdb-query-enablecrosspartition to true, specify x-ms-documentdb-partitionkey, or revise your query to avoid this exception.")
	}
	if info := q.info(c.vectorDefaults()); info.needsGatewayPlan() {
		e := newError(http.StatusBadRequest, subCrossPartitionQuery, "%s", crossPartitionGatewayMessage)
		if len(info.Plan) > 0 {
			e.extra = map[string]any{"additionalErrorInfo": string(info.Plan)}
		}
		return nil, e
	}
	sc.ranges = c.ranges
	return sc, nil
}

// scopeDocs returns the live documents in scope, sorted by a stable key (range id, item key).
func (srv *server) scopeDocs(c *container, sc *queryScope) []queryDoc {
	now := srv.now().Unix()
	var docs []queryDoc
	for _, r := range sc.ranges {
		for k, it := range r.items {
			if c.expired(it, now) {
				delete(r.items, k)
				continue
			}
			if sc.pk != nil && !samePK(it.pk[:len(sc.pk)], sc.pk) {
				continue
			}
			docs = append(docs, queryDoc{Key: fmt.Sprintf("%08s\x00%s", r.id, k), Value: it.doc})
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Key < docs[j].Key })
	return docs
}

func (srv *server) queryItems(rq *request, c *container) error {
	qb, params, err := parseQueryBody(rq.body)
	if err != nil {
		return err
	}
	q, err := engine.parse(qb.Query)
	if err != nil {
		return err
	}
	sc, err := srv.scopeQuery(rq, c, q, params)
	if err != nil {
		return err
	}
	if len(sc.ranges) == 1 {
		rq.PKRangeID = sc.ranges[0].id
		rq.session = sc.ranges[0].sessionToken()
	}
	for _, r := range sc.ranges {
		if err := srv.admit(rq, c, r); err != nil {
			return err
		}
	}
	docs := srv.scopeDocs(c, sc)
	page, err := q.execute(docs, queryOptions{
		Params: params, MaxItemCount: maxItemCount(rq), Continuation: rq.hdr(hdrContinuation), Now: srv.now(),
		Vector: c.vectorDefaults(),
	})
	if err != nil {
		return err
	}
	results := page.Results
	if results == nil {
		results = []json.RawMessage{}
	}
	size := 0
	for _, r := range results {
		size += len(r)
	}
	rq.charge = ruQuery(page.Scanned, size)
	if page.Continuation != "" {
		rq.header.Set(hdrContinuation, page.Continuation)
	}
	rq.header.Set(hdrItemCount, strconv.Itoa(len(results)))
	rq.header.Set(hdrQueryMetrics, fmt.Sprintf("totalExecutionTimeInMs=0.10;queryCompileTimeInMs=0.01;queryLogicalPlanBuildTimeInMs=0.00;queryPhysicalPlanBuildTimeInMs=0.00;queryOptimizationTimeInMs=0.00;VMExecutionTimeInMs=0.01;indexLookupTimeInMs=0.00;documentLoadTimeInMs=0.00;systemFunctionExecuteTimeInMs=0.00;userFunctionExecuteTimeInMs=0.00;retrievedDocumentCount=%d;retrievedDocumentSize=%d;outputDocumentCount=%d;outputDocumentSize=%d;writeOutputTimeInMs=0.00;indexUtilizationRatio=1.00",
		page.Scanned, size, len(results), size))
	if strings.EqualFold(rq.hdr(hdrPopulateIndex), "true") {
		rq.header.Set(hdrIndexUtilization, base64.StdEncoding.EncodeToString([]byte(`{"UtilizedSingleIndexes":[],"PotentialSingleIndexes":[],"UtilizedCompositeIndexes":[],"PotentialCompositeIndexes":[]}`)))
	}
	rq.reply(http.StatusOK, mustJSON(map[string]any{"_rid": c.rid, "Documents": results, "_count": len(results)}))
	return nil
}
