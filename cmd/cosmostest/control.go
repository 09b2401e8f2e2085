package main

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// controlDoc is the control API's reference, served at GET / of the control port and printed by
// --help.
const controlDoc = `Control API (off unless --control-port is set; needs --control-token):
  Every request carries "Authorization: Bearer <control token>"; the account key is not accepted.
  Bodies and answers are JSON; errors are {"error": "..."} with 400, 401 or 404.

  POST   /faults            install a fault rule: {"region","operation","resourceType","database",
                            "container","partitionKeyRangeId","status","subStatus","message",
                            "retryAfterMs","delayMs","dropConnection","times","probability","seed"}
                            (every field optional; operation is a name such as "read_item",
                            "query_items", "create_item", "upsert_item", "read_account"); 201 {"id"}
  GET    /faults            the installed rules with their hits: [{"id","hits","rule"}]
  DELETE /faults/{id}       remove one rule; DELETE /faults removes every rule
  POST   /split             split a physical partition: {"database","container","range"}
  POST   /region            take a region down or up: {"name","down"}
  POST   /failover          make a region the write region: {"region"}
  POST   /replication-lag   {"region","lag"} (a Go duration such as "200ms")
  POST   /throughput-limits enforce provisioned RU/s (429/3200) or not: {"enabled"}; a container's
                            RU/s is set through the offers API (ReplaceThroughput in the SDKs)
  POST   /advance           move the server clock forward: {"by"} (a Go duration)
  GET    /requests          count of requests: ?region=&operation=&resourceType=&database=&container=
                            -> {"count"}; DELETE /requests resets the counts
  GET    /throttled         count of requests throttled by --throughput-limits, same filter
  GET    /explorer/         the Data Explorer (with --explorer true), a web UI over the data and these
                            controls; its JSON endpoints (/explorer/api/...) need the same bearer token
`

// faultRule is a Fault as the control API takes it.
type faultRule struct {
	Region              string  `json:"region,omitempty"`
	Operation           string  `json:"operation,omitempty"`
	ResourceType        string  `json:"resourceType,omitempty"`
	Database            string  `json:"database,omitempty"`
	Container           string  `json:"container,omitempty"`
	PartitionKeyRangeID string  `json:"partitionKeyRangeId,omitempty"`
	Status              int     `json:"status,omitempty"`
	SubStatus           int     `json:"subStatus,omitempty"`
	Message             string  `json:"message,omitempty"`
	RetryAfterMs        int64   `json:"retryAfterMs,omitempty"`
	DelayMs             int64   `json:"delayMs,omitempty"`
	DropConnection      bool    `json:"dropConnection,omitempty"`
	Times               int     `json:"times,omitempty"`
	Probability         float64 `json:"probability,omitempty"`
	Seed                uint64  `json:"seed,omitempty"`
}

func (r faultRule) fault() (cosmostest.Fault, error) {
	switch {
	case r.Status != 0 && (r.Status < 100 || r.Status > 599):
		return cosmostest.Fault{}, fmt.Errorf("status %d is not an HTTP status", r.Status)
	case r.RetryAfterMs < 0 || r.DelayMs < 0 || r.Times < 0:
		return cosmostest.Fault{}, errors.New("retryAfterMs, delayMs and times must not be negative")
	case r.Probability < 0 || r.Probability > 1:
		return cosmostest.Fault{}, errors.New("probability must be within [0, 1]")
	}
	return cosmostest.Fault{
		Region: r.Region, Operation: cosmostest.Operation(r.Operation), ResourceType: cosmostest.ResourceType(r.ResourceType),
		Database: r.Database, Container: r.Container, PartitionKeyRangeID: r.PartitionKeyRangeID,
		Status: r.Status, SubStatus: r.SubStatus, Message: r.Message,
		RetryAfter: time.Duration(r.RetryAfterMs) * time.Millisecond, Delay: time.Duration(r.DelayMs) * time.Millisecond,
		DropConnection: r.DropConnection, Times: r.Times, Probability: r.Probability, Seed: r.Seed,
	}, nil
}

// control serves the control API for srv.
type control struct {
	srv   *cosmostest.Server
	token []byte

	mu     sync.Mutex
	next   int
	faults map[string]installed
}

type installed struct {
	rule   faultRule
	handle *cosmostest.FaultHandle
}

// newControl returns the control API's handler. token must be non-empty and must not be the
// account key: the control API is never reachable with the account key alone.
func newControl(srv *cosmostest.Server, token string) (http.Handler, error) {
	if token == "" {
		return nil, errors.New("the control API needs a token (--control-token / COSMOSTEST_CONTROL_TOKEN)")
	}
	if token == srv.Key() {
		return nil, errors.New("the control token must not be the account key")
	}
	return &control{srv: srv, token: []byte(token), faults: map[string]installed{}}, nil
}

