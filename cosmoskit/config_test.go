package cosmoskit

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// testKey is a syntactically valid account key that is not the emulator's.
const testKey = "dGhpcy1pcy1hLXRlc3Qta2V5LXRoYXQtbXVzdC1uZXZlci1sZWFrLWFueXdoZXJlLTAxMjM0NTY3ODk="

// fakeCred is a TokenCredential that is never called over the network in these tests.
type fakeCred struct{ name string }

func (*fakeCred) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{}, errors.New("fakeCred: not for use")
}

// quiet is a logger that discards output.
var quiet = slog.New(slog.DiscardHandler)

func TestResolveRejectsBadConfig(t *testing.T) {
	remote := "https://myaccount.documents.azure.com:443/"
	tests := []struct {
		name      string
		cfg       Config
		wantField string
		wantText  string
	}{
		{"no endpoint", Config{}, "Endpoint", "is required"},
		{"relative endpoint", Config{Endpoint: "myaccount.documents.azure.com"}, "Endpoint", "absolute URL"},
		{"ftp endpoint", Config{Endpoint: "ftp://myaccount/"}, "Endpoint", "https"},
		{"http remote", Config{Endpoint: "http://myaccount.documents.azure.com/"}, "Endpoint", "plain http"},
		{"endpoint with path", Config{Endpoint: remote + "dbs/x"}, "Endpoint", "no path"},
		{"endpoint with userinfo", Config{Endpoint: "https://u:p@myaccount/"}, "Endpoint", "user information"},
		{"two credentials", Config{Endpoint: remote, Key: testKey, Credential: &fakeCred{}}, "Key, Credential", "only one"},
		{"key and connection string", Config{Key: testKey, ConnectionString: "AccountEndpoint=" + remote + ";AccountKey=" + testKey + ";"}, "Key, ConnectionString", "only one"},
		{"key not base64", Config{Endpoint: remote, Key: "not base64!!"}, "Key", "base64"},
		{"emulator key remote", Config{Endpoint: remote, Key: EmulatorKey}, "Key", "public emulator key"},
		{"emulator key remote via connection string", Config{ConnectionString: "AccountEndpoint=" + remote + ";AccountKey=" + EmulatorKey + ";"}, "ConnectionString", "public emulator key"},
		{"emulator key on private host", Config{Endpoint: "https://cosmos.internal:8081/", Key: EmulatorKey}, "Key", "non-loopback"},
		{"connection string garbage", Config{ConnectionString: "just-a-secret-" + testKey}, "ConnectionString", "AccountEndpoint="},
		{"connection string without key", Config{ConnectionString: "AccountEndpoint=" + remote + ";"}, "ConnectionString", "AccountEndpoint="},
		{"connection string other account", Config{Endpoint: "https://other.documents.azure.com/", ConnectionString: "AccountEndpoint=" + remote + ";AccountKey=" + testKey + ";"}, "Endpoint, ConnectionString", "different accounts"},
		{"empty preferred region", Config{Endpoint: remote, Key: testKey, PreferredRegions: []string{"West US", " "}}, "PreferredRegions[1]", "is empty"},
		{"duplicate preferred region", Config{Endpoint: remote, Key: testKey, PreferredRegions: []string{"West US", "East US", "west us"}}, "PreferredRegions[2]", "duplicates PreferredRegions[0]"},
		{"duplicate preferred region spacing", Config{Endpoint: remote, Key: testKey, PreferredRegions: []string{"WestUS", "West US"}}, "PreferredRegions[1]", "duplicates"},
		{"duplicate in ClientOptions regions", Config{Endpoint: remote, Key: testKey, ClientOptions: &azcosmos.ClientOptions{PreferredRegions: []string{"a", "A"}}}, "ClientOptions.PreferredRegions[1]", "duplicates"},
		{"empty excluded region", Config{Endpoint: remote, Key: testKey, ExcludedRegions: []string{""}}, "ExcludedRegions[0]", "is empty"},
		{"duplicate excluded region", Config{Endpoint: remote, Key: testKey, ExcludedRegions: []string{"East US", "eastus"}}, "ExcludedRegions[1]", "duplicates"},
		{"application name too long", Config{Endpoint: remote, Key: testKey, ApplicationName: strings.Repeat("x", 25)}, "ApplicationName", "24 characters"},
		{"application name with space", Config{Endpoint: remote, Key: testKey, ApplicationName: "my app"}, "ApplicationName", "whitespace"},
		{"both certificate forms", Config{Endpoint: remote, Key: testKey, ServerCertificate: &x509.Certificate{}, ServerCertificatePEM: []byte("x")}, "ServerCertificate, ServerCertificatePEM", "only one"},
		{"certificate PEM garbage", Config{Endpoint: remote, Key: testKey, ServerCertificatePEM: []byte("not pem")}, "ServerCertificatePEM", "PEM"},
		{"certificate with transport", Config{Endpoint: remote, Key: testKey, ServerCertificate: &x509.Certificate{Raw: []byte{1}},
			ClientOptions: &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: newHTTPClient(nil, nil, false)}}}, "ServerCertificate", "ClientOptions.Transport"},
		{"negative diagnostics threshold", Config{Endpoint: remote, Key: testKey, Diagnostics: diagnostics.Options{PointLatencyThreshold: -1}}, "Diagnostics.PointLatencyThreshold", "negative"},
		{"negative session containers", Config{Endpoint: remote, Key: testKey, Session: consistency.Options{MaxContainers: -1}}, "Session.MaxContainers", "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Logger = quiet
			_, err := New(tt.cfg)
			if err == nil {
				t.Fatal("New succeeded, want an error")
			}
			if !errors.Is(err, cosmoserr.ErrInvalidConfig) {
				t.Errorf("errors.Is(err, cosmoserr.ErrInvalidConfig) = false for %v", err)
			}
			var ce *cosmoserr.ValidationError
			if !errors.As(err, &ce) || !errors.Is(ce.Kind, cosmoserr.ErrInvalidConfig) {
				t.Fatalf("error %T is not a *cosmoserr.ValidationError of Kind ErrInvalidConfig: %v", err, err)
			}
			if want := "Config." + strings.ReplaceAll(tt.wantField, ", ", ", Config."); ce.Field != want {
				t.Errorf("Field = %q, want %q", ce.Field, want)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q does not contain %q", err, tt.wantText)
			}
			assertNoSecret(t, err.Error())
		})
	}
}

