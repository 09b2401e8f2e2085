// Package clientaccess hands what a cosmoskit package needs to send requests azcosmos has no API
// for (the conflicts feed) from a *cosmoskit.Client to that package, without exporting anything
// to users: the account endpoint, an Authorizer that signs requests with the client's credential
// (the key itself never leaves it), and the client's azcore options (transport and TLS settings,
// cosmoskit's diagnostics and retry policies). cosmoskit registers the lookup at init; packages
// built on a *cosmoskit.Client call Of.
//
// It also carries the client's logger and diagnostics policy to packages given only a container
// handle (repository, crosspartition, vector, changefeed): cosmoskit records every handle its
// Client.Container makes (RegisterContainer), and those packages look theirs up with
// ForContainer or Logger when their own options leave the logger or diagnostics unset. A handle
// made any other way (azcosmos's NewContainer on Client.Cosmos(), a bare azcosmos client) is
// unknown and gets the package's defaults (slog.Default(), no diagnostics policy).
package clientaccess

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
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

// Inherited is what a package given a container handle learns of the cosmoskit client that
// handed it out (cosmoskit.Client.Container): the client's logger and diagnostics policy, which
// the package uses wherever its own options leave them unset.
type Inherited struct {
	// Logger is the client's Config.Logger; nil when the client was built without one (then
	// slog.Default(), read by the package when it is built, as for a bare azcosmos client).
	Logger *slog.Logger
	// Diagnostics is the diagnostics policy installed on the client (a *diagnostics.Policy), nil
	// when disabled. It is opaque here: clientaccess sits below the public packages and imports
	// none of them (internal/surface checks it), so the package that uses the policy asserts its
	// type.
	Diagnostics any
}

// containers maps every *azcosmos.ContainerClient a cosmoskit client handed out to what it
// passes on. Entries go when the client's last handle closes.
var containers sync.Map // *azcosmos.ContainerClient → Inherited

// RegisterContainer records what packages built on c inherit; cosmoskit calls it for every
// handle Client.Container creates.
func RegisterContainer(c *azcosmos.ContainerClient, in Inherited) { containers.Store(c, in) }

// ForgetContainer drops c's record; cosmoskit calls it when the client that made c closes.
func ForgetContainer(c *azcosmos.ContainerClient) { containers.Delete(c) }

// ForContainer returns what c inherits from the cosmoskit client it came from, and false for a
// handle made otherwise (azcosmos.Client.NewContainer, a client closed since, or a
// cosmoskit.NewFromClient client): then the package uses its own defaults.
func ForContainer(c *azcosmos.ContainerClient) (Inherited, bool) {
	if c == nil {
		return Inherited{}, false
	}
	v, ok := containers.Load(c)
	if !ok {
		return Inherited{}, false
	}
	return v.(Inherited), true
}

// Logger returns explicit if set, else the logger c inherits from its cosmoskit client, else
// slog.Default(): the order every package built on a container follows.
func Logger(explicit *slog.Logger, c *azcosmos.ContainerClient) *slog.Logger {
	if explicit != nil {
		return explicit
	}
	if in, ok := ForContainer(c); ok && in.Logger != nil {
		return in.Logger
	}
	return slog.Default()
}
