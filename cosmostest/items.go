package cosmostest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/cosmoskit/cosmoskit-go/internal/query"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Limits enforced on items, as the service documents them.
const (
	// maxItemBytes is the largest item (request body) accepted; larger is 413.
	maxItemBytes = 2 * 1024 * 1024
	// maxPKValueBytes is the largest string partition key component (the service's limit for
	// containers with large partition keys, which is every container created by current SDKs and
	// every hierarchical one); larger is 400.
	maxPKValueBytes = 2048
)

// item is one stored document.
type item struct {
	pk   []any
	id   string
	doc  map[string]any // user properties plus _rid, _self, _etag, _attachments, _ts
	raw  []byte         // doc as served: properties in written order, system properties last
	size int            // JSON size of doc in bytes
	lsn  int64          // LSN of the last write, in its range's sequence
	ts   int64
	etag string
	rid  string
	// seq is the item's place in its container's creation order, the number in its _rid: a replace
	// keeps it, a delete and re-create gets a new one. Unordered queries return documents in this
	// order within a physical partition, as the service returns them in _rid order.
	seq uint64
	// ordered is raw as the query engine reads it (query.Decode: objects keep their property
	// order, as OBJECTTOARRAY and projections show them), decoded when a query first reads the
	// item (queryValue). put sets it; a copy of the item shares it with its raw.
	ordered *orderedDoc
}

// orderedDoc decodes an item's raw bytes for the query engine once, from any goroutine.
type orderedDoc struct {
	once sync.Once
	raw  []byte
	v    any
}

func newOrderedDoc(raw []byte) *orderedDoc { return &orderedDoc{raw: raw} }

func (d *orderedDoc) value() any {
	d.once.Do(func() { d.v = decodeOrdered(d.raw) })
	return d.v
}

// decodeOrdered is query.Decode of stored bytes, nil if they are not JSON (cannot happen: raw is
// the server's own encoding).
func decodeOrdered(raw []byte) any {
	v, err := query.Decode(raw)
	if err != nil {
		return nil
	}
	return v
}

// queryValue is the item as the query engine reads it, properties in stored order (its doc, by
// name, for an item not written through put).
func (it *item) queryValue() any {
	var v any
	if it.ordered != nil {
		v = it.ordered.value()
	}
	if v == nil {
		return it.doc
	}
	return v
}

// body returns the item as the service serves it; callers must not modify it.
func (it *item) body() []byte { return it.raw }

// systemProperties are the properties the server adds to every stored item.
var systemProperties = []string{"_rid", "_self", "_etag", "_ts", "_attachments", "_lsn"}

// tooLarge reports whether a patched document exceeds the item size limit, measured as for a
// create or replace body: the JSON of the user's properties, without the system properties the
// server adds (so patching a maximum-size item without growing it succeeds).
func tooLarge(doc map[string]any) bool {
	user := make(map[string]any, len(doc))
	for k, v := range doc {
		user[k] = v
	}
	for _, k := range systemProperties {
		delete(user, k)
	}
	return len(mustJSON(user)) > maxItemBytes
}

// expired reports whether TTL has removed the item: the container needs a defaultTtl (-1 = on,
// no default expiry); an item ttl overrides it, -1 meaning never.
func (c *container) expired(it *item, now int64) bool {
	dttl, ok := c.props["defaultTtl"].(float64)
	if !ok {
		return false
	}
	ttl := dttl
	if v, ok := it.doc["ttl"].(float64); ok {
		ttl = v
	}
	if ttl < 0 {
		return false
	}
	return now >= it.ts+int64(ttl)
}

// lookup returns the live item under key in r, removing it first if TTL expired it.
func (srv *server) lookup(c *container, r *pkRange, key string) *item {
	it := r.items[key]
	if it != nil && c.expired(it, srv.now().Unix()) {
		delete(r.items, key)
		return nil
	}
	return it
}

