package cosmoskit_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azlog "github.com/Azure/azure-sdk-for-go/sdk/azcore/log"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// wrongKey is a valid base64 key that the server does not accept.
const wrongKey = "d3Jvbmcta2V5LXRoYXQtbXVzdC1uZXZlci1hcHBlYXItaW4tYW55LWxvZy1vci1lcnJvci0wMTIzNDU2Nzg5"

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestKeyNeverAppearsInLogsOrErrors(t *testing.T) {
	s := cosmostest.NewServer(t)
	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))

	// Capture the SDK's own logging too, with every event class.
	azlog.SetListener(func(_ azlog.Event, msg string) { _, _ = logs.Write([]byte(msg + "\n")) })
	t.Cleanup(func() { azlog.SetListener(nil) })

	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: wrongKey, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.EnsureDatabase(context.Background(), "db", cosmoskit.DatabaseOptions{})
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusUnauthorized {
		t.Fatalf("EnsureDatabase with a wrong key = %v, want a 401 *azcore.ResponseError", err)
	}
	var kerr *cosmoserr.Error
	if !errors.Is(err, cosmoserr.ErrUnauthorized) || !errors.As(err, &kerr) || kerr.StatusCode != http.StatusUnauthorized {
		t.Fatalf("EnsureDatabase with a wrong key = %v, want a *cosmoserr.Error matching ErrUnauthorized", err)
	}
	if kerr.Diagnostics.String() != "" {
		out := kerr.Diagnostics.String()
		if strings.Contains(out, wrongKey) || strings.Contains(out, s.Key()) {
			t.Fatalf("the error's diagnostics contain a key: %s", out)
		}
	}

	// A connection string with the wrong key, printed every way a caller might.
	csCfg := cosmoskit.Config{ConnectionString: "AccountEndpoint=" + s.Endpoint() + ";AccountKey=" + wrongKey + ";", Logger: logger}
	logger.Info("config", "cfg", csCfg)

	out := err.Error() + "\n" + logs.String()
	for _, secret := range []string{wrongKey, s.Key(), wrongKey[:16], s.Key()[:16]} {
		if strings.Contains(out, secret) {
			t.Fatalf("a key appears in the error or logs:\n%s", out)
		}
	}
	if !strings.Contains(logs.String(), s.Endpoint()) {
		t.Errorf("the startup log does not name the endpoint %s:\n%s", s.Endpoint(), logs.String())
	}
}

// serverCertPEM fetches the TLS certificate a cosmostest server presents.
func serverCertPEM(t *testing.T, endpoint string) []byte {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", u.Host, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // fetching the cert to pin it
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: conn.ConnectionState().PeerCertificates[0].Raw})
}

func TestServerCertificateIsTrustedExactly(t *testing.T) {
	ctx := context.Background()
	s := cosmostest.NewServer(t)
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), ServerCertificatePEM: serverCertPEM(t, s.Endpoint()), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.EnsureDatabase(ctx, "db", cosmoskit.DatabaseOptions{}); err != nil {
		t.Fatalf("pinned to the server's certificate: %v", err)
	}

	// Pinning another server's certificate must fail the TLS handshake, loopback or not.
	other := cosmostest.NewServer(t)
	otherPEM := serverCertPEM(t, other.Endpoint())
	if bytes.Equal(otherPEM, serverCertPEM(t, s.Endpoint())) {
		t.Fatal("cosmostest servers share a certificate; this test needs distinct ones")
	}
	c2, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: wrongKey, ServerCertificatePEM: otherPEM, Logger: quiet,
		ClientOptions: &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	_, err = c2.EnsureDatabase(ctx, "db2", cosmoskit.DatabaseOptions{})
	if err == nil || !strings.Contains(err.Error(), "ServerCertificate") {
		t.Fatalf("a client pinned to another certificate: %v, want a certificate error", err)
	}
}

// staticToken is a TokenCredential returning a fixed JWT-shaped token.
type staticToken struct{}

func (staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ0ZXN0In0.sig", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

func TestTokenCredential(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithAADTokens())
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Credential: staticToken{}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.EnsureContainer(context.Background(), "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}}); err != nil {
		t.Fatal(err)
	}
}
