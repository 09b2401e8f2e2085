package cosmostest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// maxBodyBytes bounds what the server reads of a request body; items beyond 2 MB are refused
// with 413 after parsing the size.
const maxBodyBytes = 8 << 20

// request is one request being served: the classification, the body, and the response headers
// accumulated by the handler.
type request struct {
	*classification
	r          *http.Request
	w          http.ResponseWriter
	region     *region
	activityID string
	body       []byte
	charge     float64 // x-ms-request-charge
	session    string  // x-ms-session-token, "" for none
	header     http.Header
	admitted   []*pkRange          // partitions admit let through, charged by spend
	touched    []*pkRange          // partitions admit was asked about, in order (partition.go's responseRange)
	level      string              // the consistency level in effect (consistency.go)
	tokens     []wire.SessionToken // a Session read's x-ms-session-token, checked by admit
	// unlocked, when a handler sets it, is the rest of the request's work, which serveHTTP runs
	// without mu once the handler returns (query.go: the execution of a query).
	unlocked func() error
	direct   bool // a call of the Go test API (seed.go): never throttled, not counted

	// The success response reply recorded, written by flush once srv.mu is released: a client
	// that reads slowly must not hold up every other request.
	replied bool
	status  int
	out     []byte
}

func (rq *request) hdr(name string) string { return rq.r.Header.Get(name) }

// reply records a success response; flush writes it with the accumulated headers. Handlers call
// it with srv.mu held, so body must not be changed afterwards (every handler renders a fresh
// slice).
func (rq *request) reply(status int, body []byte) {
	rq.replied, rq.status, rq.out = true, status, body
}

// flush writes the response reply recorded. Callers do not hold srv.mu.
func (rq *request) flush() {
	h := rq.w.Header()
	copyHeaders(h, rq.header)
	rq.writeCommon(h)
	if rq.out != nil {
		h[wire.HeaderContentType] = []string{"application/json"}
	}
	h[wire.HeaderContentLen] = []string{strconv.Itoa(len(rq.out))}
	rq.w.WriteHeader(rq.status)
	if len(rq.out) > 0 && rq.r.Method != http.MethodHead {
		_, _ = rq.w.Write(rq.out)
	}
}

// writeCommon writes the headers of every response, each assigned into the map so that it keeps
// the service's spelling (sentHeaders).
func (rq *request) writeCommon(h http.Header) {
	h[spActivityID] = []string{rq.activityID}
	h[spCharge] = []string{strconv.FormatFloat(rq.charge, 'f', -1, 64)}
	if rq.session != "" {
		h[spSession] = []string{rq.session}
	}
	if r := rq.responseRange(); r != nil {
		h[spPKRangeID] = []string{r.id}
	}
	if p := rq.altContentPath(); p != "" {
		h[spAltContentPath] = []string{p}
	}
	h[spGatewayVersion] = []string{"2.14.0"}
}

// altContentPath is x-ms-alt-content-path as the service sends it: the name-based path of the
// resource's parent ("dbs/db/colls/c" for an item, its feed or the container's pkranges,
// "dbs/db" for a container), "" for a database, an offer and the account.
func (rq *request) altContentPath() string {
	if rq.classification == nil || len(rq.segs) < 2 || rq.segs[0] != "dbs" {
		return ""
	}
	n := len(rq.segs)
	k := n - 1 // a feed: its parent
	if n%2 == 0 {
		k = n - 2 // a resource: its parent
	}
	if rq.emptyID {
		k = n - 1
	}
	if k < 2 {
		return ""
	}
	return strings.Join(rq.segs[:k], "/")
}

// fail writes an error response in the service's format.
func (rq *request) fail(e *statusError) {
	h := rq.w.Header()
	copyHeaders(h, e.header)
	rq.writeCommon(h)
	h[spSubStatus] = []string{strconv.Itoa(e.substatus)}
	h[wire.HeaderContentType] = []string{"application/json"}
	body := errorBody(e, rq.activityID)
	h[wire.HeaderContentLen] = []string{strconv.Itoa(len(body))}
	rq.w.WriteHeader(e.status)
	_, _ = rq.w.Write(body)
}

