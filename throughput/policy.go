package throughput

import (
	"net/http"
	"strconv"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/opstate"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Policy returns the azcore policy that enforces groups.
//
// For each attempt of a request whose context carries a Group (WithGroup), it waits until the group
// has budget, sends the group's priority and throughput bucket headers, and charges the group with
// the response's x-ms-request-charge. Requests without a group pass through untouched. Install it
// in the per-retry policies, so each attempt (and each 429, which is free) is seen; a second
// instance in the same pipeline passes requests through.
//
// A request whose context ends while waiting fails with a *cosmoserr.Error wrapping the
// context's error, without being sent.
func Policy() policy.Policy { return groupPolicy{} }

type groupPolicy struct{}

// enforced marks an attempt the outermost instance of the policy handles.
type enforced struct{ on bool }

func (groupPolicy) Do(req *policy.Request) (*http.Response, error) {
	raw := req.Raw()
	g := FromContext(raw.Context())
	var mark enforced
	if g == nil || (req.OperationValue(&mark) && mark.on) {
		return req.Next()
	}
	start := time.Now()
	reserved, err := g.acquire(raw.Context())
	opstate.AddGroupWait(raw.Context(), time.Since(start)) // not the service's latency (diagnostics)
	if err != nil {
		op := wire.Classify(raw)
		return nil, &cosmoserr.Error{Operation: op.Name, Database: op.Database, Container: op.Container, Err: err}
	}
	if g.opts.Priority != "" {
		raw.Header.Set(wire.HeaderPriorityLevel, string(g.opts.Priority))
	}
	if g.opts.ThroughputBucket > 0 {
		raw.Header.Set(wire.HeaderThroughputBucket, strconv.Itoa(g.opts.ThroughputBucket))
	}
	req.SetOperationValue(enforced{on: true})
	resp, err := req.Next()
	req.SetOperationValue(enforced{})
	if err != nil {
		g.settle(reserved, 0, false)
		return resp, err
	}
	g.settle(reserved, wire.RequestCharge(resp.Header), resp.StatusCode == http.StatusTooManyRequests)
	return resp, err
}
