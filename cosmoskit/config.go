package cosmoskit

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// Config says which Cosmos DB account New connects to, how it authenticates, and how the client is
// built. The zero value of every field means its documented default; only the endpoint is required.
//
// Credentials: set at most one of Key, ConnectionString and Credential. With none of them, a loopback
// endpoint (an emulator or cosmostest) uses EmulatorKey and any other endpoint uses
// azidentity.NewDefaultAzureCredential.
//
// Printing a Config (String, %v, %+v, %#v, or slog via LogValue) never shows the key or the
// connection string's key; only whether one is set.
//
// Environment: New reads no environment variables. LoadConfig(base) (or ConfigFromEnv) fills the
// fields base leaves empty from COSMOS_ENDPOINT, COSMOS_KEY, COSMOS_CONNECTION_STRING,
// COSMOS_DATABASE, COSMOS_PREFERRED_REGIONS, COSMOS_EXCLUDED_REGIONS and COSMOS_APPLICATION_NAME:
// a value set in code always wins over the environment, and if code sets any credential (Key,
// ConnectionString or Credential) the environment's key and connection string are ignored. See
// LoadConfig for the details.
type Config struct {
	// Endpoint is the account URI, e.g. "https://myaccount.documents.azure.com:443/". Required unless
	// ConnectionString carries it; if both are set they must name the same account. Plain http is
	// accepted for loopback hosts only.
	Endpoint string

	// Key is the account's primary or secondary key (base64). The well-known EmulatorKey is refused for
	// any endpoint that is not loopback. Default: empty (see the credential rules above).
	Key string

	// ConnectionString is "AccountEndpoint=...;AccountKey=...;", as shown in the portal or returned by
	// cosmostest.Server.ConnectionString. Its key follows the same rules as Key. Default: empty.
	ConnectionString string

	// Credential authenticates with Microsoft Entra ID (e.g. a managed identity); the identity needs a
	// Cosmos DB data-plane role. Data-plane roles cannot create databases or containers, so provision
	// them out of band when using one (EnsureContainer still succeeds if they already exist).
	// Default: nil (see the credential rules above). Clients share one azcosmos client only when their
	// Credential values are equal (==).
	Credential azcore.TokenCredential

	// Database is the application's database id. New does not use it; it is here so that one
	// environment (COSMOS_DATABASE) configures the whole data layer. Default: empty.
	Database string

	// PreferredRegions lists the account's regions in the order reads (and, on multi-write accounts,
	// writes) should use them, nearest first, e.g. {"West US 3", "East US 2"}. Names are compared as the
	// SDK does: whitespace removed, case ignored. Entries must be non-empty and distinct. Default: none:
	// the retry policy then uses the account's regions in the account's order (and with Retry.Disable
	// the SDK reads from the first region only, with no failover), so production services should list
	// their regions, nearest first.
	PreferredRegions []string

	// ExcludedRegions lists regions requests should avoid (same syntax rules as PreferredRegions): the
	// retry policy routes around them, and Client.SetExcludedRegions changes them at runtime. If every
	// region is excluded, requests go to the write region. Default: none.
	ExcludedRegions []string

	// ApplicationName is added to the User-Agent of every request (azcore's ApplicationID): at most 24
	// characters, no whitespace. Default: "cosmoskit".
	ApplicationName string

	// ServerCertificate, if set, is the only certificate trusted for the endpoint's TLS: the server's
	// leaf certificate must equal it, or chain to it. Use it for an emulator or cosmostest with its own
	// certificate on any host. Default: nil, meaning system roots, except that loopback endpoints skip
	// verification (the emulator's self-signed certificate).
	ServerCertificate *x509.Certificate

	// ServerCertificatePEM is ServerCertificate in PEM form (e.g. the emulator's
	// /_explorer/emulator.pem). Set at most one of the two. Default: nil.
	ServerCertificatePEM []byte

	// DisableEndpointDiscovery sends every request to Endpoint's host and port, ignoring the regional
	// endpoints the account metadata advertises (Java's endpointDiscoveryEnabled(false)). Use it for an
	// emulator behind port mapping or a container network, whose metadata names an address the client
	// cannot reach. It turns off regional routing and failover, so New refuses it for non-loopback
	// endpoints unless a ServerCertificate is set. Default: false.
	DisableEndpointDiscovery bool

	// ClientOptions is the base for the azcosmos client options, for callers who already have one. New
	// copies it and never modifies it. If its Transport is set, cosmoskit's TLS handling is not applied
	// and ServerCertificate must be unset. Default: nil (azcosmos defaults).
	ClientOptions *azcosmos.ClientOptions

	// Diagnostics configures the diagnostics policies New installs on every client: OpenTelemetry
	// spans and metrics, slow/expensive/failed call logs, and request-unit Meters
	// (diagnostics.WithMeter). The zero value records no spans or metrics, logs failed, slow and
	// expensive calls to Logger (nothing on the success path), and feeds Meters, for a few
	// allocations per call. Diagnostics.Disable leaves the policies out entirely (no Meters
	// either). If Diagnostics.TracerProvider is set and ClientOptions has no TracingProvider, the
	// SDK's HTTP spans join the same traces. Client.Diagnostics returns the policy.
	Diagnostics diagnostics.Options

	// Retry configures the resilience policy New installs on every client (package retry): 429
	// retries following x-ms-retry-after-ms (9 retries within 30 s by default, with azcore's own 429
	// retry turned off so there is one layer), circuit breakers per region and partition key range,
	// routing by PreferredRegions minus ExcludedRegions (the regions are this Config's: New hands
	// them to the SDK and the policy), and the hedging options of retry.Hedge. The
	// zero value is the documented default. Breaker state changes go to the diagnostics policy unless
	// Retry.Reporter is set. Retry.Disable leaves the policy out: the SDK's own retries (azcore: 3
	// retries, including 429s) apply unchanged, and ExcludedRegions is only recorded. Client.Retry
	// returns the policy.
	Retry retry.Options

	// Connections caps the connections per host of the transport New builds (not used when
	// ClientOptions has a Transport): 50 by default, as the .NET SDK's gateway mode; requests
	// beyond the cap wait for a connection within their context. Client.Connections reads it back.
	Connections ConnectionOptions

	// Session configures the session container New installs on every client
	// (consistency.Policy): it captures every response's session token per container and sends
	// the container's token with reads, so one client reads its own writes in every region, as
	// the .NET and Java clients do; and it applies consistency.WithSessionToken, WithLevel and
	// Capture. The zero value keeps the tokens of up to 1000 containers. Session.Disable leaves
	// the session container out: requests carry a session token or a consistency level only when
	// the caller sets them in the SDK's options (azcosmos has no session container), and the
	// context options of package consistency do nothing. Client.Session returns it.
	Session consistency.Options

	// PerCallPolicies are azcore policies run once per operation, after the diagnostics policy and
	// ClientOptions.PerCallPolicies. Default: none.
	PerCallPolicies []policy.Policy

	// PerRetryPolicies are azcore policies run once per HTTP attempt. The per-retry order New builds
	// is: the retry policy (its 429 and region loop calls the rest again for each attempt), the
	// diagnostics attempt policy (so it counts every attempt), ClientOptions.PerRetryPolicies, these,
	// and last the host pinning of DisableEndpointDiscovery. Default: none.
	PerRetryPolicies []policy.Policy

	// Logger receives one line when a client is created (endpoint, credential kind, regions; never a
	// key), warnings about risky settings, and, unless Diagnostics.Logger is set, the diagnostics
	// records: every failed operation once (status, sub-status, activity id, RU; 404/409/412 at Debug)
	// and operations slower or more expensive than the diagnostics thresholds, with the SDK's
	// diagnostics string. Default: slog.Default(). Use slog.New(slog.DiscardHandler) to silence it.
	Logger *slog.Logger

	// origins maps field names to the environment variable LoadConfig took them from.
	origins map[string]string
}

