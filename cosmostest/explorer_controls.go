package cosmostest

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The Data Explorer's server controls: the control API's faults, splits, regions, replication lag
// and throughput limits, with what is active now. Faults installed by any means (InjectFault in a
// test, the binary's control API, the explorer) are listed, with their hits.

// explorerFault is a fault rule as the explorer shows and takes it: the control API's JSON
// fields (cmd/cosmostest), plus match when the rule has a Match function (a Go test's).
type explorerFault struct {
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
	Match               bool    `json:"match,omitempty"`
}

func (f explorerFault) fault() (Fault, error) {
	switch {
	case f.Match:
		return Fault{}, refuse("match functions are set from Go only")
	case f.Status != 0 && (f.Status < 100 || f.Status > 599):
		return Fault{}, refuse("status %d is not an HTTP status", f.Status)
	case f.RetryAfterMs < 0 || f.DelayMs < 0 || f.Times < 0:
		return Fault{}, refuse("retryAfterMs, delayMs and times must not be negative")
	case f.Probability < 0 || f.Probability > 1:
		return Fault{}, refuse("probability must be within [0, 1]")
	case f.Status == 0 && f.DelayMs == 0 && !f.DropConnection:
		return Fault{}, refuse("a fault answers a status, delays or drops the connection")
	}
	return Fault{
		Region: f.Region, Operation: Operation(f.Operation), ResourceType: ResourceType(f.ResourceType),
		Database: f.Database, Container: f.Container, PartitionKeyRangeID: f.PartitionKeyRangeID,
		Status: f.Status, SubStatus: f.SubStatus, Message: f.Message,
		RetryAfter: time.Duration(f.RetryAfterMs) * time.Millisecond, Delay: time.Duration(f.DelayMs) * time.Millisecond,
		DropConnection: f.DropConnection, Times: f.Times, Probability: f.Probability, Seed: f.Seed,
	}, nil
}

func faultView(f *Fault) explorerFault {
	return explorerFault{
		Region: f.Region, Operation: string(f.Operation), ResourceType: string(f.ResourceType),
		Database: f.Database, Container: f.Container, PartitionKeyRangeID: f.PartitionKeyRangeID,
		Status: f.Status, SubStatus: f.SubStatus, Message: f.Message,
		RetryAfterMs: f.RetryAfter.Milliseconds(), DelayMs: f.Delay.Milliseconds(), DropConnection: f.DropConnection,
		Times: f.Times, Probability: f.Probability, Seed: f.Seed, Match: f.Match != nil,
	}
}

type faultEntry struct {
	ID   string        `json:"id"`
	Hits int           `json:"hits"`
	Done bool          `json:"done"` // fired its Times and fires no more
	Rule explorerFault `json:"rule"`
}

type regionView struct {
	Name     string `json:"name"`
	Endpoint string `json:"endpoint"`
	Write    bool   `json:"write"`
	Down     bool   `json:"down"`
	Lag      string `json:"lag"`
}

type controlsView struct {
	Faults           []faultEntry `json:"faults"`
	Regions          []regionView `json:"regions"`
	MultiWrite       bool         `json:"multiWrite"`
	ThroughputLimits bool         `json:"throughputLimits"`
	Throttled        int          `json:"throttled"`
	Requests         int          `json:"requests"`
	Operations       []string     `json:"operations"`
}

// explorerOperations are the operation names the fault form offers (internal/wire's names).
var explorerOperations = []Operation{OpReadItem, OpQueryItems, OpCreateItem, OpUpsertItem, OpReplaceItem, OpDeleteItem,
	OpPatchItem, OpExecuteBatch, OpReadAllItems, OpReadChangeFeed, OpQueryPlan, OpReadContainer, OpReadPartitionKeyRanges, OpReadAccount}

