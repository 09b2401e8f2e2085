package cosmostest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
)

// The Go test API: seed, read and dump documents without HTTP, as miniredis does for Redis.
// Every call is served by the same handlers as a request to the write region (partition routing,
// _rid/_etag/_ts/_lsn, the session LSNs, the change feed, replication to other regions, unique
// keys, TTL), with three differences: it is not counted by Requests, injected faults do not see
// it, and throughput limits never throttle it.

// CreateContainer creates database db if it does not exist and, in it, container id partitioned
// by partitionKeyPaths (one path, or up to three for a hierarchical key, each like "/tenant").
// A container that already exists with the same paths is not an error; with other paths it is.
// Other properties (indexing policy, TTL, unique keys) are the service's defaults: create the
// container through a client to set them.
func (s *Server) CreateContainer(db, id string, partitionKeyPaths ...string) error {
	srv := s.s
	if len(partitionKeyPaths) == 0 || len(partitionKeyPaths) > 3 {
		return fmt.Errorf("cosmostest: CreateContainer %s/%s: want 1 to 3 partition key paths, got %d", db, id, len(partitionKeyPaths))
	}
	srv.mu.Lock()
	c, err := srv.container(db, id)
	srv.mu.Unlock()
	if err == nil {
		if !slices.Equal(c.pk.Paths, partitionKeyPaths) {
			return fmt.Errorf("cosmostest: CreateContainer %s/%s: the container exists with partition key paths %v, not %v", db, id, c.pk.Paths, partitionKeyPaths)
		}
		return nil
	}
	if _, err := srv.direct(http.MethodPost, "dbs", nil, map[string]any{"id": db}); err != nil && err.status != http.StatusConflict {
		return fmt.Errorf("cosmostest: CreateContainer %s/%s: create the database: %w", db, id, err)
	}
	kind := "Hash"
	if len(partitionKeyPaths) > 1 {
		kind = "MultiHash"
	}
	body := map[string]any{"id": id, "partitionKey": map[string]any{"paths": partitionKeyPaths, "kind": kind, "version": 2}}
	if _, err := srv.direct(http.MethodPost, "dbs/"+url.PathEscape(db)+"/colls", nil, body); err != nil {
		return fmt.Errorf("cosmostest: CreateContainer %s/%s: %w", db, id, err)
	}
	return nil
}

// Seed upserts docs into container c of database db, which must exist (the partition key paths
// come from it: see CreateContainer). A doc that is []byte or json.RawMessage is JSON text;
// anything else is marshalled with encoding/json. Each doc needs a string "id"; its partition key
// is read from it as the service reads it (a missing property is the undefined value). Docs are
// written in order, each as one upsert; the first one refused stops Seed with an error naming
// its index and the service's status and message, the ones before it stay written.
func (s *Server) Seed(db, c string, docs ...any) error {
	srv := s.s
	srv.mu.Lock()
	cont, err := srv.container(db, c)
	var def partitionKeyDef
	if err == nil {
		def = cont.pk
	}
	srv.mu.Unlock()
	if err != nil {
		return fmt.Errorf("cosmostest: Seed %s/%s: %w", db, c, directError(err))
	}
	path := "dbs/" + url.PathEscape(db) + "/colls/" + url.PathEscape(c) + "/docs"
	for i, d := range docs {
		var body []byte
		switch x := d.(type) {
		case []byte:
			body = x
		case json.RawMessage:
			body = x
		default:
			if body, err = json.Marshal(d); err != nil {
				return fmt.Errorf("cosmostest: Seed %s/%s: document %d: %w", db, c, i, err)
			}
		}
		var doc map[string]any
		if json.Unmarshal(body, &doc) != nil || doc == nil {
			return fmt.Errorf("cosmostest: Seed %s/%s: document %d is not a JSON object", db, c, i)
		}
		pk, perr := pkHeader(def.values(doc))
		if perr != nil {
			return fmt.Errorf("cosmostest: Seed %s/%s: document %d: %w", db, c, i, perr)
		}
		h := http.Header{hdrPK: {pk}, hdrIsUpsert: {"true"}}
		if _, serr := srv.direct(http.MethodPost, path, h, json.RawMessage(body)); serr != nil {
			return fmt.Errorf("cosmostest: Seed %s/%s: document %d: %w", db, c, i, serr)
		}
	}
	return nil
}

