package diagnostics

import (
	"net/http"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
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
	acct, ok := wire.ParseAccount(body)
	if !ok {
		return
	}
	m := make(map[string]string, len(acct.Writable)+len(acct.Readable))
	for _, l := range append(acct.Writable, acct.Readable...) {
		if l.Name != "" {
			m[l.Host] = l.Name
		}
	}
	if len(m) > 0 {
		r.m.Store(&m)
	}
}

// names returns the region names of hosts, skipping hosts it does not know; nil if none is known.
func (r *regionNames) names(hosts []string) []string {
	mp := r.m.Load()
	if mp == nil {
		return nil
	}
	var out []string
	for _, h := range hosts {
		if n, ok := (*mp)[h]; ok {
			out = append(out, n)
		}
	}
	return out
}

// RegionName returns the region name of host (host:port), "" if unknown or r is nil.
func (r *regionNames) RegionName(host string) string {
	if r == nil || host == "" {
		return ""
	}
	if mp := r.m.Load(); mp != nil {
		return (*mp)[host]
	}
	return ""
}