// assertNoSecret fails if s contains any key used in these tests.
func assertNoSecret(t *testing.T, s string) {
	t.Helper()
	for _, secret := range []string{testKey, EmulatorKey, testKey[:20], EmulatorKey[:20]} {
		if strings.Contains(s, secret) {
			t.Errorf("output contains a key: %q", s)
		}
	}
}

func TestResolveCredentialChoice(t *testing.T) {
	cred := &fakeCred{}
	tests := []struct {
		name     string
		cfg      Config
		want     authKind
		wantFrom string
	}{
		{"loopback with nothing uses the emulator key", Config{Endpoint: "https://localhost:8081/"}, authKey, "emulator default"},
		{"127.x with nothing uses the emulator key", Config{Endpoint: "http://127.0.0.2:9000"}, authKey, "emulator default"},
		{"ipv6 loopback with nothing uses the emulator key", Config{Endpoint: "https://[::1]:8081/"}, authKey, "emulator default"},
		{"remote with nothing uses the default credential", Config{Endpoint: "https://myaccount.documents.azure.com:443/"}, authDefault, "default azure credential"},
		{"key", Config{Endpoint: "https://myaccount.documents.azure.com/", Key: testKey}, authKey, "Key"},
		{"connection string", Config{ConnectionString: "AccountEndpoint=https://myaccount.documents.azure.com:443/;AccountKey=" + testKey + ";"}, authKey, "ConnectionString"},
		{"token credential", Config{Endpoint: "https://myaccount.documents.azure.com/", Credential: cred}, authToken, "Credential"},
		{"emulator key on loopback", Config{Endpoint: "https://127.0.0.1:8081/", Key: EmulatorKey}, authKey, "Key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := resolve(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.auth != tt.want || r.authSource != tt.wantFrom {
				t.Errorf("auth = %v from %q, want %v from %q", r.auth, r.authSource, tt.want, tt.wantFrom)
			}
			if strings.Contains(r.identity, testKey) || strings.Contains(r.identity, EmulatorKey) {
				t.Errorf("registry identity contains the key: %q", r.identity)
			}
		})
	}
}

