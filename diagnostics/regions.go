package diagnostics

import (
	"encoding/json"
	"net/http"
	"net/url"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// regionNames maps region endpoint hosts (host:port) to the account's region names ("West US"),
// learnt from the account metadata responses (GET /) that pass through the policy: the SDK reads
// them at start-up and every 5 minutes. Lookups are lock-free.
type regionNames struct {
	m atomic.Pointer[map[string]string]
}

// learn records the regions of an account metadata response body.
func (r *regionNames) learn(resp *http.Response) {
	body, err := runtime.Payload(resp)
	if err != nil {
		return
	}
	var acct struct {
		Write []accountRegion `json:"writableLocations"`
		Read  []accountRegion `json:"readableLocations"`
	}
	if json.Unmarshal(body, &acct) != nil {
		return
	}
	m := make(map[string]string, len(acct.Write)+len(acct.Read))
	for _, l := range append(acct.Write, acct.Read...) {
		if u, err := url.Parse(l.Endpoint); err == nil && u.Host != "" && l.Name != "" {
			m[u.Host] = l.Name
		}
	}
	if len(m) > 0 {
		r.m.Store(&m)
	}
}

type accountRegion struct {
	Name     string `json:"name"`
	Endpoint string `json:"databaseAccountEndpoint"`
}

// name returns the region name of host (host:port), "" if unknown or r is nil.
func (r *regionNames) name(host string) string {
	if r == nil || host == "" {
		return ""
	}
	if mp := r.m.Load(); mp != nil {
		return (*mp)[host]
	}
	return ""
}
