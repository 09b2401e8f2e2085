package cosmostest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"weak"

	"github.com/cosmoskit/cosmoskit-go/internal/query"
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
		switch id := rq.hdr(hdrPKRangeID); {
		case id != "":
			// A key (or prefix) and a range: the range's documents under the key, as a client
			// running a prefix query across the ranges holding it sends them.
			r := c.rangeByID(id)
			if r == nil {
				return nil, newError(http.StatusGone, subPartitionKeyGone, "The partition key range %s is gone (split or merged).", id)
			}
			sc.ranges = []*pkRange{r}
		case len(pk) == len(c.pk.Paths):
			sc.ranges = []*pkRange{c.rangeFor(pk)}
		default:
			sc.ranges = c.prefixRanges(pk) // the ranges that hold keys with this prefix
			// A prefix held by several physical partitions is a cross-partition query for the
			// gateway: one that needs a client-side merge gets the 400/1004 with the plan
			// (the service's answer as the issue reports it; its exact text is unverified).
			if len(sc.ranges) > 1 {
				if info := q.info(c.vectorDefaults()); info.needsGatewayPlan() {
					return nil, c.prefixRefusal(q, info, params, pk)
				}
			}
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
		return nil, c.crossPartitionRefusal(q, info, params)
	}
	sc.ranges = c.ranges
	return sc, nil
}

// scopeDocs returns the live documents in scope, sorted by a stable key: the physical partition,
// then the item's creation order (its _rid), which is the order the service returns documents of
// a query without ORDER BY in: insertion order within a physical partition, logical partitions
// interleaved, not sorted by id. A scope of one physical partition keys documents by their
// creation order alone, so that a continuation token of a range stays valid on the ranges it splits
// into: the service resumes a parent's continuation on its children (the .NET and Java SDKs send
// it there after a split), its position being the last document's _rid, not the partition.
func (srv *server) scopeDocs(c *container, sc *queryScope) []queryDoc {
	now := srv.now().Unix()
	n := 0
	for _, r := range sc.ranges {
		n += len(r.items)
	}
	docs := make([]queryDoc, 0, n)
	for _, r := range sc.ranges {
		prefix := fmt.Sprintf("%08s\x00", r.id)
		if len(sc.ranges) == 1 {
			prefix = ""
		}
		for k, it := range r.items {
			if c.expired(it, now) {
				delete(r.items, k)
				continue
			}
			if sc.pk != nil && !samePK(it.pk[:len(sc.pk)], sc.pk) {
				continue
			}
			docs = append(docs, queryDoc{Key: seqKey(prefix, it.seq), Value: it.doc, Ordered: it.queryValue()})
		}
	}
	slices.SortFunc(docs, func(a, b queryDoc) int { return strings.Compare(a.Key, b.Key) })
	return docs
}

// seqKey is prefix followed by seq as 16 hex digits, so that keys sort by seq.
func seqKey(prefix string, seq uint64) string {
	const digits = "0123456789abcdef"
	b := make([]byte, len(prefix)+16)
	copy(b, prefix)
	for i := len(b) - 1; i >= len(prefix); i-- {
		b[i] = digits[seq&15]
		seq >>= 4
	}
	return string(b)
}

