package cosmoskit

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"unicode"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// authKind is how a resolved config authenticates.
type authKind int

const (
	authKey     authKind = iota // account key (explicit, connection string, or the emulator default)
	authToken                   // caller's azcore.TokenCredential
	authDefault                 // azidentity.NewDefaultAzureCredential
)

// String names the kind for logs.
func (k authKind) String() string {
	switch k {
	case authKey:
		return "key"
	case authToken:
		return "token credential"
	default:
		return "default azure credential"
	}
}

// resolved is a validated Config, ready to build a client from.
type resolved struct {
	ep         endpointInfo
	auth       authKind
	authSource string // "Key", "ConnectionString", "Credential", "emulator default", "default azure credential"
	key        string // authKey only; never logged or put in an error
	cred       azcore.TokenCredential
	identity   string // registry identity: never the raw key
	preferred  []string
	excluded   []string
	appName    string
	cert       *x509.Certificate
	base       *azcosmos.ClientOptions
	cfg        *Config
	logger     *slog.Logger
}

// processSalt keys the HMAC that turns an account key into a registry identity, so the registry holds
// nothing from which the key could be checked offline.
var processSalt = func() []byte {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("cosmoskit: crypto/rand: " + err.Error())
	}
	return b
}()

// keyIdentity is an opaque identity for an account key.
func keyIdentity(key string) string {
	m := hmac.New(sha256.New, processSalt)
	m.Write([]byte(key))
	return "key:" + hex.EncodeToString(m.Sum(nil))
}

// connectionStringForm is the problem reported for a connection string that cannot be parsed.
const connectionStringForm = "must have the form AccountEndpoint=https://...;AccountKey=...; (copy it from the portal's Keys blade)"

