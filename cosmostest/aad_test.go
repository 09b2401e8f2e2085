package cosmostest_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// jwtToken is a TokenCredential returning a fixed token.
type jwtToken string

func (j jwtToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: string(j), ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// makeJWT builds an unsigned token from a header and claims, as the emulator's test suites do.
func makeJWT(header, claims string) jwtToken {
	enc := base64.RawURLEncoding.EncodeToString
	return jwtToken(enc([]byte(header)) + "." + enc([]byte(claims)) + "." + enc([]byte(wire.EmulatorKey)))
}

// TestAADTokenChecks: with WithAADTokens the server accepts what the emulator accepts (a JWT within
// its lifetime, any audience, signature not verified) and answers 401 for the rest, without
// echoing the token; WithAADAudience also requires the audience.
func TestAADTokenChecks(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	at := func(d time.Duration) string { return strconv.FormatInt(now+int64(d/time.Second), 10) }
	const hdr = `{"typ":"JWT","alg":"RS256","kid":"CosmosEmulatorPrimaryMaster"}`
	emulator := makeJWT(hdr, `{"aud":"https://localhost.localhost","scp":"user_impersonation","nbf":`+at(0)+`,"exp":`+at(2*time.Hour)+`}`)
	for _, tc := range []struct {
		name  string
		opts  []cosmostest.Option
		token jwtToken
		want  string // "" accepted, else a word of the 401 message
	}{
		{"emulator token", []cosmostest.Option{cosmostest.WithAADTokens()}, emulator, ""},
		{"no lifetime claims", []cosmostest.Option{cosmostest.WithAADTokens()}, makeJWT(`{"alg":"none"}`, `{"sub":"x"}`), ""},
		{"not a JWT", []cosmostest.Option{cosmostest.WithAADTokens()}, "opaque-token", "not a JWT"},
		{"header not JSON", []cosmostest.Option{cosmostest.WithAADTokens()}, "bm90IGpzb24.e30.c2ln", "header"},
		{"no alg", []cosmostest.Option{cosmostest.WithAADTokens()}, makeJWT(`{"typ":"JWT"}`, `{}`), "alg"},
		{"claims not an object", []cosmostest.Option{cosmostest.WithAADTokens()}, makeJWT(hdr, `[1]`), "claims"},
		{"expired", []cosmostest.Option{cosmostest.WithAADTokens()}, makeJWT(hdr, `{"exp":`+at(-time.Hour)+`}`), "expired"},
		{"exp not a number", []cosmostest.Option{cosmostest.WithAADTokens()}, makeJWT(hdr, `{"exp":"soon"}`), "exp"},
		{"not yet valid", []cosmostest.Option{cosmostest.WithAADTokens()}, makeJWT(hdr, `{"nbf":`+at(time.Hour)+`}`), "not valid yet"},
		{"audience required, other", []cosmostest.Option{cosmostest.WithAADAudience("https://cosmos.azure.com")}, emulator, "audience"},
		{"audience required, match", []cosmostest.Option{cosmostest.WithAADAudience("https://cosmos.azure.com", "https://localhost.localhost/")}, emulator, ""},
		{"audience in an array", []cosmostest.Option{cosmostest.WithAADAudience("https://cosmos.azure.com")},
			makeJWT(hdr, `{"aud":["https://other","https://COSMOS.azure.com/"]}`), ""},
		{"audience missing", []cosmostest.Option{cosmostest.WithAADAudience("https://cosmos.azure.com")}, makeJWT(hdr, `{}`), "audience"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := cosmostest.NewServer(t, tc.opts...)
			c, err := azcosmos.NewClient(s.Endpoint(), tc.token, s.ClientOptions())
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "db"}, nil)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if st, _ := status(t, err); st != http.StatusUnauthorized || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want 401 mentioning %q", err, tc.want)
			}
			if strings.Contains(err.Error(), string(tc.token)) {
				t.Fatal("the 401 echoes the token")
			}
		})
	}
}