func (c *control) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(got), c.token) != 1 {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "the control API needs Authorization: Bearer <control token>"})
		return
	}
	path := strings.Trim(r.URL.Path, "/")
	status, body, err := c.route(r, path)
	if err != nil {
		if status < 400 { // a refused argument of an action that answers 204 when it succeeds
			status = http.StatusBadRequest
		}
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	if body == nil {
		w.WriteHeader(status)
		return
	}
	writeJSON(w, status, body)
}

func (c *control) route(r *http.Request, path string) (int, any, error) {
	m := r.Method
	switch {
	case path == "" && m == http.MethodGet:
		return http.StatusOK, map[string]string{"doc": controlDoc}, nil
	case path == "faults" && m == http.MethodPost:
		var rule faultRule
		if err := decode(r, &rule); err != nil {
			return 0, nil, err
		}
		f, err := rule.fault()
		if err != nil {
			return 0, nil, err
		}
		c.mu.Lock()
		c.next++
		id := "f" + strconv.Itoa(c.next)
		c.faults[id] = installed{rule: rule, handle: c.srv.InjectFault(f)}
		c.mu.Unlock()
		return http.StatusCreated, map[string]string{"id": id}, nil
	case path == "faults" && m == http.MethodGet:
		c.mu.Lock()
		defer c.mu.Unlock()
		out := []map[string]any{}
		for i := 1; i <= c.next; i++ {
			id := "f" + strconv.Itoa(i)
			if f, ok := c.faults[id]; ok {
				out = append(out, map[string]any{"id": id, "hits": f.handle.Hits(), "rule": f.rule})
			}
		}
		return http.StatusOK, out, nil
	case path == "faults" && m == http.MethodDelete:
		c.mu.Lock()
		c.srv.ClearFaults()
		c.faults = map[string]installed{}
		c.mu.Unlock()
		return http.StatusNoContent, nil, nil
	case strings.HasPrefix(path, "faults/") && m == http.MethodDelete:
		id := strings.TrimPrefix(path, "faults/")
		c.mu.Lock()
		defer c.mu.Unlock()
		f, ok := c.faults[id]
		if !ok {
			return http.StatusNotFound, nil, fmt.Errorf("no fault %q", id)
		}
		f.handle.Remove()
		delete(c.faults, id)
		return http.StatusNoContent, nil, nil
	case path == "split" && m == http.MethodPost:
		var b struct{ Database, Container, Range string }
		if err := decode(r, &b); err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, c.srv.SplitRange(b.Database, b.Container, b.Range)
	case path == "region" && m == http.MethodPost:
		var b struct {
			Name string
			Down bool
		}
		if err := decode(r, &b); err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, c.srv.SetRegionDown(b.Name, b.Down)
	case path == "failover" && m == http.MethodPost:
		var b struct{ Region string }
		if err := decode(r, &b); err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, c.srv.FailoverWriteRegion(b.Region)
	case path == "replication-lag" && m == http.MethodPost:
		var b struct{ Region, Lag string }
		if err := decode(r, &b); err != nil {
			return 0, nil, err
		}
		d, err := time.ParseDuration(b.Lag)
		if err != nil || d < 0 {
			return 0, nil, fmt.Errorf("lag %q: want a duration ≥ 0 such as 200ms", b.Lag)
		}
		return http.StatusNoContent, nil, c.srv.SetReplicationLag(b.Region, d)
	case path == "throughput-limits" && m == http.MethodPost:
		var b struct{ Enabled *bool }
		if err := decode(r, &b); err != nil {
			return 0, nil, err
		}
		if b.Enabled == nil {
			return 0, nil, errors.New(`want {"enabled": true} or {"enabled": false}`)
		}
		c.srv.SetThroughputLimits(*b.Enabled)
		return http.StatusNoContent, nil, nil
	case path == "advance" && m == http.MethodPost:
		var b struct{ By string }
		if err := decode(r, &b); err != nil {
			return 0, nil, err
		}
		d, err := time.ParseDuration(b.By)
		if err != nil || d < 0 {
			return 0, nil, fmt.Errorf("by %q: want a duration ≥ 0 such as 1h", b.By)
		}
		c.srv.Advance(d)
		return http.StatusNoContent, nil, nil
	case path == "requests" && m == http.MethodGet:
		return http.StatusOK, map[string]int{"count": c.srv.Requests(filterOf(r))}, nil
	case path == "requests" && m == http.MethodDelete:
		c.srv.ResetRequests()
		return http.StatusNoContent, nil, nil
	case path == "throttled" && m == http.MethodGet:
		return http.StatusOK, map[string]int{"count": c.srv.Throttled(filterOf(r))}, nil
	}
	return http.StatusNotFound, nil, fmt.Errorf("no control endpoint %s /%s (GET / lists them)", m, path)
}

func filterOf(r *http.Request) cosmostest.RequestFilter {
	q := r.URL.Query()
	return cosmostest.RequestFilter{Region: q.Get("region"), Operation: cosmostest.Operation(q.Get("operation")),
		ResourceType: cosmostest.ResourceType(q.Get("resourceType")), Database: q.Get("database"), Container: q.Get("container")}
}

func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("body: %w", err)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