// Validate reports the first problem New would find in c, as a *cosmoserr.ValidationError
// (matching cosmoserr.ErrInvalidConfig), without building a client: for a startup or CI configuration check.
func (c Config) Validate() error {
	_, err := resolve(c)
	return err
}

// field returns the field name for a refusal of c ("Config.<name>"), with the environment
// variable it came from.
func (c *Config) field(name string) string {
	base := name
	if i := strings.IndexByte(base, '['); i >= 0 {
		base = base[:i]
	}
	if v, ok := c.origins[base]; ok {
		return "Config." + name + " (from " + v + ")"
	}
	return "Config." + name
}

const redacted = "REDACTED"

// String returns a description of c for logs, with secrets redacted.
func (c Config) String() string {
	var b strings.Builder
	b.WriteString("cosmoskit.Config{")
	first := true
	add := func(k, v string) {
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(k)
		b.WriteString(": ")
		b.WriteString(v)
	}
	if c.Endpoint != "" {
		add("Endpoint", strconv.Quote(c.Endpoint))
	}
	if c.Key != "" {
		add("Key", redacted)
	}
	if c.ConnectionString != "" {
		add("ConnectionString", strconv.Quote(redactConnectionString(c.ConnectionString)))
	}
	if c.Credential != nil {
		add("Credential", reflect.TypeOf(c.Credential).String())
	}
	if c.Database != "" {
		add("Database", strconv.Quote(c.Database))
	}
	if c.PreferredRegions != nil {
		add("PreferredRegions", fmt.Sprintf("%q", c.PreferredRegions))
	}
	if c.ExcludedRegions != nil {
		add("ExcludedRegions", fmt.Sprintf("%q", c.ExcludedRegions))
	}
	if c.ApplicationName != "" {
		add("ApplicationName", strconv.Quote(c.ApplicationName))
	}
	if c.ServerCertificate != nil {
		add("ServerCertificate", certFingerprint(c.ServerCertificate.Raw))
	}
	if c.ServerCertificatePEM != nil {
		add("ServerCertificatePEM", fmt.Sprintf("%d bytes", len(c.ServerCertificatePEM)))
	}
	if c.DisableEndpointDiscovery {
		add("DisableEndpointDiscovery", "true")
	}
	if c.ClientOptions != nil {
		add("ClientOptions", "set")
	}
	if c.Diagnostics.Disable {
		add("Diagnostics.Disable", "true")
	}
	if c.Retry.Disable {
		add("Retry.Disable", "true")
	}
	if c.Session != (consistency.Options{}) {
		add("Session", fmt.Sprintf("%+v", c.Session))
	}
	if len(c.PerCallPolicies) > 0 {
		add("PerCallPolicies", strconv.Itoa(len(c.PerCallPolicies)))
	}
	if len(c.PerRetryPolicies) > 0 {
		add("PerRetryPolicies", strconv.Itoa(len(c.PerRetryPolicies)))
	}
	if c.Logger != nil {
		add("Logger", "set")
	}
	b.WriteString("}")
	return b.String()
}