func TestEndpointNormalization(t *testing.T) {
	tests := []struct{ in, url, key string }{
		{"https://MyAccount.documents.azure.com", "https://myaccount.documents.azure.com/", "https://myaccount.documents.azure.com:443/"},
		{"https://myaccount.documents.azure.com:443/", "https://myaccount.documents.azure.com:443/", "https://myaccount.documents.azure.com:443/"},
		{" HTTPS://localhost:8081 ", "https://localhost:8081/", "https://localhost:8081/"},
		{"http://127.0.0.1", "http://127.0.0.1/", "http://127.0.0.1:80/"},
		{"https://[::1]:8081/", "https://[::1]:8081/", "https://[::1]:8081/"},
	}
	for _, tt := range tests {
		info, problem := parseEndpoint(tt.in)
		if problem != "" {
			t.Fatalf("parseEndpoint(%q): %s", tt.in, problem)
		}
		if info.url != tt.url || info.key != tt.key {
			t.Errorf("parseEndpoint(%q) = %q, %q; want %q, %q", tt.in, info.url, info.key, tt.url, tt.key)
		}
	}
}

func TestIsLoopbackEndpoint(t *testing.T) {
	tests := map[string]bool{
		"https://localhost:8081/":                   true,
		"https://LOCALHOST:8081":                    true,
		"https://127.0.0.1:8081/":                   true,
		"http://127.255.0.9/":                       true,
		"https://[::1]:8081/":                       true,
		"https://[::ffff:127.0.0.1]:8081/":          true,
		"https://myaccount.documents.azure.com/":    false,
		"https://localhost.example.com/":            false,
		"https://127.0.0.1.nip.io/":                 false,
		"https://10.0.0.1:8081/":                    false,
		"https://[::2]:8081/":                       false,
		"https://0.0.0.0:8081/":                     false,
		"not a url at all ::":                       false,
		"https://mylocalhost:8081/":                 false,
		"https://cosmos.localhost.attacker.example": false,
	}
	for in, want := range tests {
		if got := isLoopbackEndpoint(in); got != want {
			t.Errorf("isLoopbackEndpoint(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestConfigPrintingRedactsSecrets(t *testing.T) {
	cfg := Config{
		Endpoint:         "https://myaccount.documents.azure.com:443/",
		Key:              testKey,
		PreferredRegions: []string{"West US"},
	}
	csCfg := Config{ConnectionString: "AccountEndpoint=https://myaccount.documents.azure.com:443/;AccountKey=" + testKey + ";"}
	for _, c := range []Config{cfg, csCfg} {
		outputs := map[string]string{
			"String": c.String(),
			"%v":     fmt.Sprintf("%v", c),
			"%+v":    fmt.Sprintf("%+v", c),
			"%#v":    fmt.Sprintf("%#v", c),
			"%s":     fmt.Sprintf("%s", c),
			"%q":     fmt.Sprintf("%q", c),
			"&%+v":   fmt.Sprintf("%+v", &c),
			"Sprint": fmt.Sprint(c),
			"slice":  fmt.Sprintf("%+v", []Config{c}),
		}
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("config", "cfg", c)
		outputs["slog json"] = buf.String()
		buf.Reset()
		slog.New(slog.NewTextHandler(&buf, nil)).Info("config", "cfg", c)
		outputs["slog text"] = buf.String()
		for name, out := range outputs {
			assertNoSecret(t, out)
			if !strings.Contains(out, "myaccount.documents.azure.com") {
				t.Errorf("%s: %q does not show the endpoint", name, out)
			}
		}
		if !strings.Contains(c.String(), redacted) {
			t.Errorf("String() = %q, want the key shown as %s", c.String(), redacted)
		}
	}
}

func TestStartupLog(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	c, err := New(Config{Endpoint: "https://startuplog.documents.azure.com/", Key: testKey, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	out := buf.String()
	for _, want := range []string{"Cosmos DB client created", "endpoint=https://startuplog.documents.azure.com/", "credential=Key", "level=WARN", "no PreferredRegions"} {
		if !strings.Contains(out, want) {
			t.Errorf("startup log lacks %q:\n%s", want, out)
		}
	}
	assertNoSecret(t, out)

	// A second New for the open account logs nothing.
	buf.Reset()
	c2, err := New(Config{Endpoint: "https://startuplog.documents.azure.com/", Key: testKey, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	c2.Close()
	if buf.Len() != 0 {
		t.Errorf("second New logged: %s", buf.String())
	}
}