// resolve validates cfg. Every error is a *cosmoserr.ValidationError (Kind cosmoserr.ErrInvalidConfig) that names the field and never contains a key.
// The checks run in this order, so the first problem reported does not change: credentials and
// endpoint, regions, the packages' options, application name, TLS, connections and retry.
func resolve(cfg Config) (*resolved, error) {
	c := &cfg
	r := &resolved{cfg: c, logger: cfg.Logger}
	if r.logger == nil {
		r.logger = slog.Default()
	}
	for _, step := range []func() error{
		r.resolveEndpoint,
		r.resolveAuth,
		r.resolveRegions,
		func() error { return checkSubOptions(c) },
		r.resolveApplicationName,
		r.resolveTLS,
		r.checkTransportOptions,
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	r.identity = r.registryIdentity()
	return r, nil
}

// bad is the refusal of a Config field.
func (r *resolved) bad(field, problem string) error {
	return configError(r.cfg.field(field), problem, nil)
}

// resolveEndpoint checks that at most one credential source is set and resolves the endpoint,
// from Endpoint or the connection string (which must name the same account); a connection
// string also gives the key.
func (r *resolved) resolveEndpoint() error {
	cfg, c := r.cfg, r.cfg
	var set []string
	if cfg.Key != "" {
		set = append(set, c.field("Key"))
	}
	if cfg.ConnectionString != "" {
		set = append(set, c.field("ConnectionString"))
	}
	if cfg.Credential != nil {
		set = append(set, c.field("Credential"))
	}
	if len(set) > 1 {
		return configError(strings.Join(set, ", "), "set only one of Key, ConnectionString and Credential", nil)
	}

	endpoint := cfg.Endpoint
	if cfg.ConnectionString != "" {
		csEndpoint, csKey, ok := parseConnectionString(cfg.ConnectionString)
		if !ok || csEndpoint == "" || csKey == "" {
			return r.bad("ConnectionString", connectionStringForm)
		}
		csInfo, problem := parseEndpoint(csEndpoint)
		if problem != "" {
			return r.bad("ConnectionString", "its AccountEndpoint "+problem)
		}
		if endpoint != "" {
			info, problem := parseEndpoint(endpoint)
			if problem != "" {
				return r.bad("Endpoint", problem)
			}
			if info.key != csInfo.key {
				return configError(c.field("Endpoint")+", "+c.field("ConnectionString"),
					fmt.Sprintf("name different accounts (%s and %s); set only one of them", info.url, csInfo.url), nil)
			}
		}
		endpoint = csEndpoint
		r.key = csKey
		r.auth = authKey
		r.authSource = "ConnectionString"
	}
	info, problem := parseEndpoint(endpoint)
	if problem != "" {
		return r.bad("Endpoint", problem)
	}
	r.ep = info
	return nil
}

// resolveAuth picks the credential (Key, the connection string's key, Credential, the emulator
// key for a loopback endpoint, else the default Azure credential) and checks an account key: it
// must be base64, and the public emulator key only goes to a loopback endpoint.
func (r *resolved) resolveAuth() error {
	cfg := r.cfg
	switch {
	case cfg.Key != "":
		r.key = strings.TrimSpace(cfg.Key)
		r.auth = authKey
		r.authSource = "Key"
	case cfg.ConnectionString != "":
		// set by resolveEndpoint
	case cfg.Credential != nil:
		r.auth = authToken
		r.authSource = "Credential"
		r.cred = cfg.Credential
	case r.ep.loopback:
		r.key = EmulatorKey
		r.auth = authKey
		r.authSource = "emulator default"
	default:
		r.auth = authDefault
		r.authSource = "default azure credential"
	}
	if r.auth != authKey {
		return nil
	}
	field := r.authSource
	if field == "emulator default" {
		field = "Key"
	}
	if _, err := base64.StdEncoding.DecodeString(r.key); err != nil {
		return configError(cfg.field(field), "is not a base64 account key; copy the primary or secondary key from the portal's Keys blade", err)
	}
	if r.key == EmulatorKey && !r.ep.loopback {
		return r.bad(field, fmt.Sprintf("is the public emulator key, which is refused for the non-loopback endpoint %s; use that account's own key or a Credential (the emulator key is accepted only for localhost, 127.0.0.0/8 and ::1)", r.ep.url))
	}
	return nil
}

// resolveRegions checks PreferredRegions (or ClientOptions.PreferredRegions when it is nil) and
// ExcludedRegions.
func (r *resolved) resolveRegions() error {
	cfg := r.cfg
	preferred := cfg.PreferredRegions
	preferredField := "PreferredRegions"
	if preferred == nil && cfg.ClientOptions != nil {
		preferred = cfg.ClientOptions.PreferredRegions
		preferredField = "ClientOptions.PreferredRegions"
	}
	var err error
	if r.preferred, err = checkRegions(cfg, preferredField, preferred); err != nil {
		return err
	}
	r.excluded, err = checkRegions(cfg, "ExcludedRegions", cfg.ExcludedRegions)
	return err
}

// resolveApplicationName checks ApplicationName (it goes into the User-Agent header); unset, it
// is "cosmoskit" unless ClientOptions.Telemetry names an application.
func (r *resolved) resolveApplicationName() error {
	cfg := r.cfg
	r.appName = cfg.ApplicationName
	if r.appName != "" {
		if len(r.appName) > 24 || strings.IndexFunc(r.appName, unicode.IsSpace) >= 0 {
			return r.bad("ApplicationName", fmt.Sprintf("%q must be at most 24 characters with no whitespace (it goes into the User-Agent header)", r.appName))
		}
	} else if cfg.ClientOptions == nil || cfg.ClientOptions.Telemetry.ApplicationID == "" {
		r.appName = "cosmoskit"
	}
	return nil
}

// resolveTLS reads the pinned server certificate (ServerCertificate or ServerCertificatePEM, not
// both, and not with a transport of the caller's) and checks DisableEndpointDiscovery, which is
// for emulators: a loopback endpoint or a pinned certificate.
func (r *resolved) resolveTLS() error {
	cfg, c := r.cfg, r.cfg
	if cfg.ServerCertificate != nil && cfg.ServerCertificatePEM != nil {
		return configError(c.field("ServerCertificate")+", "+c.field("ServerCertificatePEM"), "set only one of them", nil)
	}
	r.cert = cfg.ServerCertificate
	if cfg.ServerCertificatePEM != nil {
		block, _ := pem.Decode(cfg.ServerCertificatePEM)
		if block == nil || block.Type != "CERTIFICATE" {
			return r.bad("ServerCertificatePEM", "holds no PEM \"CERTIFICATE\" block")
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return configError(c.field("ServerCertificatePEM"), "is not a valid X.509 certificate", err)
		}
		r.cert = cert
	}
	if r.cert != nil && cfg.ClientOptions != nil && cfg.ClientOptions.Transport != nil {
		return r.bad("ServerCertificate", "cannot be combined with ClientOptions.Transport: configure TLS in your transport, or drop the transport")
	}
	r.base = cfg.ClientOptions
	if cfg.DisableEndpointDiscovery && !r.ep.loopback && r.cert == nil {
		return r.bad("DisableEndpointDiscovery", fmt.Sprintf("is for emulators: %s is not loopback and no ServerCertificate is set; a real account needs its regional endpoints", r.ep.url))
	}
	return nil
}

// checkTransportOptions checks Connections and, unless disabled, Retry.
func (r *resolved) checkTransportOptions() error {
	cfg := r.cfg
	if cfg.Connections.MaxPerHost < 0 {
		return r.bad("Connections.MaxPerHost", "is negative; 0 means the default (50), Connections.Disable removes the cap")
	}
	if !cfg.Retry.Disable {
		if err := cfg.Retry.Validate(); err != nil {
			return subOptionError("Retry", err)
		}
	}
	return nil
}

// registryIdentity is the identity half of the registry key: an HMAC of the account key (never
// the key), "token" for a comparable TokenCredential (compared by value in the key),
// "token:unshared" for one that cannot be compared, or the default credential.
func (r *resolved) registryIdentity() string {
	switch {
	case r.auth == authKey:
		return keyIdentity(r.key)
	case r.auth == authToken && !reflect.TypeOf(r.cred).Comparable():
		return "token:unshared"
	case r.auth == authToken:
		return "token"
	}
	return "default-azure-credential"
}

// checkRegions validates a region list: entries non-empty and distinct after the SDK's canonical form
// (whitespace removed, lower case). It returns the trimmed entries, in order.
func checkRegions(c *Config, field string, regions []string) ([]string, error) {
	if len(regions) == 0 {
		return nil, nil
	}
	out := make([]string, len(regions))
	seen := make(map[string]int, len(regions))
	for i, name := range regions {
		canon := canonicalRegion(name)
		if canon == "" {
			return nil, configError(c.field(fmt.Sprintf("%s[%d]", field, i)), "is empty; list region names such as \"West US 3\", or leave the list empty", nil)
		}
		if j, dup := seen[canon]; dup {
			return nil, configError(c.field(fmt.Sprintf("%s[%d]", field, i)),
				fmt.Sprintf("%q duplicates %s[%d] %q (region names compare ignoring case and whitespace)", name, field, j, regions[j]), nil)
		}
		seen[canon] = i
		out[i] = strings.TrimSpace(name)
	}
	return out, nil
}

// canonicalRegion is the SDK's canonical region name (wire.CanonicalRegion).
func canonicalRegion(name string) string { return wire.CanonicalRegion(name) }

// canonicalRegions maps canonicalRegion over names.
func canonicalRegions(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = canonicalRegion(n)
	}
	return out
}