func (srv *server) queryItems(rq *request, c *container) error {
	if strings.EqualFold(rq.hdr(hdrIsQueryPlan), "true") {
		return srv.queryPlan(rq, c)
	}
	q, params, err := parseQuery(rq.body)
	if err != nil {
		return err
	}
	limit, err := maxItemCount(rq)
	if err != nil {
		return err
	}
	sc, err := srv.scopeQuery(rq, c, q, params)
	if err != nil {
		return err
	}
	vec := c.vectorDefaults()
	if err := c.checkOrderByIndex(q, vec); err != nil {
		return err
	}
	if len(sc.ranges) == 1 {
		rq.PKRangeID = sc.ranges[0].id
	}
	// A fan-out answers with every touched range's token, comma-separated, as the service does.
	tokens := make([]string, len(sc.ranges))
	for i, r := range sc.ranges {
		tokens[i] = r.sessionToken()
	}
	rq.session = strings.Join(tokens, ",")
	for _, r := range sc.ranges {
		if err := srv.admit(rq, c, r); err != nil {
			return err
		}
	}
	scope := srv.cachedScope(c, sc)
	opts := queryOptions{
		Params: params, MaxItemCount: limit, Continuation: rq.hdr(hdrContinuation), Now: srv.now(),
		Vector: vec, Geospatial: c.geospatial(), Index: scope.orderIndex(c, q.info(vec)),
	}
	scope.itemByRID(sc.ranges, "")                     // builds the lookup now, under mu; it is read-only afterwards
	byRID, docs, rid := scope.byRID, scope.docs, c.rid // c may be a region's view, rewritten under mu
	nRanges := len(sc.ranges)                          // each physical partition the request covers adds to its charge
	// The query itself runs without mu (serveHTTP), so that a heavy query (a JOIN over a large
	// partition, until its row budget ends it) holds up no other request: what it reads is
	// immutable once taken here (the scope's document slice, the stored documents, the index and
	// the _rid lookup are replaced on writes, never changed).
	hook := srv.onQuery
	// The index advice reads the container's indexing policy: under mu, before the query runs.
	indexAdvice := ""
	if strings.EqualFold(rq.hdr(hdrPopulateIndex), "true") {
		indexAdvice = indexUtilization(c, q)
	}
	rq.unlocked = func() error {
		if hook != nil {
			hook()
		}
		page, err := q.execute(docs, opts)
		if err != nil {
			return err
		}
		results := wholeDocuments(page.Results, func(rid []byte) *item { return byRID[string(rid)] })
		if results == nil {
			results = []json.RawMessage{}
		}
		size := 0
		for _, r := range results {
			size += len(r)
		}
		rq.charge = ruQuery(nRanges, page.Scanned, size)
		if page.Continuation != "" {
			rq.header.Set(hdrContinuation, page.Continuation)
		}
		rq.header.Set(hdrItemCount, strconv.Itoa(len(results)))
		rq.header.Set(hdrQueryMetrics, queryMetrics(page.Scanned, size, len(results), size))
		if indexAdvice != "" {
			rq.header.Set(hdrIndexUtilization, indexAdvice)
		}
		rq.reply(http.StatusOK, feedBody(rid, results))
		return nil
	}
	return nil
}

// The query cache keeps, per container, the sorted documents of its last few query scopes and the
// ORDER BY indexes built over them, so that paging through a large partition does not rebuild and
// re-sort it on every page. An entry is valid while every range in scope is the same range object
// with the same LSN and item count: every write and delete advances its range's LSN (server.put,
// deleteItem, batches), a split replaces the range objects. Containers with a defaultTtl are not
// cached (TTL removes items without a write). Entries and indexes are guarded by server.mu.
const queryCacheEntries = 4

// scopeEntry is the documents of one query scope, with the indexes built over them so far.
type scopeEntry struct {
	ranges  []*pkRange
	lsns    []int64
	counts  []int
	pk      string
	docs    []queryDoc
	indexes map[string]*query.Index // by paths (fmt.Sprint)
	wanted  map[string]bool         // paths asked for once: the next query builds the index
	byRID   map[string]*item        // the items in scope by _rid, built when first needed
}

// itemByRID returns the item in scope (ranges) with that _rid, or nil.
func (e *scopeEntry) itemByRID(ranges []*pkRange, rid string) *item {
	if e.byRID == nil {
		e.byRID = map[string]*item{}
		for _, r := range ranges {
			for _, it := range r.items {
				e.byRID[it.rid] = it
			}
		}
	}
	return e.byRID[rid]
}

type queryCache struct{ entries []*scopeEntry } // most recently used last

// queryCaches maps containers to their caches without keeping deleted containers alive.
var queryCaches = struct {
	sync.Mutex
	m map[weak.Pointer[container]]*queryCache
}{m: map[weak.Pointer[container]]*queryCache{}}

func cacheOf(c *container) *queryCache {
	wp := weak.Make(c)
	queryCaches.Lock()
	defer queryCaches.Unlock()
	qc := queryCaches.m[wp]
	if qc == nil {
		qc = &queryCache{}
		queryCaches.m[wp] = qc
		runtime.AddCleanup(c, func(wp weak.Pointer[container]) {
			queryCaches.Lock()
			delete(queryCaches.m, wp)
			queryCaches.Unlock()
		}, wp)
	}
	return qc
}