// Document returns the document id in logical partition pk of container c of database db, as a
// point read would (the write region's copy, with its system properties). pk is the partition
// key value, or a []any of one value per path for a hierarchical key. A document that does not
// exist (or that TTL removed) is an error matching fs.ErrNotExist; so is a missing database or
// container.
func (s *Server) Document(db, c string, pk any, id string) ([]byte, error) {
	vals, ok := pk.([]any)
	if !ok {
		vals = []any{pk}
	}
	h, err := json.Marshal(vals)
	if err != nil {
		return nil, fmt.Errorf("cosmostest: Document %s/%s: partition key: %w", db, c, err)
	}
	path := "dbs/" + url.PathEscape(db) + "/colls/" + url.PathEscape(c) + "/docs/" + url.PathEscape(id)
	out, serr := s.s.direct(http.MethodGet, path, http.Header{hdrPK: {string(h)}}, nil)
	if serr != nil {
		return nil, fmt.Errorf("cosmostest: Document %s/%s %q: %w", db, c, id, directError(serr))
	}
	return out, nil
}

// Dump returns every live document of container c of database db as the write region holds it,
// with its system properties. They come physical partition by physical partition (in range
// order), each in creation (_rid) order, the order an unordered query returns them in. A missing database or
// container is an error matching fs.ErrNotExist.
func (s *Server) Dump(db, c string) ([]json.RawMessage, error) {
	srv := s.s
	srv.mu.Lock()
	defer srv.mu.Unlock()
	cont, err := srv.container(db, c)
	if err != nil {
		return nil, fmt.Errorf("cosmostest: Dump %s/%s: %w", db, c, directError(err))
	}
	var out []json.RawMessage
	for _, r := range cont.ranges {
		var its []*item
		for key := range r.items {
			if it := srv.lookup(cont, r, key); it != nil {
				its = append(its, it)
			}
		}
		slices.SortFunc(its, func(a, b *item) int { return cmp.Compare(a.seq, b.seq) })
		for _, it := range its {
			out = append(out, json.RawMessage(bytes.Clone(it.body())))
		}
	}
	return out, nil
}

// direct serves one request of the Go test API in the write region, under mu, and returns the
// body of its success response (a copy) or its error.
func (srv *server) direct(method, path string, h http.Header, body any) ([]byte, *statusError) {
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return nil, badRequest("cosmostest: marshal: %v", err)
		}
	}
	hr, err := http.NewRequest(method, "http://cosmostest/"+path, bytes.NewReader(b))
	if err != nil {
		return nil, badRequest("cosmostest: %v", err)
	}
	for k, v := range h {
		hr.Header[http.CanonicalHeaderKey(k)] = v
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	c, cerr := classify(hr)
	if cerr != nil {
		return nil, asStatus(cerr)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.closed {
		return nil, newError(http.StatusServiceUnavailable, subNone, "cosmostest: server closed")
	}
	r := srv.regions[srv.writeRegion]
	c.Region = r.name
	rq := &request{classification: c, r: hr, region: r, header: http.Header{}, body: b, direct: true}
	err = srv.dispatch(rq)
	if err == nil && rq.unlocked != nil {
		err = rq.unlocked() // a test API call keeps mu throughout
	}
	if err != nil {
		return nil, asStatus(err)
	}
	if rq.status >= 300 {
		return nil, newError(rq.status, subNone, "%s", http.StatusText(rq.status))
	}
	return bytes.Clone(rq.out), nil
}

// directError turns a 404 into an error matching fs.ErrNotExist.
func directError(err error) error {
	var se *statusError
	if errors.As(err, &se) && se.status == http.StatusNotFound {
		return fmt.Errorf("%s: %w", se.message, fs.ErrNotExist)
	}
	return err
}

// pkHeader renders partition key values as x-ms-documentdb-partitionkey ({} for undefined).
func pkHeader(vals []any) (string, error) {
	parts := make([]any, len(vals))
	for i, v := range vals {
		if v == undefinedValue {
			parts[i] = json.RawMessage("{}")
		} else {
			parts[i] = v
		}
	}
	b, err := json.Marshal(parts)
	return string(b), err
}
