// Package clientaccess hands what a cosmoskit package needs to send requests azcosmos has no API
// for (bulk requests, the conflicts feed) from a *cosmoskit.Client to that package, and sends
// them (Container), without exporting anything to users: the account endpoint, an Authorizer that signs requests with the client's credential
// (the key itself never leaves it), and the client's azcore options (transport and TLS settings,
// cosmoskit's diagnostics and retry policies). cosmoskit registers the lookup at init; packages
// built on a *cosmoskit.Client call Of.
//
// It holds no state: Of asks the *cosmoskit.Client it is given. Nothing here passes a client's
// logger or diagnostics policy on to packages given a container handle; those packages take them
// from their options or from the client they are explicitly given (repository.NewFromClient).
package clientaccess

import (
	"errors"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Authorizer signs one request attempt: it sets the x-ms-date and Authorization headers for the
// resource type and link (internal/wire.StringToSign) the request targets. Implementations are
// safe for concurrent use and never put the credential in an error.
type Authorizer interface {
	Authorize(req *http.Request, resourceType, resourceLink string) error
}

// Access is what a client hands over.
type Access struct {
	// Endpoint is the account endpoint, "scheme://host[:port]/".
	Endpoint string
	// Auth signs requests; nil for a client without a credential of cosmoskit's (NewFromClient).
	Auth Authorizer
	// Options are the azcore options the client's pipeline was built with: transport, retry
	// settings, telemetry, and the per-call and per-retry policies (cosmoskit's diagnostics and
	// retry). Callers may append to copies of the policy slices, never to these.
	Options policy.ClientOptions
}

// ErrNoAccess is returned by Of for a value that is not a client, or before cosmoskit registered.
var ErrNoAccess = errors.New("cosmoskit: no client access")

var lookup func(client any) (Access, error)

// Register installs the lookup; cosmoskit calls it once, at init.
func Register(f func(client any) (Access, error)) { lookup = f }

// Of returns the access of client (a *cosmoskit.Client), or the lookup's error.
func Of(client any) (Access, error) {
	if lookup == nil {
		return Access{}, ErrNoAccess
	}
	return lookup(client)
}