func newActivityID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (r *region) serveHTTP(w http.ResponseWriter, hr *http.Request) {
	srv := r.srv
	if hr.Method == http.MethodGet && hr.URL.Path == emulatorCertPath {
		srv.serveCertificate(w)
		return
	}
	rq := &request{r: hr, w: w, region: r, activityID: hr.Header.Get(hdrActivityID), header: http.Header{}}
	if rq.activityID == "" {
		rq.activityID = newActivityID()
	}
	c, cerr := classify(hr)
	if c == nil {
		c = &classification{}
	}
	c.Region = r.name
	rq.classification = c
	if c.invalidURL {
		rq.fail(asStatus(cerr))
		return
	}
	if err := srv.authenticate(hr, c); err != nil {
		srv.logf(slog.LevelDebug, "unauthorized", "method", hr.Method, "path", hr.URL.EscapedPath())
		rq.fail(err)
		return
	}
	if cerr != nil {
		rq.fail(asStatus(cerr))
		return
	}
	if c.ridBased {
		srv.mu.Lock()
		err := srv.resolveRIDs(c)
		srv.mu.Unlock()
		if err != nil {
			rq.fail(asStatus(err))
			return
		}
	}
	body, err := io.ReadAll(io.LimitReader(hr.Body, maxBodyBytes+1))
	if err != nil {
		rq.fail(badRequest("cosmostest: cannot read the request body: %v", err))
		return
	}
	if len(body) > maxBodyBytes {
		rq.fail(newError(http.StatusRequestEntityTooLarge, subNone, "Request size is too large."))
		return
	}
	rq.body = body

	srv.mu.Lock()
	if srv.closed {
		srv.mu.Unlock()
		rq.fail(newError(http.StatusServiceUnavailable, subNone, "cosmostest: server closed"))
		return
	}
	srv.count(c)
	srv.mu.Unlock()
	if srv.intercept(rq) {
		return
	}
	srv.mu.Lock()
	herr := srv.dispatch(rq)
	if work := rq.unlocked; herr == nil && work != nil {
		// The handler left its heavy part (a query's execution) to run without mu.
		srv.mu.Unlock()
		herr = work()
		srv.mu.Lock()
	}
	readCharge(rq)
	srv.spend(rq)
	srv.account(c, rq.charge)
	srv.mu.Unlock()

	srv.logf(slog.LevelDebug, "request", "region", r.name, "method", hr.Method, "path", hr.URL.EscapedPath(),
		"op", string(c.Operation), "error", herr)
	switch {
	case herr != nil:
		rq.fail(asStatus(herr))
	case rq.replied:
		rq.flush()
	default:
		rq.fail(newError(http.StatusInternalServerError, subNone, "cosmostest: the %s handler wrote no response", c.Operation))
	}
}

func asStatus(err error) *statusError {
	var se *statusError
	if errors.As(err, &se) {
		return se
	}
	return newError(http.StatusInternalServerError, subNone, "cosmostest: %v", err)
}

func (srv *server) logf(level slog.Level, msg string, args ...any) {
	if srv.cfg.logger != nil {
		srv.cfg.logger.Log(context.Background(), level, msg, args...)
	}
}

// dispatch routes a classified request to its handler; callers hold srv.mu. A handler either
// records a success response with rq.reply and returns nil, or returns an error (*statusError);
// serveHTTP writes either once srv.mu is released.
//
// Fault injection runs before this (intercept, outside the lock); throughput enforcement runs
// inside the handlers once the physical partition is known (admit).
func (srv *server) dispatch(rq *request) error {
	if rq.IsWrite && !srv.canWrite(rq.region) && rq.ResourceType != ResourceAccount {
		return newError(http.StatusForbidden, subWriteForbidden, "The requested operation cannot be performed at this region")
	}
	srv.origin = rq.region.index
	if err := srv.readLevel(rq); err != nil {
		return err
	}
	segs := rq.segs
	n := len(segs)
	if n == 0 {
		if rq.r.Method != http.MethodGet {
			return newError(http.StatusMethodNotAllowed, subNone, "cosmostest: only GET is supported on the account")
		}
		rq.charge = 0
		rq.reply(http.StatusOK, srv.accountJSON())
		return nil
	}
	switch segs[0] {
	case "dbs":
		switch n {
		case 1:
			return srv.handleDatabases(rq)
		case 2:
			return srv.handleDatabase(rq)
		case 3:
			if segs[2] == "colls" {
				return srv.handleContainers(rq)
			}
		case 4:
			if segs[2] == "colls" {
				return srv.handleContainer(rq)
			}
		case 5:
			if segs[2] == "colls" {
				switch segs[4] {
				case "docs":
					return srv.handleDocs(rq)
				case "pkranges":
					return srv.handlePKRanges(rq)
				case "conflicts":
					return srv.handleConflicts(rq)
				}
			}
		case 6:
			if segs[2] == "colls" && segs[4] == "docs" {
				return srv.handleItem(rq)
			}
			if segs[2] == "colls" && segs[4] == "conflicts" {
				return srv.handleConflict(rq)
			}
		}
	case "offers":
		switch n {
		case 1:
			return srv.handleOffers(rq)
		case 2:
			return srv.handleOffer(rq)
		}
	}
	return unsupported(fmt.Sprintf("the resource path %q (%s %s)", rq.r.URL.EscapedPath(), rq.r.Method, string(rq.ResourceType)))
}

// feedBody is the body of a feed page (a query, a read feed, a change feed) as the service writes
// it: {"_rid":…,"Documents":[…],"_count":n}, the documents spliced in as they are (each is valid
// JSON: stored bytes or the engine's encoding).
func feedBody(rid string, docs []json.RawMessage) []byte {
	n := len(rid) + 48
	for _, d := range docs {
		n += len(d) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"_rid":`...)
	b = strconv.AppendQuote(b, rid) // resource ids are base64: nothing JSON escapes differently
	b = append(b, `,"Documents":[`...)
	for i, d := range docs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, d...)
	}
	b = append(b, `],"_count":`...)
	b = strconv.AppendInt(b, int64(len(docs)), 10)
	return append(b, '}')
}