// pointKey parses the partition key header of a point operation: every container is
// partitioned, so it is required and must have one value per path.
func (c *container) pointKey(rq *request) ([]any, error) {
	return c.parseKey(rq.hdr(hdrPK))
}

// parseKey reads a partition key as the gateway takes it (the key's JSON array, from the
// partition key header or a bulk operation's partitionKey) and checks it against the container's
// definition: one value per path, each string component within the service's size limit.
func (c *container) parseKey(h string) ([]any, error) {
	if h == "" {
		return nil, badRequest("PartitionKey value must be supplied for this operation.")
	}
	pk, err := parsePartitionKeyHeader(h)
	if err != nil {
		return nil, err
	}
	if len(pk) != len(c.pk.Paths) {
		return nil, badRequest("Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.")
	}
	for _, v := range pk {
		if s, ok := v.(string); ok && len(s) > maxPKValueBytes {
			return nil, badRequest("Partition key value is too large: a partition key component may have at most %d bytes.", maxPKValueBytes)
		}
	}
	return pk, nil
}

func preferMinimal(rq *request) bool {
	return strings.Contains(strings.ToLower(rq.hdr("Prefer")), "return=minimal")
}

// handleDocs serves POST and GET on …/docs: create, upsert, query, batch, change feed.
func (srv *server) handleDocs(rq *request) error {
	c, err := srv.container(rq.Database, rq.Container)
	if err != nil {
		return err
	}
	if c, err = srv.regionView(rq, c); err != nil {
		return err
	}
	if rq.emptyID {
		return badRequest("The item id in the request path is empty. cosmostest refuses %s of an item with an empty id: an id is a non-empty string of at most %d bytes.", rq.verb, wire.MaxIDBytes)
	}
	switch rq.verb {
	case verbCreate, verbUpsert:
		return srv.writeItem(rq, c, "")
	case verbQuery:
		return srv.queryItems(rq, c)
	case verbBatch:
		return srv.batch(rq, c)
	case verbChangeFeed:
		return srv.changeFeed(rq, c)
	case verbReadFeed:
		return srv.readDocFeed(rq, c)
	}
	return unsupported(string(rq.verb) + " on …/docs")
}

// handleItem serves GET/PUT/PATCH/DELETE on …/docs/{id}.
func (srv *server) handleItem(rq *request) error {
	c, err := srv.container(rq.Database, rq.Container)
	if err != nil {
		return err
	}
	if c, err = srv.regionView(rq, c); err != nil {
		return err
	}
	switch rq.verb {
	case verbRead:
		return srv.readItem(rq, c)
	case verbReplace:
		return srv.writeItem(rq, c, rq.ID)
	case verbDelete:
		return srv.deleteItem(rq, c)
	case verbPatch:
		return srv.patchItem(rq, c)
	}
	return unsupported(string(rq.verb) + " on an item")
}

func (srv *server) readItem(rq *request, c *container) error {
	pk, err := c.pointKey(rq)
	if err != nil {
		return err
	}
	r := c.rangeFor(pk)
	rq.PKRangeID = r.id
	rq.session = r.sessionToken()
	if err := srv.admit(rq, c, r); err != nil {
		return err
	}
	it := srv.lookup(c, r, itemKey(pk, rq.ID))
	if it == nil {
		rq.charge = ruFailed
		return notFoundItem()
	}
	rq.charge = ruRead(it.size)
	rq.header.Set("etag", it.etag)
	if inm := rq.hdr("If-None-Match"); inm != "" && inm == it.etag {
		rq.reply(http.StatusNotModified, nil)
		return nil
	}
	rq.reply(http.StatusOK, it.body())
	return nil
}

