package cosmostest

import (
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strconv"
	"strings"
)

// conflictRecord is a losing write of a multi-write conflict, for the container's conflicts feed.
type conflictRecord struct {
	op    string // the losing write's operation: "create", "replace" or "delete"
	rid   string // the item's _rid
	key   string // itemKey(pk, id)
	pk    []any
	id    string
	loser *item // the losing version; nil when the loser is a delete
	lsn   int64 // the LSN at which the conflict was detected (conflict_lsn)
}

// conflictFeed is a container's conflicts: one list shared by every region (the service keeps
// one conflicts feed per container, readable in any region), in the order they were recorded.
type conflictFeed struct {
	seq     uint64           // last conflict sequence number given out
	entries []*conflictEntry // in recording order
	byID    map[string]*conflictEntry
	seen    map[string]string // dedupe key (see conflictDedupeKey) → conflict id
}

// conflictEntry is one conflict resource.
type conflictEntry struct {
	id   string // also its _rid
	seq  uint64
	rec  conflictRecord
	ts   int64
	etag string
	dkey string
	body []byte // as served; rendered once, never modified
}

// conflictDedupeKey identifies a losing version: the item and the losing write's etag (every write
// has its own), or for a losing delete the item's _rid (a delete and re-create gives a new one).
// Two regions that detect the same conflict report the same key.
func conflictDedupeKey(rec conflictRecord) string {
	v := "rid:" + rec.rid
	if rec.loser != nil {
		v = "etag:" + rec.loser.etag
	}
	return rec.key + "\x00" + rec.op + "\x00" + v
}

// recordConflict adds a losing write to c's conflicts feed, once: a second report of the same
// losing version (two regions detecting one conflict) is ignored. Callers hold srv.mu.
func (srv *server) recordConflict(c *container, rec conflictRecord) {
	// One list per container for every region: a region's view of the container (replication)
	// records into the container registered in its database.
	if home := c.db.colls[c.id]; home != nil && home.rid == c.rid {
		c = home
	}
	if c.conflicts == nil {
		c.conflicts = &conflictFeed{byID: map[string]*conflictEntry{}, seen: map[string]string{}}
	}
	f := c.conflicts
	dkey := conflictDedupeKey(rec)
	if _, dup := f.seen[dkey]; dup {
		return
	}
	f.seq++
	e := &conflictEntry{id: conflictRID(c, f.seq), seq: f.seq, rec: rec, ts: srv.now().Unix(), etag: srv.store.nextETag(), dkey: dkey}
	e.body = mustJSON(e.json(c))
	f.entries = append(f.entries, e)
	f.byID[e.id] = e
	f.seen[dkey] = e.id
}

// conflictRID is a conflict's _rid (and id): the container's 8 bytes and an 8-byte sequence with
// a marker byte, in the service's rid alphabet (base64 with "-" for "/"), so it can be a path
// segment.
func conflictRID(c *container, seq uint64) string {
	raw, _ := base64.StdEncoding.DecodeString(c.rid)
	b := make([]byte, 16)
	copy(b, raw)
	binary.BigEndian.PutUint64(b[8:], seq)
	b[8] = 0xC0 // keeps conflict rids apart from item rids (docRID)
	return strings.ReplaceAll(base64.StdEncoding.EncodeToString(b), "/", "-")
}

// json is the conflict resource as the service returns it (.NET ConflictProperties, Java
// CosmosConflictProperties): id, operationType, resourceType "document", resourceId (the item's
// _rid), content (the losing version as a JSON string; absent for a losing delete), conflict_lsn,
// and the system properties.
func (e *conflictEntry) json(c *container) map[string]any {
	m := map[string]any{
		"id": e.id, "operationType": e.rec.op, "resourceType": "document", "resourceId": e.rec.rid,
		"conflict_lsn": e.rec.lsn,
		"_rid":         e.id, "_self": "dbs/" + c.db.rid + "/colls/" + c.rid + "/conflicts/" + e.id + "/",
		"_etag": e.etag, "_ts": e.ts,
	}
	if e.rec.loser != nil {
		m["content"] = string(e.rec.loser.body())
	}
	return m
}

// defaultConflictPageSize is the page size of a conflicts read feed without x-ms-max-item-count.
const defaultConflictPageSize = 100

// handleConflicts serves …/conflicts: the read feed (GET, paged by x-ms-max-item-count and
// x-ms-continuation) and queries (POST application/query+json, the metadata query engine).
func (srv *server) handleConflicts(rq *request) error {
	c, err := srv.container(rq.Database, rq.Container)
	if err != nil {
		return err
	}
	srv.detectConflicts(c)
	var entries []*conflictEntry
	if c.conflicts != nil {
		entries = c.conflicts.entries
	}
	switch rq.verb {
	case verbQuery:
		docs := make([]queryDoc, 0, len(entries))
		for _, e := range entries {
			docs = append(docs, queryDoc{Key: e.id, Value: e.json(c)})
		}
		return srv.metadataQuery(rq, c.rid, "Conflicts", docs)
	case verbReadFeed:
		return srv.readConflictFeed(rq, c, entries)
	}
	return newError(http.StatusMethodNotAllowed, subNone, "cosmostest: %s on a conflicts feed: conflicts are created by the service and can only be read, queried and deleted", rq.verb)
}

