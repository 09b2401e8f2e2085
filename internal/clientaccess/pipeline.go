package clientaccess

import (
	"net/http"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Resource is what a request signs: its resource type ("docs", "colls", "pkranges") and link
// ("dbs/db/colls/c"). Set it as the request's operation value (policy.Request.SetOperationValue)
// on requests sent through a Pipeline.
type Resource struct{ Type, Link string }

// Pipeline returns an azcore pipeline for requests azcosmos has no API for, built from the
// client's options (transport, retry settings, cosmoskit's diagnostics and retry policies), with
// extra per-retry policies after the client's and, last, a policy that signs every attempt with
// a's credential (after region routing chose the host, which the signature does not cover).
// a.Auth must not be nil.
func Pipeline(a Access, module string, extra ...policy.Policy) runtime.Pipeline {
	co := a.Options
	co.PerCallPolicies = slices.Clone(co.PerCallPolicies)
	co.PerRetryPolicies = slices.Concat(co.PerRetryPolicies, extra, []policy.Policy{signPolicy{auth: a.Auth}})
	return runtime.NewPipeline(module, "v1", runtime.PipelineOptions{}, &co)
}

type signPolicy struct{ auth Authorizer }

func (p signPolicy) Do(req *policy.Request) (*http.Response, error) {
	var res Resource
	req.OperationValue(&res)
	req.Raw().Header.Set(wire.HeaderVersion, wire.APIVersion)
	if err := p.auth.Authorize(req.Raw(), res.Type, res.Link); err != nil {
		return nil, err
	}
	return req.Next()
}
