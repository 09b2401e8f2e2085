package crosspartition

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// queryInfo and queryRange are the plan's (internal/wire, shared with cosmostest).
type (
	queryInfo  = wire.QueryInfo
	queryRange = wire.QueryRange
)

// plan is the service's partitioned query execution info.
type plan struct {
	Version     int          `json:"partitionedQueryExecutionInfoVersion"`
	QueryInfo   *queryInfo   `json:"queryInfo"`
	QueryRanges []queryRange `json:"queryRanges"`
	// refused is set when the plan came with a 400/1004: the gateway needs client-side state.
	refused bool
	// HybridSearch is set by the service for full-text hybrid search, which this engine refuses.
	HybridSearch json.RawMessage `json:"hybridSearchQueryInfo"`
}

func parsePlan(b []byte) (*plan, error) {
	var p plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	if p.QueryInfo == nil {
		p.QueryInfo = &queryInfo{}
	}
	if len(p.QueryRanges) == 0 {
		return nil, errors.New("the plan has no queryRanges")
	}
	return &p, nil
}

// planHeaders are the headers of a query plan request.
var planHeaders = http.Header{
	http.CanonicalHeaderKey(hdrIsQueryPlan):    {"True"},
	http.CanonicalHeaderKey(hdrQueryVersion):   {queryVersion},
	http.CanonicalHeaderKey(hdrSupportedFeats): {supportedFeatures},
}

// fetchPlan asks the gateway for the query's plan (a query plan request); a gateway that does not
// answer plan requests is sent the query itself, whose 400/1004 carries the plan (and whose 200
// means the query needs no client-side state: it then runs per range as it is).
func (c *Container) fetchPlan(ctx context.Context, prefix *azcosmos.PartitionKey, query string, params []azcosmos.QueryParameter, base *azcosmos.QueryOptions) (*plan, float32, error) {
	var charge float32
	resp, err := c.page(policy.WithHTTPHeader(ctx, planHeaders), prefix, query, params, "", 0, base)
	charge += resp.RequestCharge
	if err == nil {
		body, rerr := runtime.Payload(resp.RawResponse)
		if rerr != nil {
			return nil, charge, rerr
		}
		p, perr := parsePlan(body)
		if perr != nil {
			return nil, charge, &PlanError{Reason: "the gateway's query plan cannot be read: " + perr.Error()}
		}
		return p, charge, nil
	}
	if p, ok := planFromError(err); ok {
		return p, charge, nil
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) || (re.StatusCode != http.StatusBadRequest && re.StatusCode != http.StatusNotImplemented) {
		return nil, charge, err
	}
	// The gateway refused the plan request itself: send the query, asking for one item.
	resp, err = c.page(ctx, prefix, query, params, "", 1, base)
	charge += resp.RequestCharge
	if err == nil {
		return &plan{QueryInfo: &queryInfo{}, QueryRanges: []queryRange{{Min: "", Max: "FF", IsMinInclusive: true}}}, charge, nil
	}
	if p, ok := planFromError(err); ok {
		p.refused = true
		return p, charge, nil
	}
	return nil, charge, err
}

// planFromError returns the plan a 400/1004 carries in additionalErrorInfo.
func planFromError(err error) (*plan, bool) {
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusBadRequest || re.RawResponse == nil {
		return nil, false
	}
	if sub, _ := strconv.Atoi(re.RawResponse.Header.Get(hdrSubStatus)); sub != subCrossPartitionQuery {
		return nil, false
	}
	body, rerr := runtime.Payload(re.RawResponse)
	if rerr != nil {
		return nil, false
	}
	var e struct {
		Info json.RawMessage `json:"additionalErrorInfo"`
	}
	if json.Unmarshal(body, &e) != nil || len(e.Info) == 0 {
		return nil, false
	}
	raw := []byte(e.Info)
	var s string
	if json.Unmarshal(raw, &s) == nil { // the service sends the plan as a JSON string
		raw = []byte(s)
	}
	p, perr := parsePlan(raw)
	if perr != nil {
		return nil, false
	}
	return p, true
}

// planCacheSize bounds the plans a Container keeps.
const planCacheSize = 256

// planCache keeps the plans of recent queries (by container, text and parameter values, whose
// TOP/OFFSET/LIMIT the plan binds), as the other SDKs do, so that each page resumed from a token
// does not ask the gateway again. Plans are not modified once parsed.
type planCache struct {
	mu    sync.Mutex
	plans map[string]*plan
	order []string // insertion order, for eviction
}

func (c *planCache) get(key string) *plan {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.plans[key]
}

func (c *planCache) put(key string, p *plan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.plans == nil {
		c.plans = map[string]*plan{}
	}
	if _, ok := c.plans[key]; ok {
		return
	}
	if len(c.order) >= planCacheSize {
		delete(c.plans, c.order[0])
		c.order = c.order[1:]
	}
	c.plans[key] = p
	c.order = append(c.order, key)
}