// GoString implements fmt.GoStringer (%#v) with secrets redacted.
func (c Config) GoString() string { return c.String() }

// Format implements fmt.Formatter so that every verb (%v, %+v, %s, %q, %#v, ...) prints the redacted
// form returned by String.
func (c Config) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		_, _ = io.WriteString(f, strconv.Quote(c.String()))
		return
	}
	_, _ = io.WriteString(f, c.String())
}

// LogValue implements slog.LogValuer: the endpoint, regions and which credential is set, never a key.
func (c Config) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("endpoint", c.endpointForLog())}
	attrs = append(attrs, slog.String("credential", c.credentialKind()))
	if c.Database != "" {
		attrs = append(attrs, slog.String("database", c.Database))
	}
	if len(c.PreferredRegions) > 0 {
		attrs = append(attrs, slog.Any("preferredRegions", c.PreferredRegions))
	}
	if len(c.ExcludedRegions) > 0 {
		attrs = append(attrs, slog.Any("excludedRegions", c.ExcludedRegions))
	}
	if c.ApplicationName != "" {
		attrs = append(attrs, slog.String("applicationName", c.ApplicationName))
	}
	return slog.GroupValue(attrs...)
}

// endpointForLog is the endpoint, or the one inside the connection string.
func (c Config) endpointForLog() string {
	if c.Endpoint != "" {
		return c.Endpoint
	}
	if c.ConnectionString != "" {
		ep, _, _ := parseConnectionString(c.ConnectionString)
		return ep
	}
	return ""
}

// credentialKind names the kind of credential set, for logs.
func (c Config) credentialKind() string {
	switch {
	case c.Key != "":
		return "key"
	case c.ConnectionString != "":
		return "connection string"
	case c.Credential != nil:
		return "token credential (" + reflect.TypeOf(c.Credential).String() + ")"
	default:
		return "none"
	}
}

// redactConnectionString keeps only the AccountEndpoint of a connection string.
func redactConnectionString(cs string) string {
	ep, _, ok := parseConnectionString(cs)
	if !ok || ep == "" {
		return redacted
	}
	return "AccountEndpoint=" + ep + ";AccountKey=" + redacted + ";"
}

// parseConnectionString extracts AccountEndpoint and AccountKey from "k=v;k=v" text. ok is false if
// the text is not of that form. Neither the input nor the key ever goes into an error.
func parseConnectionString(cs string) (endpoint, key string, ok bool) {
	cs = strings.TrimSpace(cs)
	if cs == "" {
		return "", "", false
	}
	for _, part := range strings.Split(cs, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, found := strings.Cut(part, "=")
		if !found {
			return "", "", false
		}
		switch {
		case strings.EqualFold(strings.TrimSpace(k), "AccountEndpoint"):
			endpoint = strings.TrimSpace(v)
		case strings.EqualFold(strings.TrimSpace(k), "AccountKey"):
			key = strings.TrimSpace(v)
		}
	}
	return endpoint, key, true
}

// certFingerprint is "sha256:<hex>" of a certificate's DER bytes.
func certFingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return "sha256:" + hex.EncodeToString(sum[:8])
}
