package cosmostest

import (
	"log/slog"
	"time"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Option configures a Server.
type Option func(*config)

type config struct {
	key            string
	http           bool
	address        string
	advertisedHost string
	logger         *slog.Logger
	partitions     int
	regions        []string
	multiWrite     bool
	aad            bool
	aadAudiences   []string
	certFile       string
	consistency    string
	clock          func() time.Time
	clockSkew      time.Duration
	throughput     bool
	writeCounts    bool // WithWriteCounts (writecounts.go)
	lag            time.Duration
	staleness      staleness
	explorer       bool   // WithExplorer (explorer.go)
	explorerToken  string // WithExplorer's control token
}

func defaultConfig() config {
	return config{
		key:         wire.EmulatorKey,
		address:     "127.0.0.1:0",
		partitions:  1,
		regions:     []string{"West US"},
		consistency: "Session",
		clock:       time.Now,
		clockSkew:   defaultClockSkew,
		staleness:   staleness{maxVersions: defaultMaxStalenessPrefix, maxLag: defaultMaxStalenessInterval},
	}
}

// WithKey sets the master key clients must sign with (base64). Default: the emulator's well-known key
// (cosmoskit.EmulatorKey; Server.Key returns the key in effect).
func WithKey(key string) Option { return func(c *config) { c.key = key } }

// WithHTTP serves plain HTTP instead of TLS with a certificate generated at start.
func WithHTTP() Option { return func(c *config) { c.http = true } }

// WithAddress sets the listen address of the account endpoint, e.g. ":8081".
// Default: "127.0.0.1:0" (a free port on the loopback interface).
func WithAddress(addr string) Option { return func(c *config) { c.address = addr } }

// WithAdvertisedHost sets the host[:port] written into the account metadata for the account
// endpoint (the vNext emulator's GATEWAY_PUBLIC_ENDPOINT). Default: the listener's own address.
// A host without a port keeps the listener's port.
func WithAdvertisedHost(hostport string) Option {
	return func(c *config) { c.advertisedHost = hostport }
}

// WithLogger logs every request at debug level and every server error at error level. It also
// receives what net/http itself reports about connections ("http: TLS handshake error from ..."
// when a client closes before its handshake at debug level, a handler's panic at error level, the
// rest at info). Default: no logging; net/http's reports are dropped, never written to stderr.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithPartitionCount sets the number of physical partitions (pkranges) of every new container.
// Default 1. Values below 1 mean 1.
func WithPartitionCount(n int) Option {
	return func(c *config) {
		if n < 1 {
			n = 1
		}
		c.partitions = n
	}
}

// WithRegions sets the account's regions; the first one is the write region. Default: "West US".
// The first region is served by the account endpoint; every other region gets its own listener
// sharing the one store.
func WithRegions(names ...string) Option {
	return func(c *config) {
		if len(names) > 0 {
			c.regions = append([]string(nil), names...)
		}
	}
}

// WithMultiWrite makes the account multi-write: every region is writable and listed in
// writableLocations, and the account reports enableMultipleWriteLocations true.
func WithMultiWrite() Option { return func(c *config) { c.multiWrite = true } }

// WithAADTokens accepts Microsoft Entra ID (AAD) bearer tokens (Authorization:
// type=aad&ver=1.0&sig=<jwt>) as the emulator does with AAD authentication on. A token must be a
// JWT (base64url header naming its alg, base64url JSON claims, a signature part) and within its
// exp and nbf (when present) on the server clock, give or take 5 minutes; anything else is 401.
// The signature is not verified and any audience is accepted (see WithAADAudience). Default: AAD
// tokens are refused with 401 naming this option.
func WithAADTokens() Option { return func(c *config) { c.aad = true } }

// WithAADAudience accepts AAD tokens as WithAADTokens does, and only those whose aud claim names
// one of audiences, such as the account scope "https://localhost:8081" or
// "https://cosmos.azure.com". Audiences are compared without a trailing slash, ignoring case.
// Default: any audience.
func WithAADAudience(audiences ...string) Option {
	return func(c *config) {
		c.aad = true
		c.aadAudiences = append(c.aadAudiences, audiences...)
	}
}

// WithCertificateFile writes the server's generated TLS certificate, PEM-encoded, to path when the
// server starts, so that another process can trust it. Trust it with SSL_CERT_FILE=path for Go
// programs, or in a system trust store, as users trust the emulator's certificate from /_explorer/emulator.pem,
// which the server also serves. Start fails with WithHTTP. Default: no file.
func WithCertificateFile(path string) Option { return func(c *config) { c.certFile = path } }

// consistencyLevels are the account default consistency levels WithDefaultConsistency accepts.
var consistencyLevels = []string{"Strong", "BoundedStaleness", "Session", "ConsistentPrefix", "Eventual"}

// WithDefaultConsistency sets the account's default consistency level, reported by GET /
// (userConsistencyPolicy). It is one of "Strong", "BoundedStaleness", "Session", "ConsistentPrefix"
// or "Eventual" (any case; Start fails on anything else, and on Strong WithMultiWrite, which the
// service refuses). It is the level of every read without an x-ms-consistency-level header (a
// request may only ask for a weaker one) and decides what a read in a region other than the write
// region sees when replication lags (WithReplicationLag; consistency.go): Strong reads are never
// stale, Bounded Staleness reads at most WithBoundedStaleness behind, Session reads honour the
// request's session token, Consistent Prefix and Eventual read the region's copy as it is. Strong
// and Bounded Staleness reads cost twice the request units. Default: "Session", the service's
// default for new accounts.
func WithDefaultConsistency(level string) Option { return func(c *config) { c.consistency = level } }

// WithClock sets the server's time source for _ts, TTL expiry and If-Modified-Since.
// Default: time.Now. See also (*Server).Advance.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.clock = now
		}
	}
}

