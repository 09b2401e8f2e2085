package cosmoskit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// These mirror the azcosmos default HTTP client (cosmos_default_http_client.go), which is not exported.
const (
	dialTimeout      = 5 * time.Second
	roundTripTimeout = 65 * time.Second
)

// DefaultMaxConnsPerHost is the connections per host (each regional endpoint) that the transport
// cosmoskit builds opens at most when Connections.MaxPerHost is 0: the .NET SDK's gateway-mode
// default (CosmosClientOptions.GatewayModeMaxConnectionLimit, 50).
const DefaultMaxConnsPerHost = 50

// ConnectionOptions bounds the connections of the transport New builds (when
// Config.ClientOptions has no Transport of its own). Requests beyond the cap wait for a
// connection, within their context: a caller's deadline or cancellation ends the wait, with the
// caller's context error. The zero value is the default: at most 50 connections per host.
type ConnectionOptions struct {
	// MaxPerHost caps the connections to each host (the account endpoint and each regional
	// endpoint, counted separately), dialling and idle included; idle connections are kept up to
	// the same number, so that they are reused rather than closed. If 0, DefaultMaxConnsPerHost
	// (50). Negative values are refused.
	MaxPerHost int
	// Disable removes the cap, as azcosmos's own default transport has none: under overload every
	// waiting request opens a connection of its own. Default: false.
	Disable bool
}

func (o ConnectionOptions) withDefaults() ConnectionOptions {
	if o.Disable {
		o.MaxPerHost = 0
	} else if o.MaxPerHost == 0 {
		o.MaxPerHost = DefaultMaxConnsPerHost
	}
	return o
}

// limitConns applies o to the http.Transports of a transport cosmoskit built.
func limitConns(t policy.Transporter, o ConnectionOptions) {
	if o.Disable {
		return
	}
	switch c := t.(type) {
	case *loopbackTransport:
		limitConns(c.relaxed, o)
		limitConns(c.strict, o)
	case *http.Client:
		if ht, ok := c.Transport.(*http.Transport); ok {
			ht.MaxConnsPerHost = o.MaxPerHost
			ht.MaxIdleConnsPerHost = o.MaxPerHost
		}
	}
}

// dialWrap, set only by tests before any client is built, wraps every connection the transports
// cosmoskit builds dial (to count the connections open at once).
var dialWrap func(net.Conn) net.Conn

// newHTTPClient returns an http.Client with the azcosmos default transport settings and tlsConfig.
// control, if non-nil, vets every address dialled.
func newHTTPClient(tlsConfig *tls.Config, control func(network, address string, c syscall.RawConn) error, proxy bool) *http.Client {
	dial := (&net.Dialer{
		Timeout:   dialTimeout,
		KeepAlive: 30 * time.Second,
		Control:   control,
	}).DialContext
	t := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err == nil && dialWrap != nil {
				c = dialWrap(c)
			}
			return c, err
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          1000,
		MaxIdleConnsPerHost:   100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 1 * time.Second,
		TLSClientConfig:       tlsConfig,
	}
	if proxy {
		t.Proxy = http.ProxyFromEnvironment
	}
	return &http.Client{Transport: t, Timeout: roundTripTimeout}
}

// loopbackOnly is a net.Dialer Control that refuses any address that is not loopback, so the relaxed
// TLS configuration can never be used for a connection that leaves the machine.
func loopbackOnly(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !ap.Addr().Unmap().IsLoopback() {
		return fmt.Errorf("cosmoskit: refusing %s connection to non-loopback address %s with relaxed TLS verification", network, address)
	}
	return nil
}

// loopbackTransport serves a loopback (emulator) endpoint: requests to loopback hosts skip TLS
// verification (emulators use self-signed certificates) over connections that may only reach
// loopback addresses; requests to any other host (a region the account metadata names) are verified
// against the system roots as usual.
type loopbackTransport struct {
	relaxed *http.Client
	strict  *http.Client
}

func newLoopbackTransport() *loopbackTransport {
	return &loopbackTransport{
		relaxed: newHTTPClient(&tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: true}, loopbackOnly, false), //nolint:gosec // loopback only, enforced at dial time
		strict:  newHTTPClient(&tls.Config{MinVersion: tls.VersionTLS12}, nil, true),
	}
}

// Do implements policy.Transporter.
func (t *loopbackTransport) Do(req *http.Request) (*http.Response, error) {
	if isLoopbackHost(req.URL.Hostname()) {
		return t.relaxed.Do(req)
	}
	return t.strict.Do(req)
}

// CloseIdleConnections closes both clients' idle connections.
func (t *loopbackTransport) CloseIdleConnections() {
	t.relaxed.CloseIdleConnections()
	t.strict.CloseIdleConnections()
}

var _ policy.Transporter = (*loopbackTransport)(nil)

// newPinnedClient returns a client that trusts exactly cert: the server's leaf must equal it or
// chain to it (with the host name checked in the chain case).
func newPinnedClient(cert *x509.Certificate) *http.Client {
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	cfg := &tls.Config{
		MinVersion: tls.VersionTLS12,
		// Verification is done in VerifyConnection against cert only, never the system roots.
		InsecureSkipVerify: true, //nolint:gosec // replaced by VerifyConnection below
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("cosmoskit: server presented no certificate")
			}
			leaf := cs.PeerCertificates[0]
			if leaf.Equal(cert) {
				return nil
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, DNSName: cs.ServerName})
			if err != nil {
				return fmt.Errorf("cosmoskit: server certificate is not Config.ServerCertificate (%s) and does not chain to it: %w", certFingerprint(cert.Raw), err)
			}
			return nil
		},
	}
	return newHTTPClient(cfg, nil, true)
}

// pinHostPolicy sends every attempt to one host[:port], undoing the SDK's regional endpoint
// rewriting (Config.DisableEndpointDiscovery). It runs last among the per-retry policies, after
// the SDK's retry policy chose a region; the master-key signature does not cover the host.
type pinHostPolicy struct{ host string }

// Do implements policy.Policy.
func (p pinHostPolicy) Do(req *policy.Request) (*http.Response, error) {
	raw := req.Raw()
	if raw.URL.Host != p.host {
		raw.URL.Host = p.host
		raw.Host = ""
	}
	return req.Next()
}
