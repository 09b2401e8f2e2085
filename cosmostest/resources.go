package cosmostest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// container is a collection with its physical partitions.
type container struct {
	db      *database
	id      string
	rid     string
	ts      int64
	etag    string
	props   map[string]any // user-settable properties as returned (partitionKey, indexingPolicy, ...)
	pk      partitionKeyDef
	ranges  []*pkRange
	rangeET uint64 // pkranges feed etag; changes when ranges change (split)
	nextDoc uint64
	offer   *offer
	// conflicts is the container's conflicts feed (conflictfeed.go), nil until the first conflict;
	// a region's view shares its container's (recordConflict records into the container).
	conflicts *conflictFeed
	// writes counts the writes applied to each item (WithWriteCounts), nil until the first.
	writes map[ItemRef]int

	// Replication (replication.go): per region index, that region's view of the container (nil
	// for the home region, and nil slice without replication); a view's base is the container.
	views []*container
	base  *container
}

func (db *database) json() map[string]any {
	return map[string]any{
		"id": db.id, "_rid": db.rid, "_self": "dbs/" + db.rid + "/", "_etag": db.etag, "_ts": db.ts,
		"_colls": "colls/", "_users": "users/",
	}
}

func (c *container) json() map[string]any {
	m := map[string]any{}
	for k, v := range c.props {
		m[k] = v
	}
	m["id"] = c.id
	m["_rid"] = c.rid
	m["_self"] = "dbs/" + c.db.rid + "/colls/" + c.rid + "/"
	m["_etag"] = c.etag
	m["_ts"] = c.ts
	m["_docs"] = "docs/"
	m["_sprocs"] = "sprocs/"
	m["_triggers"] = "triggers/"
	m["_udfs"] = "udfs/"
	m["_conflicts"] = "conflicts/"
	return m
}

func (o *offer) json() map[string]any {
	return map[string]any{
		"resource": o.resource, "offerType": "Invalid", "offerResourceId": o.resourceRID, "offerVersion": "V2",
		"content": o.content, "id": o.id, "_rid": o.id, "_self": "offers/" + o.id + "/", "_etag": o.etag, "_ts": o.ts,
	}
}

