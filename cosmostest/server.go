package cosmostest

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Server is an in-process Cosmos DB gateway. Create it with NewServer (tests) or Start (programs).
// All methods are safe for concurrent use.
type Server struct {
	s *server
}

// server is the implementation behind Server.
type server struct {
	cfg       config
	key       []byte
	verifier  *wire.Verifier // master-key signatures under key
	cert      *tls.Certificate
	pool      *x509.CertPool
	transport *http.Transport

	mu          sync.Mutex // guards everything below and the whole store
	regions     []*region
	writeRegion int
	offset      time.Duration // added to cfg.clock by Advance
	store       *store
	closed      bool
	seen        map[requestKey]int     // authenticated requests, for Requests
	charged     map[requestKey]float64 // their request charges, for RequestCharge
	faults      faultSet               // InjectFault (faults.go)
	tput        throughputState        // WithThroughputLimits (throughput.go)

	// Replication (replication.go): the lag of writes reaching each region (by index), whether
	// containers have per-region copies, and the region of the request being served (the origin
	// of its writes).
	lags        []time.Duration
	replicating bool
	origin      int
	onConflict  func(*container, conflictRecord) // tests: sees every conflict recorded
	onQuery     func()                           // tests: called, without mu, as a query starts executing
	explorer    *explorerListener                // WithExplorer (explorer.go)
}

// NewServer starts a server and registers its Close with tb.Cleanup. It fails tb if the server
// cannot start.
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := Start(opts...)
	if err != nil {
		tb.Fatalf("cosmostest: %v", err)
	}
	tb.Cleanup(s.Close)
	tb.Cleanup(func() { s.explorerOnFailure(tb) }) // runs before Close
	return s
}

// Start starts a server. Call Close when done. Errors: a malformed key, or a listener that
// cannot be opened.
func Start(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	key, err := base64.StdEncoding.DecodeString(cfg.key)
	if err != nil {
		return nil, fmt.Errorf("cosmostest: key is not base64: %w", err)
	}
	i := slices.IndexFunc(consistencyLevels, func(l string) bool { return strings.EqualFold(l, cfg.consistency) })
	if i < 0 {
		return nil, fmt.Errorf("cosmostest: consistency level %q: want one of %s", cfg.consistency, strings.Join(consistencyLevels, ", "))
	}
	cfg.consistency = consistencyLevels[i]
	if cfg.multiWrite && cfg.consistency == "Strong" {
		return nil, errors.New("cosmostest: Strong consistency cannot be combined with WithMultiWrite: the service refuses multiple write regions on an account with Strong consistency")
	}
	srv := &server{cfg: cfg, key: key, verifier: wire.NewVerifier(key), replicating: cfg.lag > 0}
	for range cfg.regions {
		srv.lags = append(srv.lags, cfg.lag)
	}
	srv.store = newStore()
	if !cfg.http {
		cert, pool, err := newCertificate()
		if err != nil {
			return nil, fmt.Errorf("cosmostest: generate certificate: %w", err)
		}
		srv.cert, srv.pool = cert, pool
	}
	if cfg.certFile != "" {
		if cfg.http {
			return nil, errors.New("cosmostest: WithCertificateFile needs TLS; the server was started WithHTTP")
		}
		if err := os.WriteFile(cfg.certFile, srv.certificatePEM(), 0o644); err != nil {
			return nil, fmt.Errorf("cosmostest: write certificate: %w", err)
		}
	}
	srv.transport = &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        100,
		MaxIdleConnsPerHost: 100,
		IdleConnTimeout:     90 * time.Second,
		TLSClientConfig:     &tls.Config{RootCAs: srv.pool, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:   true,
	}
	for i, name := range cfg.regions {
		addr := "127.0.0.1:0"
		if i == 0 {
			addr = cfg.address
		}
		r := &region{srv: srv, name: name, index: i}
		if err := r.listen(addr); err != nil {
			srv.closeAll()
			return nil, fmt.Errorf("cosmostest: listen for region %q on %s: %w", name, addr, err)
		}
		srv.regions = append(srv.regions, r)
	}
	if err := srv.startExplorer(); err != nil {
		srv.closeAll()
		return nil, err
	}
	return &Server{s: srv}, nil
}

// Close stops every listener and drops all connections. It is safe to call more than once.
func (s *Server) Close() { s.s.closeAll() }

func (srv *server) closeAll() {
	srv.mu.Lock()
	if srv.closed {
		srv.mu.Unlock()
		return
	}
	srv.closed = true
	regions := srv.regions
	srv.mu.Unlock()
	for _, r := range regions {
		r.stop()
	}
	srv.stopExplorer()
	srv.transport.CloseIdleConnections()
}

// Endpoint returns the account endpoint URL, e.g. "https://127.0.0.1:PORT/" ("http://" with
// WithHTTP). It is the URL clients are built with, not the advertised host.
func (s *Server) Endpoint() string { return s.s.regions[0].url() }

// CertificatePEM returns the server's TLS certificate, PEM-encoded (nil with WithHTTP). It is the
// certificate a client must trust, also served at /_explorer/emulator.pem as the emulators serve
// theirs, and written to a file by WithCertificateFile.
func (s *Server) CertificatePEM() []byte { return s.s.certificatePEM() }

// Key returns the master key (default: the emulator's well-known key, cosmoskit.EmulatorKey).
func (s *Server) Key() string { return s.s.cfg.key }

// ConnectionString returns "AccountEndpoint=<Endpoint()>;AccountKey=<Key()>;".
func (s *Server) ConnectionString() string {
	return "AccountEndpoint=" + s.Endpoint() + ";AccountKey=" + s.Key() + ";"
}

// ClientOptions returns new client options whose transport trusts the server's certificate and
// keeps connections alive. Each call returns a fresh copy that the caller may modify (add
// policies, PreferredRegions, ...); the underlying *http.Transport is shared.
func (s *Server) ClientOptions() *azcosmos.ClientOptions {
	return &azcosmos.ClientOptions{
		ClientOptions: azcore.ClientOptions{
			Transport: &http.Client{Transport: s.s.transport},
		},
	}
}

// RegionEndpoint returns the endpoint URL of the named region ("" if there is no such region).
// The first region's endpoint is Endpoint().
func (s *Server) RegionEndpoint(name string) string {
	r := s.s.region(name)
	if r == nil {
		return ""
	}
	return r.url()
}

// Advance moves the server's clock forward by d (for TTL expiry, _ts and change-feed times)
// without sleeping.
func (s *Server) Advance(d time.Duration) {
	s.s.mu.Lock()
	s.s.offset += d
	s.s.mu.Unlock()
}

// now returns the server time; callers hold mu.
func (srv *server) now() time.Time { return srv.cfg.clock().Add(srv.offset) }