// TestAADTokenExpiresOnTheServerClock: a token's lifetime is judged by the server clock, so
// Advance past exp (and the 5 minutes of skew) makes it expire.
func TestAADTokenExpiresOnTheServerClock(t *testing.T) {
	t.Parallel()
	s := cosmostest.NewServer(t, cosmostest.WithAADTokens())
	exp := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	c, err := azcosmos.NewClient(s.Endpoint(), makeJWT(`{"alg":"RS256"}`, `{"exp":`+exp+`}`), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	s.Advance(time.Hour + 6*time.Minute)
	_, err = c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "b"}, nil)
	if st, _ := status(t, err); st != http.StatusUnauthorized || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("after exp: %v, want 401 expired", err)
	}
}

// TestEmulatorCertificate: the certificate is served at /_explorer/emulator.pem without
// credentials, equals CertificatePEM and the file WithCertificateFile writes, and a client that
// trusts only that file verifies the server by 127.0.0.1 and by localhost.
func TestEmulatorCertificate(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "cert.pem")
	s := cosmostest.NewServer(t, cosmostest.WithCertificateFile(file))
	written, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) == 0 || string(written) != string(s.CertificatePEM()) {
		t.Fatalf("file %q, CertificatePEM %q", written, s.CertificatePEM())
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(written) {
		t.Fatal("not a PEM certificate")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	defer client.CloseIdleConnections()
	port := s.Endpoint()[strings.LastIndex(s.Endpoint()[:len(s.Endpoint())-1], ":")+1 : len(s.Endpoint())-1]
	for _, host := range []string{"127.0.0.1", "localhost"} {
		resp, err := client.Get("https://" + host + ":" + port + "/_explorer/emulator.pem")
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != string(written) {
			t.Fatalf("%s: %d %q", host, resp.StatusCode, body)
		}
	}

	plain := cosmostest.NewServer(t, cosmostest.WithHTTP())
	if plain.CertificatePEM() != nil {
		t.Fatal("CertificatePEM over HTTP")
	}
	resp, err := http.Get(plain.Endpoint() + "_explorer/emulator.pem")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("emulator.pem over HTTP: %d, want 404", resp.StatusCode)
	}
	if _, err := cosmostest.Start(cosmostest.WithHTTP(), cosmostest.WithCertificateFile(file)); err == nil {
		t.Fatal("WithCertificateFile with WithHTTP started")
	}
}

// TestDefaultConsistency: the account reports the level WithDefaultConsistency sets (Session by
// default) and Start refuses a level the service does not have.
func TestDefaultConsistency(t *testing.T) {
	t.Parallel()
	for _, level := range []string{"", "Strong", "Eventual"} {
		var opts []cosmostest.Option
		want := "Session"
		if level != "" {
			opts, want = []cosmostest.Option{cosmostest.WithHTTP(), cosmostest.WithDefaultConsistency(level)}, level
		} else {
			opts = []cosmostest.Option{cosmostest.WithHTTP()}
		}
		s := cosmostest.NewServer(t, opts...)
		body := readAccountBody(t, s)
		if !strings.Contains(body, `"userConsistencyPolicy":{"defaultConsistencyLevel":"`+want+`"}`) {
			t.Fatalf("level %q: account %s", level, body)
		}
	}
	if _, err := cosmostest.Start(cosmostest.WithDefaultConsistency("Linearizable")); err == nil {
		t.Fatal("started with an unknown consistency level")
	}
}

// readAccountBody returns GET / of s (over plain HTTP) signed with the emulator key.
func readAccountBody(t *testing.T, s *cosmostest.Server) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.Endpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	key, _ := base64.StdEncoding.DecodeString(s.Key())
	req.Header.Set("x-ms-date", date)
	req.Header.Set("Authorization", wire.MasterKeyAuthorization(key, http.MethodGet, "", "", date))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /: %d %s", resp.StatusCode, b)
	}
	return string(b)
}
