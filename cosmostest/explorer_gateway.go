package cosmostest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// The Data Explorer's data requests are gateway requests: each is signed with the account key, as
// a client signs it, and served by the write region's own handler (region.serveHTTP), so it is
// authenticated, counted by Requests, seen by injected faults, throttled by throughput limits and
// served by the same code as any client's request: ETags, LSNs, session tokens, the change feed and
// replication stay consistent. The key never leaves the process; the browser holds only the
// control token.

// gwResponse is what the handler answered to one explorer request.
type gwResponse struct {
	status int
	header http.Header
	body   []byte
}

// charge is the response's x-ms-request-charge.
func (g *gwResponse) charge() float64 {
	f, _ := strconv.ParseFloat(g.header.Get(hdrCharge), 64)
	return f
}

// ok reports a 2xx answer.
func (g *gwResponse) ok() bool { return g.status >= 200 && g.status < 300 }

// failure is the response's error as the explorer reports it: the service's message, status and
// sub-status, and the charge.
func (g *gwResponse) failure() *explorerError {
	var body struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(g.body, &body)
	msg := body.Message
	if msg == "" {
		msg = http.StatusText(g.status)
	}
	sub, _ := strconv.Atoi(g.header.Get(hdrSubstatus))
	return &explorerError{Status: g.status, SubStatus: sub, Message: msg, Charge: g.charge()}
}

// explorerError is an API answer that is not a success: a refused argument (Status 400) or the
// gateway's own error for the request the explorer sent.
type explorerError struct {
	Status    int     `json:"status"`
	SubStatus int     `json:"subStatus,omitempty"`
	Message   string  `json:"error"`
	Charge    float64 `json:"charge,omitempty"`
}

func (e *explorerError) Error() string { return e.Message }

// refuse is a 400 for an argument of the explorer API.
func refuse(format string, args ...any) *explorerError {
	return &explorerError{Status: http.StatusBadRequest, Message: "explorer: " + fmt.Sprintf(format, args...)}
}

// errDropped reports a fault that dropped the connection of an explorer request.
var errDropped = errors.New("the connection was dropped (an injected fault)")

// responseRecorder collects a handler's answer.
type responseRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *responseRecorder) Header() http.Header { return r.header }
func (r *responseRecorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}
func (r *responseRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// resourcePath joins path segments, each escaped as a client escapes an id.
func resourcePath(segs ...string) string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = url.PathEscape(s)
	}
	return strings.Join(out, "/")
}

// gateway sends one request to the write region's handler, signed with the account key the way
// azcosmos signs it, and returns the answer. ctx is the browser's request context (a fault's delay
// ends when the browser gives up).
func (srv *server) gateway(ctx context.Context, method, path string, h http.Header, body []byte) (*gwResponse, error) {
	hr, err := http.NewRequestWithContext(ctx, method, "http://cosmostest/"+path, bytes.NewReader(body))
	if err != nil {
		return nil, refuse("%v", err)
	}
	for k, v := range h {
		hr.Header[http.CanonicalHeaderKey(k)] = v
	}
	if body != nil && hr.Header.Get(wire.HeaderContentType) == "" {
		hr.Header.Set(wire.HeaderContentType, "application/json")
	}
	hr.Header.Set(wire.HeaderVersion, "2020-11-05")
	c, _ := classify(hr) // a refused path is refused again, with the service's answer, by serveHTTP
	if c == nil {
		return nil, refuse("the path cannot be addressed")
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	hr.Header.Set(wire.HeaderDate, date)
	hr.Header.Set(wire.HeaderAuthorization, wire.MasterKeyAuthorization(srv.key, method, string(c.ResourceType), c.link, date))

	srv.mu.Lock()
	r := srv.regions[srv.writeRegion]
	srv.mu.Unlock()
	rec := &responseRecorder{header: http.Header{}}
	if dropped := serveRecovering(r, rec, hr); dropped {
		return nil, errDropped
	}
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	// The handler spells headers as the service does (lower case, not canonical): canonicalize.
	h2 := http.Header{}
	for k, v := range rec.header {
		h2[http.CanonicalHeaderKey(k)] = v
	}
	return &gwResponse{status: rec.status, header: h2, body: rec.body.Bytes()}, nil
}

// serveRecovering runs the region's handler; a fault that drops the connection aborts it with
// http.ErrAbortHandler, which is reported rather than passed on to the explorer's own server.
func serveRecovering(r *region, w http.ResponseWriter, hr *http.Request) (dropped bool) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler { //nolint:errorlint // the sentinel is panicked as is
				panic(v)
			}
			dropped = true
		}
	}()
	r.serveHTTP(w, hr)
	return false
}
