package cosmostest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The Data Explorer's data endpoints. Each sends gateway requests through the server's handler
// (explorer_gateway.go) the way azcosmos v1.5.0 sends them, so a query run here returns the rows
// and the request charge the SDK would see, and an edit is an ordinary replace with If-Match.

// itemsPageSize is the page size of the items list.
const itemsPageSize = 20

// changeFeedPageSize is how many changes of each physical partition the change feed view reads.
const changeFeedPageSize = 100

// route serves api/<path>.
func (e *explorer) route(r *http.Request, path string) (int, any, error) {
	ctx, q := r.Context(), r.URL.Query()
	switch m := r.Method; {
	case path == "databases" && m == http.MethodGet:
		return e.databases(ctx)
	case path == "container" && m == http.MethodGet:
		return e.container(ctx, q.Get("db"), q.Get("coll"))
	case path == "items" && m == http.MethodGet:
		return e.items(ctx, q.Get("db"), q.Get("coll"), q.Get("continuation"))
	case path == "item" && m == http.MethodGet:
		return e.item(ctx, q.Get("db"), q.Get("coll"), q.Get("id"), q.Get("pk"))
	case path == "item" && (m == http.MethodPost || m == http.MethodPut):
		var b itemWrite
		if err := decodeBody(r, &b); err != nil {
			return 0, nil, err
		}
		return e.writeItem(ctx, m, b)
	case path == "item" && m == http.MethodDelete:
		return e.deleteItem(ctx, q.Get("db"), q.Get("coll"), q.Get("id"), q.Get("pk"), q.Get("etag"))
	case path == "query" && m == http.MethodPost:
		var b queryRun
		if err := decodeBody(r, &b); err != nil {
			return 0, nil, err
		}
		return e.query(ctx, b)
	case path == "changefeed" && m == http.MethodGet:
		return e.changeFeed(ctx, q.Get("db"), q.Get("coll"))
	}
	return e.controlRoute(r, path)
}

// call sends one gateway request and fails with the gateway's error when it is not a success.
func (e *explorer) call(ctx context.Context, method, path string, h http.Header, body []byte) (*gwResponse, error) {
	g, err := e.srv.gateway(ctx, method, path, h, body)
	if err != nil {
		return nil, err
	}
	if !g.ok() {
		return nil, g.failure()
	}
	return g, nil
}