func (e *scopeEntry) matches(sc *queryScope, pk string) bool {
	if e.pk != pk || len(e.ranges) != len(sc.ranges) {
		return false
	}
	for i, r := range sc.ranges {
		if e.ranges[i] != r || e.lsns[i] != r.lsn || e.counts[i] != len(r.items) {
			return false
		}
	}
	return true
}

// cachedScope returns the documents in scope (as scopeDocs), from the cache when nothing in scope
// was written since they were read.
func (srv *server) cachedScope(c *container, sc *queryScope) *scopeEntry {
	if _, ttl := c.props["defaultTtl"].(float64); ttl {
		return &scopeEntry{docs: srv.scopeDocs(c, sc)}
	}
	pk := ""
	if sc.pk != nil {
		pk = itemKey(sc.pk, "")
	}
	qc := cacheOf(c)
	for i, e := range qc.entries {
		if e.matches(sc, pk) {
			qc.entries = append(append(qc.entries[:i:i], qc.entries[i+1:]...), e)
			return e
		}
	}
	e := &scopeEntry{ranges: slices.Clone(sc.ranges), pk: pk, docs: srv.scopeDocs(c, sc)}
	for _, r := range sc.ranges {
		e.lsns = append(e.lsns, r.lsn)
		e.counts = append(e.counts, len(r.items))
	}
	// Room for one scope per physical partition besides: a client engine fans a cross-partition
	// query out as one request per range, each its own scope.
	if len(qc.entries) >= queryCacheEntries+len(c.ranges) {
		qc.entries = slices.Delete(qc.entries, 0, 1)
	}
	qc.entries = append(qc.entries, e)
	return e
}

// orderIndex returns the index that serves the ORDER BY of a query with this info over e.docs,
// building it the second time it is wanted: one property path is served by the range index of the container's
// default indexing policy, two or more only by a composite index of its indexing policy with the
// same paths and orders. nil when the query has no ORDER BY, sorts by anything but property paths
// (VectorDistance, expressions), has no matching composite index, or indexing is "none". The
// engine uses an index only if it matches the query's ORDER BY exactly, so a wrong guess here
// costs time, never results.
func (e *scopeEntry) orderIndex(c *container, info queryInfo) *query.Index {
	if !info.HasOrderBy || info.HasNonStreamingOrderBy || len(e.docs) == 0 {
		return nil
	}
	paths := info.OrderPaths
	if paths == nil {
		return nil
	}
	ip, _ := c.props["indexingPolicy"].(map[string]any)
	if mode, _ := ip["indexingMode"].(string); strings.EqualFold(mode, "none") {
		return nil
	}
	if len(paths) > 1 && !hasCompositeIndex(ip, paths) {
		return nil
	}
	key := info.OrderKey
	if ix := e.indexes[key]; ix != nil {
		return ix
	}
	// Build on the second query that wants it: building sorts the whole scope, so a workload that
	// writes before every query is never slower than a scan.
	if e.wanted == nil {
		e.wanted = map[string]bool{}
	}
	if !e.wanted[key] {
		e.wanted[key] = true
		return nil
	}
	if e.indexes == nil {
		e.indexes = map[string]*query.Index{}
	}
	ix := query.NewIndex(e.docs, paths)
	e.indexes[key] = ix
	return ix
}

