package clientaccess

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Container sends requests azcosmos has no API for (bulk requests, the conflicts feed, a
// container's partition key ranges) to one container through a Pipeline. It is a value, safe for
// concurrent use.
type Container struct {
	pl       runtime.Pipeline
	endpoint string // without a trailing slash
	db, coll string
}

// NewContainer returns the Container of database db's container coll, its requests sent through
// Pipeline(a, module, extra...). a.Auth must not be nil.
func NewContainer(a Access, module, db, coll string, extra ...policy.Policy) Container {
	return Container{pl: Pipeline(a, module, extra...), endpoint: strings.TrimSuffix(a.Endpoint, "/"), db: db, coll: coll}
}

// Link is the container's resource link as signed ("dbs/db/colls/c", unescaped).
func (c Container) Link() string { return "dbs/" + c.db + "/colls/" + c.coll }

// path is the container's escaped path under the account endpoint.
func (c Container) path() string {
	return "dbs/" + url.PathEscape(c.db) + "/colls/" + url.PathEscape(c.coll)
}

// NewRequest returns a request for the container's path followed by suffix ("", "/docs",
// "/conflicts/" + an escaped id), signed as res, accepting JSON, with hdr set.
func (c Container) NewRequest(ctx context.Context, method, suffix string, res Resource, hdr map[string]string) (*policy.Request, error) {
	req, err := runtime.NewRequest(ctx, method, c.endpoint+"/"+c.path()+suffix)
	if err != nil {
		return nil, err
	}
	req.SetOperationValue(res)
	req.Raw().Header.Set("Accept", "application/json")
	for k, v := range hdr {
		req.Raw().Header.Set(k, v)
	}
	return req, nil
}

// Do sends req. With want, a response of another status is an *azcore.ResponseError (its body
// read and closed); without, every response is returned.
func (c Container) Do(req *policy.Request, want ...int) (*http.Response, error) {
	resp, err := c.pl.Do(req)
	if err != nil {
		return nil, err
	}
	if len(want) > 0 && !slices.Contains(want, resp.StatusCode) {
		defer resp.Body.Close()
		return nil, runtime.NewResponseError(resp)
	}
	return resp, nil
}

// Send is NewRequest and Do in one call.
func (c Container) Send(ctx context.Context, method, suffix string, res Resource, hdr map[string]string, want ...int) (*http.Response, error) {
	req, err := c.NewRequest(ctx, method, suffix, res, hdr)
	if err != nil {
		return nil, err
	}
	return c.Do(req, want...)
}
