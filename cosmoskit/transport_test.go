package cosmoskit

import (
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

func TestLoopbackTransportRelaxesOnlyLoopback(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	tr := newLoopbackTransport()
	defer tr.CloseIdleConnections()

	// A self-signed loopback server is accepted.
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	resp, err := tr.Do(req)
	if err != nil {
		t.Fatalf("loopback request: %v", err)
	}
	resp.Body.Close()

	// The strict side (used for every non-loopback host) verifies certificates.
	resp, err = tr.strict.Get(srv.URL)
	var unknown x509.UnknownAuthorityError
	if err == nil {
		resp.Body.Close()
		t.Fatal("strict client accepted a self-signed certificate")
	}
	if !errors.As(err, &unknown) {
		t.Fatalf("strict client error = %v, want an x509 unknown authority error", err)
	}
}

func TestLoopbackOnlyDialControl(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8081":        true,
		"127.3.4.5:443":         true,
		"[::1]:8081":            true,
		"10.0.0.1:443":          false,
		"20.50.2.1:443":         false,
		"[2001:db8::1]:443":     false,
		"[::ffff:10.0.0.1]:443": false,
	} {
		err := loopbackOnly("tcp", addr, nil)
		if (err == nil) != ok {
			t.Errorf("loopbackOnly(%s) = %v, want allowed=%v", addr, err, ok)
		}
	}
}

func TestTransportChoice(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"remote account: an http.Client like the SDK's default", Config{Endpoint: "https://a.documents.azure.com/", Key: testKey}, "*http.Client"},
		{"loopback: loopback transport", Config{Endpoint: "https://localhost:8081/"}, "*cosmoskit.loopbackTransport"},
		{"certificate: pinned client", Config{Endpoint: "https://cosmos.internal:8081/", Key: testKey, ServerCertificate: srv.Certificate()}, "*http.Client"},
	}
	for _, tc := range cases {
		r, err := resolve(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := "<nil>"
		if o, _, _ := r.clientOptions(); o.Transport != nil {
			got = typeName(unwrapTransport(o.Transport))
		}
		if got != tc.want {
			t.Errorf("%s: transport %s, want %s", tc.name, got, tc.want)
		}
	}
}

// unwrapTransport returns the transport the retry policy's hedging transport wraps.
func unwrapTransport(t policy.Transporter) policy.Transporter {
	if u, ok := t.(interface{ Unwrap() policy.Transporter }); ok {
		return u.Unwrap()
	}
	return t
}

func typeName(v any) string {
	switch v.(type) {
	case *loopbackTransport:
		return "*cosmoskit.loopbackTransport"
	case *http.Client:
		return "*http.Client"
	}
	return "other"
}

func TestPinnedClientTrustsExactlyTheCertificate(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer other.Close()

	good := newPinnedClient(srv.Certificate())
	defer good.CloseIdleConnections()
	resp, err := good.Get(srv.URL)
	if err != nil {
		t.Fatalf("pinned to the server's certificate: %v", err)
	}
	resp.Body.Close()

	// httptest servers share one certificate, so pin a different one: the server must be refused.
	bad := newPinnedClient(otherCert(t))
	defer bad.CloseIdleConnections()
	resp, err = bad.Get(srv.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatal("pinned client accepted a server with another certificate")
	}
	if !strings.Contains(err.Error(), "ServerCertificate") {
		t.Errorf("error %q does not say the certificate is not the configured one", err)
	}
}