// hasCompositeIndex reports whether the indexing policy lists a composite index with exactly these
// paths and orders.
func hasCompositeIndex(ip map[string]any, paths []query.IndexPath) bool {
	all, _ := ip["compositeIndexes"].([]any)
	for _, ci := range all {
		comps, _ := ci.([]any)
		if len(comps) != len(paths) {
			continue
		}
		match := true
		for i, comp := range comps {
			m, _ := comp.(map[string]any)
			path, _ := m["path"].(string)
			order, _ := m["order"].(string)
			desc := strings.EqualFold(order, "descending")
			if policyPath(path) != paths[i].Path || desc != paths[i].Descending {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// policyPath turns an indexing policy path ("/a/\"b c\"") into the engine's form ("/a/b c").
func policyPath(p string) string {
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		segs[i] = unescapePathSegment(s)
	}
	return "/" + strings.Join(segs, "/")
}

// orderByPath turns a plan's ORDER BY expression over the FROM alias ("c.a.b", `c["a"].b`) into a
// path ("/a/b"); ok is false for anything else.
func orderByPath(x string) (string, bool) {
	i := strings.IndexAny(x, ".[")
	if i <= 0 {
		return "", false
	}
	var b strings.Builder
	for rest := x[i:]; rest != ""; {
		if rest[0] == '.' {
			j := strings.IndexAny(rest[1:], ".[")
			if j < 0 {
				j = len(rest) - 1
			}
			if j == 0 {
				return "", false
			}
			b.WriteString("/" + rest[1:1+j])
			rest = rest[1+j:]
			continue
		}
		if len(rest) < 2 || rest[1] != '"' {
			return "", false
		}
		dec := json.NewDecoder(strings.NewReader(rest[1:]))
		var name string
		if dec.Decode(&name) != nil {
			return "", false
		}
		end := 1 + int(dec.InputOffset())
		if end >= len(rest) || rest[end] != ']' {
			return "", false
		}
		b.WriteString("/" + name)
		rest = rest[end+1:]
	}
	return b.String(), true
}

// wholeDocuments replaces each row that is a whole stored document (SELECT *, SELECT VALUE c) with
// the document's stored bytes, so that query results keep the written property order as point reads
// do. A row qualifies only if it is byte for byte the engine's encoding of the document with its
// _rid; anything else (projections, JOINs, computed values) is served as the engine produced it.
func wholeDocuments(rows []json.RawMessage, byRID func([]byte) *item) []json.RawMessage {
	var out []json.RawMessage
	for i, row := range rows {
		rid := topLevelRID(row)
		if len(rid) == 0 {
			continue
		}
		it := byRID(rid)
		if it == nil || len(it.raw) != len(row) || !bytes.Equal(row, query.AppendJSON(nil, it.queryValue())) {
			continue
		}
		if out == nil {
			out = slices.Clone(rows)
		}
		out[i] = it.raw
	}
	if out == nil {
		return rows
	}
	return out
}

// topLevelRID returns the _rid member of a JSON object row (a slice of row), or nil.
func topLevelRID(row []byte) []byte {
	if len(row) == 0 || row[0] != '{' {
		return nil
	}
	var rid []byte
	s := jsonScanner{src: row}
	s.members(func(key, value []byte) {
		if string(key) == `"_rid"` && len(value) > 2 && value[0] == '"' && bytes.IndexByte(value, '\\') < 0 {
			rid = value[1 : len(value)-1]
		}
	})
	return rid
}

// queryMetrics is x-ms-documentdb-query-metrics with the counts of a page (its timings are fixed).
func queryMetrics(retrieved, retrievedSize, output, outputSize int) string {
	b := make([]byte, 0, 512)
	b = append(b, "totalExecutionTimeInMs=0.10;queryCompileTimeInMs=0.01;queryLogicalPlanBuildTimeInMs=0.00;queryPhysicalPlanBuildTimeInMs=0.00;queryOptimizationTimeInMs=0.00;VMExecutionTimeInMs=0.01;indexLookupTimeInMs=0.00;documentLoadTimeInMs=0.00;systemFunctionExecuteTimeInMs=0.00;userFunctionExecuteTimeInMs=0.00;retrievedDocumentCount="...)
	b = strconv.AppendInt(b, int64(retrieved), 10)
	b = append(b, ";retrievedDocumentSize="...)
	b = strconv.AppendInt(b, int64(retrievedSize), 10)
	b = append(b, ";outputDocumentCount="...)
	b = strconv.AppendInt(b, int64(output), 10)
	b = append(b, ";outputDocumentSize="...)
	b = strconv.AppendInt(b, int64(outputSize), 10)
	b = append(b, ";writeOutputTimeInMs=0.00;indexUtilizationRatio=1.00"...)
	return string(b)
}
