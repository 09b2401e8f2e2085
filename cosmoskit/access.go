package cosmoskit

import (
	"encoding/base64"
	"net/url"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/clientaccess"
)

// The seam through which packages built on a Client (package conflicts) send requests azcosmos has
// no API for, with the Client's credential, transport and policies; nothing of it is exported.
func init() { clientaccess.Register(accessOf) }

// accessOf is the clientaccess lookup: a Client from New hands over its endpoint, an authorizer
// holding its credential, and its azcore options; one from NewFromClient has no credential of
// cosmoskit's (Auth nil); a closed Client is cosmoserr.ErrClosed.
func accessOf(v any) (clientaccess.Access, error) {
	c, ok := v.(*Client)
	if !ok || c == nil {
		return clientaccess.Access{}, clientaccess.ErrNoAccess
	}
	if c.closed.Load() {
		return clientaccess.Access{}, cosmoserr.ErrClosed
	}
	if c.entry == nil {
		return clientaccess.Access{Endpoint: c.Endpoint()}, nil
	}
	return c.entry.access, nil
}

// newAccess builds what the seam hands over for a resolved config and the options its azcosmos
// client was built with.
func newAccess(r *resolved, opts *azcosmos.ClientOptions) clientaccess.Access {
	a := clientaccess.Access{Endpoint: r.ep.url, Options: opts.ClientOptions}
	switch r.auth {
	case authKey:
		if key, err := base64.StdEncoding.DecodeString(r.key); err == nil { // resolve checked it
			a.Auth = clientaccess.KeyAuthorizer(key)
		}
	case authToken:
		cred := r.cred
		a.Auth = clientaccess.TokenAuthorizer(func() (azcore.TokenCredential, error) { return cred, nil }, tokenScopes(r, opts))
	default:
		build := sync.OnceValues(func() (azcore.TokenCredential, error) { return azidentity.NewDefaultAzureCredential(nil) })
		a.Auth = clientaccess.TokenAuthorizer(build, tokenScopes(r, opts))
	}
	return a
}

// tokenScopes are the scopes azcosmos.NewClient asks tokens for: the cloud configuration's
// audience for Cosmos DB when set, else the account's "scheme://host/.default".
func tokenScopes(r *resolved, opts *azcosmos.ClientOptions) []string {
	if svc, ok := opts.Cloud.Services[azcosmos.ServiceName]; ok && svc.Audience != "" {
		return []string{svc.Audience + "/.default"}
	}
	u, err := url.Parse(r.ep.url)
	if err != nil {
		return nil
	}
	return []string{u.Scheme + "://" + u.Hostname() + "/.default"}
}