// WithReplicationLag sets how long a write takes to reach every region other than the one it was
// made in (replication.go). Until then a read there that its consistency level lets be stale sees
// the older version. Time is the server clock (WithClock, Advance), so tests drive it without
// sleeping. (*Server).SetReplicationLag changes it per receiving region at run time and
// ReplicationLag reads it back. Default 0: every region sees every write at once, and no region
// holds a copy of its own.
func WithReplicationLag(d time.Duration) Option { return func(c *config) { c.lag = max(d, 0) } }

// The service's minimum Bounded Staleness bounds for accounts with several regions (cosmostest
// replicates only between regions): 100,000 versions or 300 seconds.
const (
	defaultMaxStalenessPrefix   = 100_000
	defaultMaxStalenessInterval = 300 * time.Second
)

// WithBoundedStaleness sets the Bounded Staleness bounds (maxStalenessPrefix, maxIntervalInSeconds
// in the account metadata). A Bounded Staleness read in a region that lags sees at most maxVersions
// writes of a physical partition missing and none older than maxLag. Unlike the service, values
// below its minimums (and sub-second lags) are accepted, so tests can reach them; a value ≤ 0 means
// its default. Default: 100,000 versions, 300 s (the service's minimums for multi-region accounts).
func WithBoundedStaleness(maxVersions int64, maxLag time.Duration) Option {
	return func(c *config) {
		c.staleness = staleness{maxVersions: defaultMaxStalenessPrefix, maxLag: defaultMaxStalenessInterval}
		if maxVersions >= 1 {
			c.staleness.maxVersions = maxVersions
		}
		if maxLag > 0 {
			c.staleness.maxLag = maxLag
		}
	}
}

// WithThroughputLimits enforces provisioned RU/s per physical partition like the service. A
// partition that has spent its share of the offer for the current second of the server clock
// answers 429 with sub-status 3200 and x-ms-retry-after-ms (see throughput.go). Default: off, every
// request is admitted whatever the offers say.
func WithThroughputLimits() Option { return func(c *config) { c.throughput = true } }

// WithClockSkew sets how far a master-key request's date may be from the machine's wall clock.
// The date is the one its signature covers: x-ms-date, else Date, never an unsigned one
// (wire.Dates). Outside the window the request is refused with 403 as the service refuses
// replayed requests ("The authorization token is not valid at the current time"), and a request
// with no date is 401. The wall clock, not the server clock of WithClock and Advance, is what
// dates are compared with, so tests that move the server clock need nothing. A negative d turns
// both checks off (any date, or none, is accepted). Default 15 minutes, the service's window.
func WithClockSkew(d time.Duration) Option { return func(c *config) { c.clockSkew = d } }
