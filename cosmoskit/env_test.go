package cosmoskit

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// clearEnv unsets every variable LoadConfig reads, for the duration of the test.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, v := range []string{EnvEndpoint, EnvKey, EnvConnectionString, EnvDatabase, EnvPreferredRegions, EnvExcludedRegions, EnvApplicationName} {
		t.Setenv(v, "")
	}
}

func TestConfigFromEnv(t *testing.T) {
	clearEnv(t)
	t.Setenv(EnvEndpoint, " https://myaccount.documents.azure.com:443/ ")
	t.Setenv(EnvKey, testKey)
	t.Setenv(EnvDatabase, "orders")
	t.Setenv(EnvPreferredRegions, "West US 3, East US 2,,")
	t.Setenv(EnvExcludedRegions, "North Europe")
	t.Setenv(EnvApplicationName, "orders-api")

	cfg := ConfigFromEnv()
	if cfg.Endpoint != "https://myaccount.documents.azure.com:443/" || cfg.Key != testKey || cfg.Database != "orders" || cfg.ApplicationName != "orders-api" {
		t.Errorf("ConfigFromEnv() = %v", cfg)
	}
	if want := []string{"West US 3", "East US 2"}; !slices.Equal(cfg.PreferredRegions, want) {
		t.Errorf("PreferredRegions = %q, want %q", cfg.PreferredRegions, want)
	}
	if want := []string{"North Europe"}; !slices.Equal(cfg.ExcludedRegions, want) {
		t.Errorf("ExcludedRegions = %q, want %q", cfg.ExcludedRegions, want)
	}
}

func TestLoadConfigPrecedence(t *testing.T) {
	cred := &fakeCred{}
	tests := []struct {
		name  string
		env   map[string]string
		base  Config
		check func(t *testing.T, got Config)
	}{
		{
			name: "explicit endpoint wins over COSMOS_ENDPOINT",
			env:  map[string]string{EnvEndpoint: "https://prod.documents.azure.com/"},
			base: Config{Endpoint: "https://localhost:8081/"},
			check: func(t *testing.T, got Config) {
				if got.Endpoint != "https://localhost:8081/" {
					t.Errorf("Endpoint = %q", got.Endpoint)
				}
			},
		},
		{
			name: "environment fills an empty endpoint",
			env:  map[string]string{EnvEndpoint: "https://prod.documents.azure.com/"},
			base: Config{Credential: cred},
			check: func(t *testing.T, got Config) {
				if got.Endpoint != "https://prod.documents.azure.com/" || got.Credential != cred {
					t.Errorf("got %v", got)
				}
			},
		},
		{
			name: "explicit credential keeps COSMOS_KEY out",
			env:  map[string]string{EnvKey: testKey, EnvConnectionString: "AccountEndpoint=https://x/;AccountKey=" + testKey},
			base: Config{Endpoint: "https://prod.documents.azure.com/", Credential: cred},
			check: func(t *testing.T, got Config) {
				if got.Key != "" || got.ConnectionString != "" {
					t.Errorf("environment credentials leaked in: %v", got)
				}
			},
		},
		{
			name: "explicit key keeps COSMOS_CONNECTION_STRING out",
			env:  map[string]string{EnvConnectionString: "AccountEndpoint=https://x/;AccountKey=" + testKey},
			base: Config{Endpoint: "https://prod.documents.azure.com/", Key: testKey},
			check: func(t *testing.T, got Config) {
				if got.ConnectionString != "" {
					t.Errorf("ConnectionString = %v", got)
				}
			},
		},
		{
			name: "key from environment with endpoint from code",
			env:  map[string]string{EnvKey: testKey},
			base: Config{Endpoint: "https://prod.documents.azure.com/"},
			check: func(t *testing.T, got Config) {
				if got.Key != testKey {
					t.Errorf("Key not filled from %s", EnvKey)
				}
			},
		},
		{
			name: "explicit regions win, even an explicit empty list",
			env:  map[string]string{EnvPreferredRegions: "East US", EnvExcludedRegions: "West US"},
			base: Config{PreferredRegions: []string{"North Europe"}, ExcludedRegions: []string{}},
			check: func(t *testing.T, got Config) {
				if !slices.Equal(got.PreferredRegions, []string{"North Europe"}) || len(got.ExcludedRegions) != 0 {
					t.Errorf("got %v", got)
				}
			},
		},
		{
			name: "nil regions are filled",
			env:  map[string]string{EnvPreferredRegions: "East US,West US"},
			base: Config{},
			check: func(t *testing.T, got Config) {
				if !slices.Equal(got.PreferredRegions, []string{"East US", "West US"}) {
					t.Errorf("got %q", got.PreferredRegions)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			tt.check(t, LoadConfig(tt.base))
		})
	}
}

func TestEnvErrorsNameTheVariable(t *testing.T) {
	clearEnv(t)
	t.Setenv(EnvEndpoint, "https://myaccount.documents.azure.com/")
	t.Setenv(EnvKey, testKey)
	t.Setenv(EnvPreferredRegions, "West US, westus")
	_, err := New(LoadConfig(Config{Logger: quiet}))
	var ce *cosmoserr.ValidationError
	if !errors.As(err, &ce) {
		t.Fatalf("New = %v, want a *cosmoserr.ValidationError", err)
	}
	if want := "Config.PreferredRegions[1] (from COSMOS_PREFERRED_REGIONS)"; ce.Field != want {
		t.Errorf("Field = %q, want %q", ce.Field, want)
	}

	clearEnv(t)
	t.Setenv(EnvEndpoint, "https://myaccount.documents.azure.com/")
	t.Setenv(EnvKey, EmulatorKey)
	_, err = New(ConfigFromEnv())
	if !errors.As(err, &ce) || ce.Field != "Config.Key (from COSMOS_KEY)" || !strings.Contains(ce.Reason, "emulator key") {
		t.Fatalf("New = %v, want the emulator key refused naming COSMOS_KEY", err)
	}
	assertNoSecret(t, err.Error())
}