func (e *explorer) controls() controlsView {
	srv := e.srv
	srv.mu.Lock()
	handles := append([]*FaultHandle(nil), srv.faults.list...)
	out := controlsView{Faults: []faultEntry{}, MultiWrite: srv.cfg.multiWrite, ThroughputLimits: srv.cfg.throughput}
	var entries []faultEntry
	for _, h := range handles {
		entries = append(entries, faultEntry{Hits: h.hits, Done: h.f.Times > 0 && h.hits >= h.f.Times, Rule: faultView(&h.f)})
	}
	regions := srv.regions
	write := srv.writeRegion
	lags := append([]time.Duration(nil), srv.lags...)
	srv.mu.Unlock()

	e.mu.Lock()
	for i, h := range handles {
		id, ok := e.faults[h]
		if !ok {
			e.next++
			id = "x" + strconv.Itoa(e.next)
			e.faults[h] = id
		}
		entries[i].ID = id
	}
	for h := range e.faults { // forget the faults removed since
		if !slices.Contains(handles, h) {
			delete(e.faults, h)
		}
	}
	e.mu.Unlock()
	out.Faults = append(out.Faults, entries...)
	for i, r := range regions {
		r.mu.Lock()
		down := r.down
		r.mu.Unlock()
		out.Regions = append(out.Regions, regionView{Name: r.name, Endpoint: r.url(), Write: i == write || srv.cfg.multiWrite,
			Down: down, Lag: lags[i].String()})
	}
	s := &Server{s: srv}
	out.ThroughputLimits = s.ThroughputLimits()
	out.Throttled = s.Throttled(RequestFilter{})
	out.Requests = s.Requests(RequestFilter{})
	for _, op := range explorerOperations {
		out.Operations = append(out.Operations, string(op))
	}
	return out
}

// handle returns the installed fault the explorer lists as id.
func (e *explorer) handle(id string) *FaultHandle {
	e.mu.Lock()
	defer e.mu.Unlock()
	for h, x := range e.faults {
		if x == id {
			return h
		}
	}
	return nil
}

// controlRoute serves the explorer's control endpoints.
func (e *explorer) controlRoute(r *http.Request, path string) (int, any, error) {
	s := &Server{s: e.srv}
	m := r.Method
	switch {
	case path == "controls" && m == http.MethodGet:
		return http.StatusOK, e.controls(), nil
	case path == "faults" && m == http.MethodPost:
		var b explorerFault
		if err := decodeBody(r, &b); err != nil {
			return 0, nil, err
		}
		f, err := b.fault()
		if err != nil {
			return 0, nil, err
		}
		h := s.InjectFault(f)
		e.mu.Lock()
		e.next++
		id := "x" + strconv.Itoa(e.next)
		e.faults[h] = id
		e.mu.Unlock()
		return http.StatusCreated, map[string]string{"id": id}, nil
	case path == "faults" && m == http.MethodDelete:
		s.ClearFaults()
		return http.StatusOK, e.controls(), nil
	case strings.HasPrefix(path, "faults/") && m == http.MethodDelete:
		h := e.handle(strings.TrimPrefix(path, "faults/"))
		if h == nil {
			return 0, nil, &explorerError{Status: http.StatusNotFound, Message: "explorer: no such fault"}
		}
		h.Remove()
		return http.StatusOK, e.controls(), nil
	case path == "split" && m == http.MethodPost:
		var b struct{ DB, Coll, Range string }
		if err := decodeBody(r, &b); err != nil {
			return 0, nil, err
		}
		return controlDone(s.SplitRange(b.DB, b.Coll, b.Range))
	case path == "region" && m == http.MethodPost:
		var b struct {
			Name string
			Down bool
		}
		if err := decodeBody(r, &b); err != nil {
			return 0, nil, err
		}
		return controlDone(s.SetRegionDown(b.Name, b.Down))
	case path == "failover" && m == http.MethodPost:
		var b struct{ Region string }
		if err := decodeBody(r, &b); err != nil {
			return 0, nil, err
		}
		return controlDone(s.FailoverWriteRegion(b.Region))
	case path == "lag" && m == http.MethodPost:
		var b struct{ Region, Lag string }
		if err := decodeBody(r, &b); err != nil {
			return 0, nil, err
		}
		d, err := time.ParseDuration(b.Lag)
		if err != nil || d < 0 {
			return 0, nil, refuse("lag: want a duration ≥ 0 such as 200ms")
		}
		return controlDone(s.SetReplicationLag(b.Region, d))
	case path == "throughput-limits" && m == http.MethodPost:
		var b struct{ Enabled *bool }
		if err := decodeBody(r, &b); err != nil {
			return 0, nil, err
		}
		if b.Enabled == nil {
			return 0, nil, refuse(`want {"enabled": true} or {"enabled": false}`)
		}
		s.SetThroughputLimits(*b.Enabled)
		return http.StatusOK, map[string]bool{"enabled": *b.Enabled}, nil
	}
	return 0, nil, &explorerError{Status: http.StatusNotFound, Message: fmt.Sprintf("explorer: no endpoint %s api/%s", m, path)}
}

// controlDone answers a control action: 200 {} or its error as a 400.
func controlDone(err error) (int, any, error) {
	if err != nil {
		var xe *explorerError
		if errors.As(err, &xe) {
			return 0, nil, xe
		}
		return 0, nil, &explorerError{Status: http.StatusBadRequest, Message: err.Error()}
	}
	return http.StatusOK, map[string]any{}, nil
}