// feed is a feed page's documents.
func feedDocs(b []byte) ([]json.RawMessage, error) {
	var page struct {
		Documents     []json.RawMessage `json:"Documents"`
		DocumentCols  []json.RawMessage `json:"DocumentCollections"`
		Databases     []json.RawMessage `json:"Databases"`
		Offers        []json.RawMessage `json:"Offers"`
		PartitionKeys []json.RawMessage `json:"PartitionKeyRanges"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		return nil, err
	}
	return slices.Concat(page.Documents, page.DocumentCols, page.Databases, page.Offers, page.PartitionKeys), nil
}

// ids returns the "id" of each resource.
func ids(docs []json.RawMessage) []string {
	out := make([]string, 0, len(docs))
	for _, d := range docs {
		var r struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(d, &r) == nil {
			out = append(out, r.ID)
		}
	}
	return out
}

type dbView struct {
	ID         string   `json:"id"`
	Containers []string `json:"containers"`
}

func (e *explorer) databases(ctx context.Context) (int, any, error) {
	g, err := e.call(ctx, http.MethodGet, "dbs", nil, nil)
	if err != nil {
		return 0, nil, err
	}
	docs, err := feedDocs(g.body)
	if err != nil {
		return 0, nil, err
	}
	out := []dbView{}
	for _, db := range ids(docs) {
		g, err := e.call(ctx, http.MethodGet, resourcePath("dbs", db, "colls"), nil, nil)
		if err != nil {
			return 0, nil, err
		}
		colls, err := feedDocs(g.body)
		if err != nil {
			return 0, nil, err
		}
		names := ids(colls)
		slices.Sort(names)
		out = append(out, dbView{ID: db, Containers: names})
	}
	slices.SortFunc(out, func(a, b dbView) int { return strings.Compare(a.ID, b.ID) })
	return http.StatusOK, out, nil
}

// rangeView is one physical partition as the container view shows it.
type rangeView struct {
	ID            string `json:"id"`
	MinInclusive  string `json:"minInclusive"`
	MaxExclusive  string `json:"maxExclusive"`
	DocumentCount int64  `json:"documentCount"`
	SizeInKB      int64  `json:"sizeInKB"`
}

type containerView struct {
	Properties json.RawMessage `json:"properties"`
	Offer      json.RawMessage `json:"offer"`
	Ranges     []rangeView     `json:"ranges"`
	Usage      string          `json:"usage"`
	Charge     float64         `json:"charge"`
}

func (e *explorer) container(ctx context.Context, db, coll string) (int, any, error) {
	if db == "" || coll == "" {
		return 0, nil, refuse("db and coll are required")
	}
	path := resourcePath("dbs", db, "colls", coll)
	g, err := e.call(ctx, http.MethodGet, path, http.Header{
		"X-Ms-Documentdb-Populatepartitionstatistics": {"true"}, "X-Ms-Documentdb-Populatequotainfo": {"true"},
	}, nil)
	if err != nil {
		return 0, nil, err
	}
	var props struct {
		RID        string `json:"_rid"`
		Statistics []struct {
			ID            string `json:"id"`
			SizeInKB      int64  `json:"sizeInKB"`
			DocumentCount int64  `json:"documentCount"`
		} `json:"statistics"`
	}
	if err := json.Unmarshal(g.body, &props); err != nil {
		return 0, nil, err
	}
	out := containerView{Usage: g.header.Get("X-Ms-Resource-Usage"), Charge: g.charge()}
	// The properties as the service answers them, without the statistics shown per range below.
	var m map[string]json.RawMessage
	_ = json.Unmarshal(g.body, &m)
	delete(m, "statistics")
	out.Properties, _ = json.Marshal(m)

	pk, err := e.call(ctx, http.MethodGet, path+"/pkranges", nil, nil)
	if err != nil {
		return 0, nil, err
	}
	ranges, err := feedDocs(pk.body)
	if err != nil {
		return 0, nil, err
	}
	for _, raw := range ranges {
		var rv rangeView
		_ = json.Unmarshal(raw, &rv)
		for _, s := range props.Statistics {
			if s.ID == rv.ID {
				rv.DocumentCount, rv.SizeInKB = s.DocumentCount, s.SizeInKB
			}
		}
		out.Ranges = append(out.Ranges, rv)
	}
	out.Charge += pk.charge()

	offers, err := e.call(ctx, http.MethodGet, "offers", nil, nil)
	if err != nil {
		return 0, nil, err
	}
	list, err := feedDocs(offers.body)
	if err != nil {
		return 0, nil, err
	}
	for _, o := range list {
		var of struct {
			Resource string `json:"offerResourceId"`
		}
		if json.Unmarshal(o, &of) == nil && of.Resource == props.RID {
			out.Offer = o
		}
	}
	return http.StatusOK, out, nil
}

// itemView is an item as the explorer shows it: its id, its partition key (the JSON array that
// addresses it, opaque to the page), its ETag and its text, indented, with numbers as written.
type itemView struct {
	ID   string `json:"id"`
	PK   string `json:"pk"`
	ETag string `json:"etag"`
	TS   int64  `json:"ts"`
	LSN  int64  `json:"lsn,omitempty"`
	Text string `json:"text"`
}

// partitionKeyOf returns the x-ms-documentdb-partitionkey value that addresses doc in its
// container (the container's own paths, read as the service reads them).
func (e *explorer) partitionKeyOf(db, coll string, doc map[string]any) (string, error) {
	srv := e.srv
	srv.mu.Lock()
	c, err := srv.container(db, coll)
	var def partitionKeyDef
	if err == nil {
		def = c.pk
	}
	srv.mu.Unlock()
	if err != nil {
		return "", asStatus(err).explorer()
	}
	return pkHeader(def.values(doc))
}

// explorer turns a status error met before any request into the explorer's error.
func (e *statusError) explorer() *explorerError {
	return &explorerError{Status: e.status, SubStatus: e.substatus, Message: e.message}
}

// view renders a stored document for the page.
func (e *explorer) view(db, coll string, raw []byte) (itemView, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return itemView{}, err
	}
	v := itemView{}
	v.ID, _ = doc["id"].(string)
	v.ETag, _ = doc["_etag"].(string)
	if n, ok := doc["_ts"].(json.Number); ok {
		v.TS, _ = n.Int64()
	}
	if n, ok := doc["_lsn"].(json.Number); ok {
		v.LSN, _ = n.Int64()
	}
	pk, err := e.partitionKeyOf(db, coll, doc)
	if err != nil {
		return itemView{}, err
	}
	v.PK = pk
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") == nil {
		v.Text = buf.String()
	} else {
		v.Text = string(raw)
	}
	return v, nil
}

type itemsPage struct {
	Items        []itemView `json:"items"`
	Continuation string     `json:"continuation,omitempty"`
	Charge       float64    `json:"charge"`
}

// items is one page of the container's items: the query SELECT * FROM c across partitions, as
// azcosmos sends it, so the page and its continuation are the service's.
func (e *explorer) items(ctx context.Context, db, coll, continuation string) (int, any, error) {
	if db == "" || coll == "" {
		return 0, nil, refuse("db and coll are required")
	}
	body, _ := json.Marshal(map[string]any{"query": "SELECT * FROM c", "parameters": []any{}})
	h := queryHeaders()
	h.Set(hdrMaxItemCount, strconv.Itoa(itemsPageSize))
	if continuation != "" {
		h.Set(hdrContinuation, continuation)
	}
	g, err := e.call(ctx, http.MethodPost, resourcePath("dbs", db, "colls", coll, "docs"), h, body)
	if err != nil {
		return 0, nil, err
	}
	docs, err := feedDocs(g.body)
	if err != nil {
		return 0, nil, err
	}
	out := itemsPage{Items: []itemView{}, Continuation: g.header.Get(hdrContinuation), Charge: g.charge()}
	for _, d := range docs {
		v, err := e.view(db, coll, d)
		if err != nil {
			return 0, nil, err
		}
		out.Items = append(out.Items, v)
	}
	return http.StatusOK, out, nil
}

// queryHeaders are the headers azcosmos v1.5.0 sends with every query.
func queryHeaders() http.Header {
	return http.Header{
		"X-Ms-Documentdb-Query":                      {"True"},
		"Content-Type":                               {"application/query+json"},
		"X-Ms-Documentdb-Populatequerymetrics":       {"true"},
		"X-Ms-Documentdb-Query-Enablecrosspartition": {"true"},
	}
}

type itemAnswer struct {
	Item   itemView `json:"item"`
	Charge float64  `json:"charge"`
	Status int      `json:"status"`
}

func (e *explorer) item(ctx context.Context, db, coll, id, pk string) (int, any, error) {
	if db == "" || coll == "" || pk == "" {
		return 0, nil, refuse("db, coll and pk are required")
	}
	g, err := e.call(ctx, http.MethodGet, resourcePath("dbs", db, "colls", coll, "docs", id), http.Header{hdrPK: {pk}}, nil)
	if err != nil {
		return 0, nil, err
	}
	v, err := e.view(db, coll, g.body)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, itemAnswer{Item: v, Charge: g.charge(), Status: g.status}, nil
}

// itemWrite is a create (POST) or a replace (PUT) from the page. Text is the item's JSON as typed;
// a replace names the item it replaces (ID and PK as listed) and the ETag it was read with.
type itemWrite struct {
	DB   string `json:"db"`
	Coll string `json:"coll"`
	ID   string `json:"id"`
	PK   string `json:"pk"`
	ETag string `json:"etag"`
	Text string `json:"text"`
}

func (e *explorer) writeItem(ctx context.Context, method string, b itemWrite) (int, any, error) {
	if b.DB == "" || b.Coll == "" {
		return 0, nil, refuse("db and coll are required")
	}
	dec := json.NewDecoder(strings.NewReader(b.Text))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil || doc == nil || dec.More() {
		return 0, nil, refuse("the item is not one JSON object")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(b.Text)); err != nil {
		return 0, nil, refuse("the item is not one JSON object")
	}
	pk, err := e.partitionKeyOf(b.DB, b.Coll, doc)
	if err != nil {
		return 0, nil, err
	}
	h := http.Header{hdrPK: {pk}}
	path := resourcePath("dbs", b.DB, "colls", b.Coll, "docs")
	if method == http.MethodPut {
		if b.ID == "" || b.PK == "" || b.ETag == "" {
			return 0, nil, refuse("a replace needs the id, pk and etag the item was read with")
		}
		if pk != b.PK {
			return 0, nil, refuse("the partition key of an item cannot change: create a new item and delete this one")
		}
		h.Set("If-Match", b.ETag)
		path = resourcePath("dbs", b.DB, "colls", b.Coll, "docs", b.ID)
	}
	g, err := e.call(ctx, method, path, h, compact.Bytes())
	if err != nil {
		return 0, nil, err
	}
	v, err := e.view(b.DB, b.Coll, g.body)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, itemAnswer{Item: v, Charge: g.charge(), Status: g.status}, nil
}

func (e *explorer) deleteItem(ctx context.Context, db, coll, id, pk, etag string) (int, any, error) {
	if db == "" || coll == "" || pk == "" || etag == "" {
		return 0, nil, refuse("db, coll, pk and etag are required")
	}
	g, err := e.call(ctx, http.MethodDelete, resourcePath("dbs", db, "colls", coll, "docs", id),
		http.Header{hdrPK: {pk}, "If-Match": {etag}}, nil)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"charge": g.charge(), "status": g.status}, nil
}
