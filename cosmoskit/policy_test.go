package cosmoskit

import (
	"net/http"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

type policyT = policy.Policy

// countingPolicy counts the requests that pass through it.
type countingPolicy struct{ n atomic.Int32 }

func (p *countingPolicy) Do(req *policy.Request) (*http.Response, error) {
	p.n.Add(1)
	return req.Next()
}