// mustJSON renders v as the service does: compact, with <, > and & as themselves (encoding/json
// would escape them as \u003c, \u003e and \u0026, which changes the bytes clients read back and
// inflates the size the 2 MB limit and the RU model measure).
func mustJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("cosmostest: marshal: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// validateItemID applies the service's rules for an item id in a request body: non-empty, at most
// wire.MaxIDBytes (1,023) bytes. The service accepts ids with "/", "\\", "?", "#", control
// characters or trailing white space at create (the SDK's TestItemIdEncodingRoutingGW;
// azure-cosmos-dotnet-v3#2606); addressing such an item by id is what fails (see gatewayPath).
// An id over the limit is 400 with the service's "...less than '1024' characters." (the Python
// SDK's test_create_illegal_characters sees that text for a 1,551-byte id; the service says
// characters, its quota page says bytes, which is what is counted). The text quotes the id, as
// the service's does; the reason after "cosmostest:" is cosmostest's own.
func validateItemID(id string) error {
	switch {
	case id == "":
		return badRequest("The input content is invalid because the required properties - 'id; ' - are missing")
	case len(id) > wire.MaxIDBytes:
		return badRequest("The input name '%s' is invalid. Ensure to provide a unique non-empty string less than '%d' characters. cosmostest: the id is %d bytes, more than %d.", id, wire.MaxIDBytes+1, len(id), wire.MaxIDBytes)
	}
	return nil
}

// validateID applies the service's rules for database and container ids (wire.NameProblem: at
// most wire.MaxNameChars (255) characters, none of / \ ? #, no trailing space): 400 with the
// service's "The input name '<id>' is invalid. ...less than '255' characters." (the text the
// Python SDK's test_create_illegal_characters sees for a name over the limit), with the reason
// after "cosmostest:". Which text the service gives for a forbidden character or a trailing space
// is not documented (its resource strings include "The resource name presented contains invalid
// character" and "The resource name can't end with space"); the status is 400 in every case.
func validateID(id string) error {
	if id == "" {
		return badRequest("The input content is invalid because the required properties - 'id; ' - are missing")
	}
	if p := wire.NameProblem(id); p != "" {
		return badRequest("The input name '%s' is invalid. Ensure to provide a unique non-empty string less than '%d' characters. cosmostest: the name %s.", id, wire.MaxNameChars, p)
	}
	return nil
}

func (srv *server) database(id string) (*database, error) {
	db := srv.store.dbs[id]
	if db == nil {
		return nil, ownerNotFound("dbs/" + id)
	}
	return db, nil
}

func (srv *server) container(dbID, id string) (*container, error) {
	db, err := srv.database(dbID)
	if err != nil {
		return nil, err
	}
	c := db.colls[id]
	if c == nil {
		return nil, ownerNotFound("dbs/" + dbID + "/colls/" + id)
	}
	return c, nil
}

// ---- databases ----

func (srv *server) handleDatabases(rq *request) error {
	switch rq.verb {
	case verbQuery, verbReadFeed:
		docs := make([]queryDoc, 0, len(srv.store.dbs))
		for _, id := range sortedKeys(srv.store.dbs) {
			docs = append(docs, queryDoc{Key: id, Value: srv.store.dbs[id].json()})
		}
		return srv.metadataQuery(rq, "", "Databases", docs)
	case verbCreate:
		var body struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(rq.body, &body); err != nil {
			return badRequest("The request payload is invalid: %v", err)
		}
		if err := validateID(body.ID); err != nil {
			return err
		}
		if srv.store.dbs[body.ID] != nil {
			return conflict()
		}
		db := &database{id: body.ID, rid: srv.store.newDBRID(), ts: srv.now().Unix(), etag: srv.store.nextETag(), colls: map[string]*container{}}
		o, err := srv.offerFromHeaders(rq, "dbs/"+db.rid+"/", db.rid)
		if err != nil {
			return err
		}
		db.offer = o
		srv.store.dbs[db.id] = db
		rq.charge = ruMetadataWrite
		rq.header.Set("etag", db.etag)
		rq.reply(http.StatusCreated, mustJSON(db.json()))
		return nil
	}
	return unsupported(string(rq.verb) + " on /dbs")
}

func (srv *server) handleDatabase(rq *request) error {
	db, err := srv.database(rq.Database)
	if err != nil {
		if rq.verb == verbRead || rq.verb == verbDelete {
			return newError(http.StatusNotFound, subNone, "Resource Not Found. Learn more: https://aka.ms/cosmosdb-tsg-not-found")
		}
		return err
	}
	switch rq.verb {
	case verbRead:
		rq.charge = ruMetadataRead
		rq.header.Set("etag", db.etag)
		if inm := rq.hdr("If-None-Match"); inm != "" && inm == db.etag {
			rq.reply(http.StatusNotModified, nil)
			return nil
		}
		rq.reply(http.StatusOK, mustJSON(db.json()))
		return nil
	case verbDelete:
		if im := rq.hdr("If-Match"); im != "" && im != db.etag {
			return preconditionFailed()
		}
		for _, c := range db.colls {
			if c.offer != nil {
				delete(srv.store.offers, strings.ToLower(c.offer.id))
			}
			srv.forgetRanges(c)
		}
		if db.offer != nil {
			delete(srv.store.offers, strings.ToLower(db.offer.id))
		}
		delete(srv.store.dbs, db.id)
		rq.charge = ruMetadataWrite
		rq.reply(http.StatusNoContent, nil)
		return nil
	}
	return unsupported(string(rq.verb) + " on a database")
}

// ---- containers ----

func (srv *server) handleContainers(rq *request) error {
	db, err := srv.database(rq.Database)
	if err != nil {
		return err
	}
	switch rq.verb {
	case verbQuery, verbReadFeed:
		docs := make([]queryDoc, 0, len(db.colls))
		for _, id := range sortedKeys(db.colls) {
			docs = append(docs, queryDoc{Key: id, Value: db.colls[id].json()})
		}
		return srv.metadataQuery(rq, db.rid, "DocumentCollections", docs)
	case verbCreate:
		props, id, def, err := parseContainerBody(rq.body)
		if err != nil {
			return err
		}
		if db.colls[id] != nil {
			return conflict()
		}
		ts := srv.now().Unix()
		c := &container{db: db, id: id, ts: ts, props: props, pk: def, etag: srv.store.nextETag(), rangeET: 1}
		c.rid = srv.store.newCollRID(db)
		c.ranges = newRanges(srv.cfg.partitions, def, ts)
		if srv.cfg.multiWrite {
			for _, r := range c.ranges {
				r.progress = make([]int64, len(srv.regions))
			}
		}
		if srv.replicating {
			srv.replicate(c)
		}
		o, err := srv.offerFromHeaders(rq, "dbs/"+db.rid+"/colls/"+c.rid+"/", c.rid)
		if err != nil {
			return err
		}
		c.offer = o
		db.colls[id] = c
		rq.charge = ruMetadataWrite
		rq.header.Set("etag", c.etag)
		rq.reply(http.StatusCreated, mustJSON(c.json()))
		return nil
	}
	return unsupported(string(rq.verb) + " on /colls")
}

// defaultIndexingPolicy is what the service returns when a container is created without one.
func defaultIndexingPolicy() map[string]any {
	return map[string]any{
		"indexingMode":  "consistent",
		"automatic":     true,
		"includedPaths": []any{map[string]any{"path": "/*"}},
		"excludedPaths": []any{map[string]any{"path": `/"_etag"/?`}},
	}
}

// parseContainerBody validates a create/replace body and returns the stored properties.
func parseContainerBody(body []byte) (map[string]any, string, partitionKeyDef, error) {
	var def partitionKeyDef
	var props map[string]any
	if err := json.Unmarshal(body, &props); err != nil || props == nil {
		return nil, "", def, badRequest("The request payload is invalid: not a JSON object.")
	}
	id, _ := props["id"].(string)
	if err := validateID(id); err != nil {
		return nil, "", def, err
	}
	for _, k := range []string{"id", "_rid", "_self", "_etag", "_ts", "_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"} {
		delete(props, k)
	}
	raw, ok := props["partitionKey"]
	if !ok {
		return nil, "", def, badRequest("cosmostest requires a partitionKey definition on every container (the service no longer creates non-partitioned containers).")
	}
	if err := json.Unmarshal(mustJSON(raw), &def); err != nil || len(def.Paths) == 0 {
		return nil, "", def, badRequest("The partition key definition is invalid: paths are required.")
	}
	if def.Kind == "" {
		def.Kind = "Hash"
		if len(def.Paths) > 1 {
			def.Kind = "MultiHash"
		}
	}
	switch {
	case def.Kind == "Hash" && len(def.Paths) != 1:
		return nil, "", def, badRequest("The partition key definition of kind Hash must have exactly one path.")
	case def.Kind == "MultiHash" && len(def.Paths) > 3:
		return nil, "", def, badRequest("The partition key definition of kind MultiHash may have at most 3 paths.")
	case def.Kind == "MultiHash" && def.Version != 2:
		def.Version = 2
	case def.Kind != "Hash" && def.Kind != "MultiHash":
		return nil, "", def, unsupported("partition key kind " + def.Kind)
	}
	for _, p := range def.Paths {
		if !strings.HasPrefix(p, "/") || len(p) < 2 {
			return nil, "", def, badRequest("The partition key path %q is invalid.", p)
		}
	}
	pk := map[string]any{"paths": def.Paths, "kind": def.Kind}
	if def.Version != 0 {
		pk["version"] = def.Version
	}
	props["partitionKey"] = pk
	if ip, ok := props["indexingPolicy"].(map[string]any); ok {
		if m, ok := ip["indexingMode"].(string); ok {
			ip["indexingMode"] = strings.ToLower(m)
		}
	} else {
		props["indexingPolicy"] = defaultIndexingPolicy()
	}
	if err := validateVectorPolicy(props); err != nil {
		return nil, "", def, err
	}
	if err := validateSpatialPolicy(props); err != nil {
		return nil, "", def, err
	}
	cp, err := parseResolutionPolicy(props["conflictResolutionPolicy"])
	if err != nil {
		return nil, "", def, err
	}
	props["conflictResolutionPolicy"] = cp.json()
	if v, ok := props["defaultTtl"]; ok {
		f, isNum := v.(float64)
		if !isNum || f != float64(int64(f)) || f == 0 || f < -1 {
			return nil, "", def, badRequest("The value of defaultTtl must be -1 or a positive integer.")
		}
	}
	return props, id, def, nil
}

func (srv *server) handleContainer(rq *request) error {
	c, err := srv.container(rq.Database, rq.Container)
	if err != nil {
		if _, dbErr := srv.database(rq.Database); dbErr == nil && (rq.verb == verbRead || rq.verb == verbDelete || rq.verb == verbReplace) {
			return newError(http.StatusNotFound, subNone, "Resource Not Found. Learn more: https://aka.ms/cosmosdb-tsg-not-found")
		}
		return err
	}
	switch rq.verb {
	case verbRead:
		rq.charge = ruMetadataRead
		rq.header.Set("etag", c.etag)
		if inm := rq.hdr("If-None-Match"); inm != "" && inm == c.etag {
			rq.reply(http.StatusNotModified, nil)
			return nil
		}
		rq.reply(http.StatusOK, rq.readContainerBody(c))
		return nil
	case verbReplace:
		if im := rq.hdr("If-Match"); im != "" && im != c.etag {
			return preconditionFailed()
		}
		props, id, def, err := parseContainerBody(rq.body)
		if err != nil {
			return err
		}
		if id != c.id {
			return badRequest("The id in the body %q does not match the container %q.", id, c.id)
		}
		if !samePaths(def, c.pk) {
			return badRequest("Partition key paths cannot be changed.")
		}
		if err := keepResolutionPolicy(rq.body, props, c); err != nil {
			return err
		}
		c.props = props
		c.etag = srv.store.nextETag()
		c.ts = srv.now().Unix()
		rq.charge = ruMetadataWrite
		rq.header.Set("etag", c.etag)
		rq.reply(http.StatusOK, mustJSON(c.json()))
		return nil
	case verbDelete:
		if im := rq.hdr("If-Match"); im != "" && im != c.etag {
			return preconditionFailed()
		}
		if c.offer != nil {
			delete(srv.store.offers, strings.ToLower(c.offer.id))
		}
		srv.forgetRanges(c)
		delete(c.db.colls, c.id)
		rq.charge = ruMetadataWrite
		rq.reply(http.StatusNoContent, nil)
		return nil
	}
	return unsupported(string(rq.verb) + " on a container")
}

func samePaths(a, b partitionKeyDef) bool {
	if len(a.Paths) != len(b.Paths) || a.Kind != b.Kind {
		return false
	}
	for i := range a.Paths {
		if a.Paths[i] != b.Paths[i] {
			return false
		}
	}
	return true
}

// ---- pkranges (rest_protocol §8) ----

func (srv *server) handlePKRanges(rq *request) error {
	c, err := srv.container(rq.Database, rq.Container)
	if err != nil {
		return err
	}
	if rq.r.Method != http.MethodGet {
		return unsupported(rq.r.Method + " on pkranges")
	}
	etag := `"pkr-` + strconv.FormatUint(c.rangeET, 10) + `"`
	rq.header.Set("etag", etag)
	rq.charge = ruMetadataRead
	if rq.hdr("If-None-Match") == etag {
		rq.reply(http.StatusNotModified, nil)
		return nil
	}
	ranges := make([]any, 0, len(c.ranges))
	for _, r := range c.ranges {
		parents := r.parents
		if parents == nil {
			parents = []string{}
		}
		ranges = append(ranges, map[string]any{
			"_rid": c.rid, "id": r.id, "_etag": etag, "minInclusive": r.min, "maxExclusive": r.max,
			"ridPrefix": 0, "_self": "dbs/" + c.db.rid + "/colls/" + c.rid + "/pkranges/" + r.id + "/",
			"throughputFraction": 1.0 / float64(len(c.ranges)), "status": "online", "parents": parents,
			"_ts": r.ts, "_lsn": r.lsn, "lsn": r.lsn,
		})
	}
	rq.header.Set(hdrItemCount, strconv.Itoa(len(ranges)))
	rq.reply(http.StatusOK, mustJSON(map[string]any{"_rid": c.rid, "PartitionKeyRanges": ranges, "_count": len(ranges)}))
	return nil
}

// ---- metadata queries ----

// maxQueryTextLength is the longest query text the service accepts (its account metadata's
// maxSqlQueryInputLength); longer is 400.
const maxQueryTextLength = 262144

// queryBody is the body of a query POST.
type queryBody struct {
	Query      string `json:"query"`
	Parameters []struct {
		Name  string `json:"name"`
		Value any    `json:"value"`
	} `json:"parameters"`
}

func parseQueryBody(b []byte) (*queryBody, map[string]any, error) {
	var qb queryBody
	if err := json.Unmarshal(b, &qb); err != nil {
		return nil, nil, badRequest("The query body is not valid JSON: %v", err)
	}
	if strings.TrimSpace(qb.Query) == "" {
		return nil, nil, badRequest("The query text is required.")
	}
	if n := utf8.RuneCountInString(qb.Query); n > maxQueryTextLength {
		return nil, nil, badRequest("The SQL query text exceeded the maximum limit of %d characters.", maxQueryTextLength)
	}
	params := make(map[string]any, len(qb.Parameters))
	for _, p := range qb.Parameters {
		params[p.Name] = p.Value
	}
	return &qb, params, nil
}

// parseQuery reads a query request's body (parseQueryBody) and parses its text.
func parseQuery(body []byte) (parsedQuery, map[string]any, error) {
	qb, params, err := parseQueryBody(body)
	if err != nil {
		return nil, nil, err
	}
	q, err := engine.parse(qb.Query)
	if err != nil {
		return nil, nil, err
	}
	return q, params, nil
}

// metadataQuery serves database, container and offer queries and read feeds in one page set.
func (srv *server) metadataQuery(rq *request, rid, key string, docs []queryDoc) error {
	results := []json.RawMessage{}
	cont := ""
	if rq.verb == verbQuery {
		q, params, err := parseQuery(rq.body)
		if err != nil {
			return err
		}
		limit, err := maxItemCount(rq)
		if err != nil {
			return err
		}
		page, err := q.execute(docs, queryOptions{Params: params, MaxItemCount: limit, Continuation: rq.hdr(hdrContinuation), Now: srv.now()})
		if err != nil {
			return err
		}
		results = append(results, page.Results...)
		cont = page.Continuation
	} else {
		for _, d := range docs {
			results = append(results, mustJSON(d.Value))
		}
	}
	if cont != "" {
		rq.header.Set(hdrContinuation, cont)
	}
	rq.charge = ruMetadataRead
	rq.header.Set(hdrItemCount, strconv.Itoa(len(results)))
	rq.reply(http.StatusOK, mustJSON(map[string]any{"_rid": rid, key: results, "_count": len(results)}))
	return nil
}

// maxItemCount parses x-ms-max-item-count: absent means 0 (the caller's default page size), -1 a
// dynamic page size (bounded by bytes only), and a positive value the page size. Anything else (not an
// integer, 0, below -1, beyond int32) is refused with 400 as the gateway does.
func maxItemCount(rq *request) (int, error) {
	v := rq.hdr(hdrMaxItemCount)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n == 0 || n < -1 {
		return 0, badRequest("Invalid value '%s' for header %s: it must be -1 (dynamic page size) or a positive 32-bit integer.", v, strings.ToLower(hdrMaxItemCount))
	}
	return int(n), nil
}
