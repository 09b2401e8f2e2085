package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
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
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// TestRunAsEmulator: standing in for the emulator, the command reports the emulator's account
// metadata (region South Central US, endpoint https://127.0.0.1:<port>/, the consistency asked
// for), writes its certificate where --export-cert says and serves the same one at
// /_explorer/emulator.pem, so that a client trusting that file (as SSL_CERT_FILE would) verifies
// the server, and accepts an AAD token shaped like the emulator's test tokens.
func TestRunAsEmulator(t *testing.T) {
	certFile := filepath.Join(t.TempDir(), "emulator.pem")
	port, _ := startRun(t, []string{"--port", "0", "--protocol", "https", "--log-level", "quiet",
		"--consistency", "Strong", "--export-cert", certFile}, nil)
	pemBytes, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("--export-cert wrote no certificate: %q", pemBytes)
	}
	trusting := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
	}}
	for _, host := range []string{"127.0.0.1", "localhost"} {
		resp, err := trusting.Get("https://" + host + ":" + port + "/_explorer/emulator.pem")
		if err != nil {
			t.Fatalf("GET emulator.pem through %s trusting the exported file: %v", host, err)
		}
		served, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(served) != string(pemBytes) {
			t.Fatalf("emulator.pem: %d %q, want the exported certificate", resp.StatusCode, served)
		}
	}

	account := readAccount(t, trusting, "https://localhost:"+port+"/")
	want := "https://127.0.0.1:" + port + "/"
	if len(account.Writable) != 1 || account.Writable[0].Name != "South Central US" || account.Writable[0].Endpoint != want ||
		len(account.Readable) != 1 || account.Readable[0] != account.Writable[0] {
		t.Errorf("locations %+v / %+v, want South Central US at %s", account.Writable, account.Readable, want)
	}
	if account.Consistency.Level != "Strong" || account.MultiWrite {
		t.Errorf("consistency %q, multi-write %v; want Strong, false", account.Consistency.Level, account.MultiWrite)
	}

	// An AAD client whose transport trusts only the exported certificate.
	client, err := azcosmos.NewClient("https://localhost:"+port+"/", emulatorStyleToken{}, &azcosmos.ClientOptions{
		ClientOptions: azcore.ClientOptions{Transport: trusting},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "aad"}, nil); err != nil {
		t.Errorf("AAD client: %v", err)
	}
}

// TestRunAADAudience: with --aad-audience, a token for another audience is refused with 401.
func TestRunAADAudience(t *testing.T) {
	port, _ := startRun(t, []string{"--port", "0", "--log-level", "quiet", "--aad-audience", "https://cosmos.azure.com"}, nil)
	client, err := azcosmos.NewClient("http://127.0.0.1:"+port+"/", emulatorStyleToken{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err = client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "aad"}, nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusUnauthorized || !strings.Contains(err.Error(), "audience") {
		t.Errorf("token for https://localhost.localhost with --aad-audience https://cosmos.azure.com: %v, want 401 naming the audience", err)
	}
}

// emulatorStyleToken returns a token shaped like the ones the emulator's test suites send: an
// unsigned JWT for the audience https://localhost.localhost, valid for an hour.
type emulatorStyleToken struct{}

func (emulatorStyleToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	now := time.Now()
	enc := base64.RawURLEncoding.EncodeToString
	claims := `{"aud":"https://localhost.localhost","nbf":` + strconv.FormatInt(now.Unix(), 10) +
		`,"exp":` + strconv.FormatInt(now.Add(time.Hour).Unix(), 10) + `,"scp":"user_impersonation"}`
	token := enc([]byte(`{"typ":"JWT","alg":"RS256"}`)) + "." + enc([]byte(claims)) + "." + enc([]byte("signature"))
	return azcore.AccessToken{Token: token, ExpiresOn: now.Add(time.Hour)}, nil
}

type accountLocation struct {
	Name     string `json:"name"`
	Endpoint string `json:"databaseAccountEndpoint"`
}

type accountMetadata struct {
	Writable    []accountLocation `json:"writableLocations"`
	Readable    []accountLocation `json:"readableLocations"`
	MultiWrite  bool              `json:"enableMultipleWriteLocations"`
	Consistency struct {
		Level string `json:"defaultConsistencyLevel"`
	} `json:"userConsistencyPolicy"`
}

// readAccount reads GET / signed with the emulator key.
func readAccount(t *testing.T, c *http.Client, endpoint string) accountMetadata {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	key, _ := base64.StdEncoding.DecodeString(wire.EmulatorKey)
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2020-11-05")
	req.Header.Set("Authorization", wire.MasterKeyAuthorization(key, http.MethodGet, "", "", date))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a accountMetadata
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&a) != nil {
		t.Fatalf("GET /: %d", resp.StatusCode)
	}
	return a
}