// readConflictFeed serves one page of the conflicts feed. The continuation is the sequence number
// of the last conflict served; conflicts deleted meanwhile are skipped, new ones come after.
func (srv *server) readConflictFeed(rq *request, c *container, entries []*conflictEntry) error {
	limit, err := maxItemCount(rq)
	if err != nil {
		return err
	}
	if limit == 0 {
		limit = defaultConflictPageSize
	}
	var after uint64
	if tok := rq.hdr(hdrContinuation); tok != "" {
		n, perr := strconv.ParseUint(strings.TrimPrefix(tok, "conflicts:"), 10, 64)
		if perr != nil || !strings.HasPrefix(tok, "conflicts:") {
			return badRequest("Invalid Continuation Token: %q is not a continuation this conflicts feed returned.", tok)
		}
		after = n
	}
	page := make([][]byte, 0)
	var last uint64
	more := false
	for _, e := range entries {
		if e.seq <= after {
			continue
		}
		if limit > 0 && len(page) == limit {
			more = true
			break
		}
		page = append(page, e.body)
		last = e.seq
	}
	if more {
		rq.header.Set(hdrContinuation, "conflicts:"+strconv.FormatUint(last, 10))
	}
	rq.charge = ruMetadataRead
	rq.header.Set(hdrItemCount, strconv.Itoa(len(page)))
	var b strings.Builder
	b.WriteString(`{"_rid":`)
	b.Write(mustJSON(c.rid))
	b.WriteString(`,"Conflicts":[`)
	for i, p := range page {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(p)
	}
	b.WriteString(`],"_count":`)
	b.WriteString(strconv.Itoa(len(page)))
	b.WriteByte('}')
	rq.reply(http.StatusOK, []byte(b.String()))
	return nil
}

// handleConflict serves …/conflicts/{id}: read (GET) and delete (DELETE). A partition key header,
// when sent (the .NET SDK's Conflicts.DeleteAsync sends the item's), must be the conflicting item's.
func (srv *server) handleConflict(rq *request) error {
	c, err := srv.container(rq.Database, rq.Container)
	if err != nil {
		return err
	}
	srv.detectConflicts(c)
	var e *conflictEntry
	if c.conflicts != nil {
		e = c.conflicts.byID[rq.ID]
	}
	if e == nil {
		return notFoundItem()
	}
	if h := rq.hdr(hdrPK); h != "" {
		pk, perr := parsePartitionKeyHeader(h)
		if perr != nil {
			return perr
		}
		if itemKey(pk, e.rec.id) != e.rec.key {
			return notFoundItem()
		}
	}
	switch rq.verb {
	case verbRead:
		rq.charge = ruMetadataRead
		rq.header.Set("etag", e.etag)
		rq.reply(http.StatusOK, e.body)
		return nil
	case verbDelete:
		if im := rq.hdr("If-Match"); im != "" && im != e.etag {
			return preconditionFailed()
		}
		f := c.conflicts
		delete(f.byID, e.id)
		f.entries = slicesDelete(f.entries, e)
		// The dedupe key stays: a late report of the same losing version from another region
		// must not bring a resolved conflict back.
		rq.charge = ruMetadataWrite
		rq.reply(http.StatusNoContent, nil)
		return nil
	}
	return newError(http.StatusMethodNotAllowed, subNone, "cosmostest: %s on a conflict: a conflict can only be read and deleted", rq.verb)
}

// slicesDelete returns entries without e, in a new slice (a page being rendered may hold the old).
func slicesDelete(entries []*conflictEntry, e *conflictEntry) []*conflictEntry {
	out := make([]*conflictEntry, 0, len(entries))
	for _, x := range entries {
		if x != e {
			out = append(out, x)
		}
	}
	return out
}

// detectConflicts applies, in every region's copy of c, the replicated writes that are due (as
// the service's replication does in the background), so that the conflicts they make are in the
// feed whichever region reads it and whether or not an item request reached those copies first.
// Without replication there is nothing to do. Callers hold srv.mu.
func (srv *server) detectConflicts(c *container) {
	if c.views == nil {
		return
	}
	for _, r := range c.ranges {
		if r.copy == nil {
			continue
		}
		for _, cp := range r.copy.log.copies {
			srv.catchUp(cp, nil, false)
		}
	}
}
