package clientaccess

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// setDate sets x-ms-date to now (each attempt signs a fresh date, as the service checks it).
func setDate(req *http.Request) string {
	d := time.Now().UTC().Format(http.TimeFormat)
	req.Header.Set(wire.HeaderDate, d)
	return d
}

// keyAuthorizer signs with an account key (decoded).
type keyAuthorizer struct{ key []byte }

// KeyAuthorizer returns an Authorizer that signs with the decoded account key. It keeps its own
// copy of key.
func KeyAuthorizer(key []byte) Authorizer {
	return keyAuthorizer{key: append([]byte(nil), key...)}
}

func (a keyAuthorizer) Authorize(req *http.Request, resourceType, resourceLink string) error {
	date := setDate(req)
	req.Header.Set(wire.HeaderAuthorization, wire.MasterKeyAuthorization(a.key, req.Method, resourceType, resourceLink, date))
	return nil
}

// tokenRefreshMargin is how long before its expiry a cached token is replaced.
const tokenRefreshMargin = 5 * time.Minute

// tokenAuthorizer authorizes with Microsoft Entra ID tokens from a TokenCredential, cached until
// tokenRefreshMargin before they expire, as azcosmos's bearer token policy does.
type tokenAuthorizer struct {
	cred   func() (azcore.TokenCredential, error)
	scopes []string

	mu  sync.Mutex
	tok azcore.AccessToken
}

// TokenAuthorizer returns an Authorizer that sends "type=aad&ver=1.0&sig=<token>" with tokens of
// cred (called once, on first use, so that building a default credential costs nothing until a
// request needs it) for scopes.
func TokenAuthorizer(cred func() (azcore.TokenCredential, error), scopes []string) Authorizer {
	return &tokenAuthorizer{cred: cred, scopes: append([]string(nil), scopes...)}
}

func (a *tokenAuthorizer) Authorize(req *http.Request, _, _ string) error {
	tok, err := a.token(req.Context())
	if err != nil {
		return err
	}
	setDate(req)
	req.Header.Set(wire.HeaderAuthorization, wire.AADAuthorization(tok))
	return nil
}

func (a *tokenAuthorizer) token(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tok.Token != "" && time.Until(a.tok.ExpiresOn) > tokenRefreshMargin {
		return a.tok.Token, nil
	}
	cred, err := a.cred()
	if err != nil {
		return "", err
	}
	tok, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: a.scopes})
	if err != nil {
		return "", fmt.Errorf("cosmoskit: get a Microsoft Entra ID token for %v: %w", a.scopes, err)
	}
	a.tok = tok
	return tok.Token, nil
}