// parseDocument decodes an item body and checks its id and size.
func parseDocument(body []byte) (map[string]any, string, error) {
	if len(body) > maxItemBytes {
		return nil, "", newError(http.StatusRequestEntityTooLarge, subNone, "Request size is too large.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil || doc == nil {
		return nil, "", badRequest("The input content is invalid because it is not a JSON object.")
	}
	if dec.More() {
		return nil, "", badRequest("The input content is invalid: trailing data after the JSON object.")
	}
	idv, ok := doc["id"]
	if !ok {
		return nil, "", badRequest("The input content is invalid because the required properties - 'id; ' - are missing")
	}
	id, ok := idv.(string)
	if !ok {
		return nil, "", badRequest("The input content is invalid: 'id' must be a string.")
	}
	if err := validateItemID(id); err != nil {
		return nil, "", err
	}
	return doc, id, nil
}

func validateTTL(c *container, doc map[string]any) error {
	v, ok := doc["ttl"]
	if !ok || v == nil {
		return nil
	}
	f, isNum := v.(float64)
	if !isNum || f != float64(int64(f)) || f == 0 || f < -1 {
		return badRequest("The value of ttl must be -1 or a positive integer.")
	}
	_ = c
	return nil
}

// writeItem serves create, upsert (replaceID "") and replace (replaceID = the URL id).
func (srv *server) writeItem(rq *request, c *container, replaceID string) error {
	pk, err := c.pointKey(rq)
	if err != nil {
		return err
	}
	doc, id, err := parseDocument(rq.body)
	if err != nil {
		return err
	}
	if replaceID != "" && id != replaceID {
		return badRequest("The id in the document %q does not match the id in the request URL %q.", id, replaceID)
	}
	if !samePK(c.pk.values(doc), pk) {
		return newError(http.StatusBadRequest, subPartitionKeyMismatch, "PartitionKey extracted from document doesn't match the one specified in the header. Learn more: https://aka.ms/CosmosDB/sql/errors/wrong-pk-value")
	}
	if err := validateTTL(c, doc); err != nil {
		return err
	}
	r := c.rangeFor(pk)
	rq.PKRangeID = r.id
	if err := srv.admit(rq, c, r); err != nil {
		return err
	}
	key := itemKey(pk, id)
	old := srv.lookup(c, r, key)
	ifMatch := rq.hdr("If-Match")
	switch rq.verb {
	case verbCreate:
		if old != nil {
			rq.charge = ruFailed
			rq.session = r.sessionToken()
			return conflict()
		}
	case verbReplace:
		if old == nil {
			rq.charge = ruFailed
			rq.session = r.sessionToken()
			return notFoundItem()
		}
		fallthrough
	case verbUpsert:
		if ifMatch != "" && (old == nil || old.etag != ifMatch) {
			rq.charge = ruFailed
			rq.session = r.sessionToken()
			if old == nil {
				return notFoundItem()
			}
			return preconditionFailed()
		}
	}
	if err := srv.checkUnique(c, r, pk, id, doc); err != nil {
		rq.charge = ruFailed
		return err
	}
	it := srv.put(c, r, pk, id, doc, userBytes(rq.body, doc), old)
	rq.charge = ruUpsert(c, it, old != nil)
	status := http.StatusCreated
	if old != nil {
		status = http.StatusOK
	}
	srv.replyItem(rq, r, it, status)
	return nil
}

// put stores doc as the new version of (pk, id) in range r, assigning the system properties and
// the next LSN. old is the current version (nil for a new item). user is doc's user properties as
// JSON in the order to serve them (see userBytes, appendOrdered); nil means name order. Seam:
// batch, patch and the change feed all write through here.
func (srv *server) put(c *container, r *pkRange, pk []any, id string, doc map[string]any, user []byte, old *item) *item {
	for _, k := range systemProperties {
		delete(doc, k)
	}
	if user == nil {
		user = mustJSON(doc)
	}
	it := &item{pk: pk, id: id, doc: doc}
	if old != nil {
		it.rid, it.seq = old.rid, old.seq
	} else {
		root := c.root()
		root.nextDoc++
		it.rid, it.seq = docRID(c, root.nextDoc), root.nextDoc
	}
	it.lsn = r.nextLSN()
	it.ts = srv.now().Unix()
	it.etag = srv.store.nextETag()
	self := "dbs/" + c.db.rid + "/colls/" + c.rid + "/docs/" + it.rid + "/"
	doc["_rid"] = it.rid
	doc["_self"] = self
	doc["_etag"] = it.etag
	doc["_attachments"] = "attachments/"
	doc["_ts"] = float64(it.ts) // a JSON number, as the query engine reads documents
	it.raw = withSystemProperties(user, it, self)
	it.ordered = newOrderedDoc(it.raw)
	it.size = len(it.raw)
	key := itemKey(pk, id)
	r.items[key] = it
	if r.staged == nil { // a batch's working copy counts its writes when it commits
		srv.countWrite(c, pk, id)
	}
	srv.logWrite(r, key, pk, id, it, versionTag(old))
	return it
}

func (srv *server) replyItem(rq *request, r *pkRange, it *item, status int) {
	rq.session = r.sessionToken()
	rq.header.Set("etag", it.etag)
	rq.header.Set(wire.HeaderLSN, strconv.FormatInt(r.lsn, 10))
	if preferMinimal(rq) {
		rq.reply(status, []byte{})
		return
	}
	rq.reply(status, it.body())
}

func (srv *server) deleteItem(rq *request, c *container) error {
	pk, err := c.pointKey(rq)
	if err != nil {
		return err
	}
	r := c.rangeFor(pk)
	rq.PKRangeID = r.id
	if err := srv.admit(rq, c, r); err != nil {
		return err
	}
	key := itemKey(pk, rq.ID)
	it := srv.lookup(c, r, key)
	rq.session = r.sessionToken()
	if it == nil {
		rq.charge = ruFailed
		return notFoundItem()
	}
	if im := rq.hdr("If-Match"); im != "" && im != it.etag {
		rq.charge = ruFailed
		return preconditionFailed()
	}
	delete(r.items, key)
	r.nextLSN()
	srv.countWrite(c, pk, rq.ID)
	srv.logWrite(r, key, pk, rq.ID, nil, it.etag)
	rq.session = r.sessionToken()
	rq.charge = ruWrite(c, it)
	rq.reply(http.StatusNoContent, nil)
	return nil
}

// checkUnique enforces the container's uniqueKeyPolicy within the logical partition. As the
// service documents, a missing unique-key property counts as null: only one item of a logical
// partition may lack it (or have null) per unique key.
func (srv *server) checkUnique(c *container, r *pkRange, pk []any, id string, doc map[string]any) error {
	ukp, _ := c.props["uniqueKeyPolicy"].(map[string]any)
	keys, _ := ukp["uniqueKeys"].([]any)
	if len(keys) == 0 {
		return nil
	}
	now := srv.now().Unix()
	for _, k := range keys {
		km, _ := k.(map[string]any)
		rawPaths, _ := km["paths"].([]any)
		var paths []string
		for _, p := range rawPaths {
			if s, ok := p.(string); ok {
				paths = append(paths, s)
			}
		}
		def := partitionKeyDef{Paths: paths}
		mine := uniqueValues(def, doc)
		for _, other := range r.items {
			if other.id == id || !samePK(other.pk, pk) || c.expired(other, now) {
				continue
			}
			if samePK(uniqueValues(def, other.doc), mine) {
				return newError(http.StatusConflict, subNone, "Unique index constraint violation.")
			}
		}
	}
	return nil
}

// uniqueValues are the values of a unique key's paths in doc, a missing property being null.
func uniqueValues(def partitionKeyDef, doc map[string]any) []any {
	vals := def.values(doc)
	for i, v := range vals {
		if v == undefinedValue {
			vals[i] = nil
		}
	}
	return vals
}
