package cosmoskit

import (
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// EmulatorEndpoint is the Azure Cosmos DB emulator's default endpoint.
const EmulatorEndpoint = "https://localhost:8081/"

// EmulatorKey is the well-known account key of the Azure Cosmos DB emulator (and of cosmostest by
// default). This is its one public name (the value lives in internal/wire, which cosmostest uses).
// It is public; New refuses it for any endpoint that is not loopback.
const EmulatorKey = wire.EmulatorKey

// isLoopbackEndpoint reports whether endpoint is a URL whose host is a loopback address: "localhost",
// an address in 127.0.0.0/8, or ::1. Only such endpoints get cosmoskit's emulator conveniences (relaxed
// TLS verification, the well-known emulator key). A malformed endpoint is not loopback.
func isLoopbackEndpoint(endpoint string) bool {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

// isLoopbackHost reports whether host (no port, IPv6 without brackets) is loopback.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.EqualFold(host, "localhost.") {
		return true
	}
	if i := strings.IndexByte(host, '%'); i >= 0 { // zone, e.g. ::1%lo
		host = host[:i]
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	return addr.Unmap().IsLoopback()
}

// endpointInfo is a validated account endpoint.
type endpointInfo struct {
	// url is what the SDK gets: scheme and host lower-cased, path "/".
	url string
	// key identifies the account in the registry: scheme://host:port/ with the default port explicit.
	key string
	// host is the host name without port.
	host string
	// hostport is the URL's host[:port] as the SDK sends it.
	hostport string
	// loopback reports whether host is loopback.
	loopback bool
}

// parseEndpoint validates and normalizes an account endpoint. Problems are returned as text for a
// refusal; the endpoint itself may appear in messages (it is not a secret).
func parseEndpoint(raw string) (endpointInfo, string) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return endpointInfo{}, "is required: set it to your account's URI, e.g. https://myaccount.documents.azure.com:443/ (or cosmoskit.EmulatorEndpoint for the local emulator)"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return endpointInfo{}, "must be an absolute URL such as https://myaccount.documents.azure.com:443/"
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "https" && scheme != "http" {
		return endpointInfo{}, "must use https (or http for a local emulator), not " + scheme
	}
	if u.User != nil {
		return endpointInfo{}, "must not contain user information; pass credentials in Key, ConnectionString or Credential"
	}
	if u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		return endpointInfo{}, "must be the account URI only, with no path, query or fragment"
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return endpointInfo{}, "has no host name"
	}
	port := u.Port()
	loopback := isLoopbackHost(host)
	if scheme == "http" && !loopback {
		return endpointInfo{}, "uses plain http for a non-loopback host; Cosmos DB accounts are https only (http is accepted for loopback emulators)"
	}
	hostport := host
	if strings.Contains(host, ":") {
		hostport = "[" + host + "]"
	}
	if port != "" {
		hostport = net.JoinHostPort(host, port)
	}
	keyPort := port
	if keyPort == "" {
		keyPort = "443"
		if scheme == "http" {
			keyPort = "80"
		}
	}
	return endpointInfo{
		url:      scheme + "://" + hostport + "/",
		key:      scheme + "://" + net.JoinHostPort(host, keyPort) + "/",
		host:     host,
		hostport: hostport,
		loopback: loopback,
	}, ""
}
