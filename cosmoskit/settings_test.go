package cosmoskit

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

type nopPolicy struct{ n int }

func (nopPolicy) Do(req *policy.Request) (*http.Response, error) { return req.Next() }

type nopReporter struct{}

func (*nopReporter) CircuitBreakerStateChanged(context.Context, string, string, string) {}

type fixedClock struct{}

func (*fixedClock) Now() time.Time                             { return time.Time{} }
func (*fixedClock) Sleep(context.Context, time.Duration) error { return nil }

func shouldRetry(*http.Response, error) bool { return false }

// baseConflictConfig sets something in every group of settings, so that changing any one field
// is a difference from a set value.
func baseConflictConfig() Config {
	low := azcosmos.PriorityLevelLow
	return Config{
		Endpoint: "https://settings.documents.azure.com/", Key: testKey, Logger: quiet,
		PreferredRegions: []string{"West US"},
		PerCallPolicies:  []policy.Policy{nopPolicy{1}},
		PerRetryPolicies: []policy.Policy{nopPolicy{2}},
		Diagnostics:      diagnostics.Options{Logger: quiet, PointLatencyThreshold: time.Second},
		Retry:            retry.Options{Throttle: retry.ThrottleOptions{MaxRetries: 3}},
		ClientOptions: &azcosmos.ClientOptions{
			ClientOptions: azcore.ClientOptions{
				Retry:     policy.RetryOptions{MaxRetries: 2, StatusCodes: []int{503}, ShouldRetry: shouldRetry},
				Telemetry: policy.TelemetryOptions{ApplicationID: "x"},
			},
			EnableContentResponseOnWrite: true,
			PriorityLevel:                &low,
		},
	}
}

// TestNewConflictsOnEveryBehaviourSetting: a second New for an open account with any option that
// changes behaviour set differently is cosmoserr.ErrConfigConflict naming that field, never a secret; equal
// contents in other values (a copied ClientOptions, an equal *PriorityLevel) are not a conflict.
func TestNewConflictsOnEveryBehaviourSetting(t *testing.T) {
	c, err := New(baseConflictConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	same := baseConflictConfig() // new ClientOptions, PriorityLevel pointers; equal contents
	c2, err := New(same)
	if err != nil {
		t.Fatalf("an equal config: %v", err)
	}
	c2.Close()

	other := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := map[string]func(*Config){
		"PreferredRegions":                           func(c *Config) { c.PreferredRegions = []string{"East US"} },
		"ExcludedRegions":                            func(c *Config) { c.ExcludedRegions = []string{"West US"} },
		"ApplicationName":                            func(c *Config) { c.ApplicationName = "other" },
		"Diagnostics.Disable":                        func(c *Config) { c.Diagnostics.Disable = true },
		"Retry.Disable":                              func(c *Config) { c.Retry.Disable = true },
		"Session.Disable":                            func(c *Config) { c.Session.Disable = true },
		"Session.MaxContainers":                      func(c *Config) { c.Session.MaxContainers = 5 },
		"Logger":                                     func(c *Config) { c.Logger = other },
		"PerCallPolicies":                            func(c *Config) { c.PerCallPolicies = []policy.Policy{nopPolicy{3}} },
		"PerRetryPolicies":                           func(c *Config) { c.PerRetryPolicies = nil },
		"Diagnostics.Logger":                         func(c *Config) { c.Diagnostics.Logger = other },
		"Diagnostics.TracerProvider":                 func(c *Config) { c.Diagnostics.TracerProvider = sdktrace.NewTracerProvider() },
		"Diagnostics.PointLatencyThreshold":          func(c *Config) { c.Diagnostics.PointLatencyThreshold = 2 * time.Second },
		"Diagnostics.CaptureQueryText":               func(c *Config) { c.Diagnostics.CaptureQueryText = true },
		"Diagnostics.RequestChargeThreshold":         func(c *Config) { c.Diagnostics.RequestChargeThreshold = 100 },
		"Retry.Throttle.MaxRetries":                  func(c *Config) { c.Retry.Throttle.MaxRetries = 4 },
		"Retry.Throttle.MaxWait":                     func(c *Config) { c.Retry.Throttle.MaxWait = time.Minute },
		"Retry.Breaker.OpenInterval":                 func(c *Config) { c.Retry.Breaker.OpenInterval = time.Minute },
		"Retry.Breaker.Disable":                      func(c *Config) { c.Retry.Breaker.Disable = true },
		"Retry.Hedging.Enable":                       func(c *Config) { c.Retry.Hedging.Enable = true },
		"Retry.Reporter":                             func(c *Config) { c.Retry.Reporter = &nopReporter{} },
		"Retry.Clock":                                func(c *Config) { c.Retry.Clock = &fixedClock{} },
		"ClientOptions":                              func(c *Config) { c.ClientOptions = nil },
		"ClientOptions.Retry.MaxRetries":             func(c *Config) { c.ClientOptions.Retry.MaxRetries = 5 },
		"ClientOptions.Retry.RetryDelay":             func(c *Config) { c.ClientOptions.Retry.RetryDelay = time.Second },
		"ClientOptions.Retry.StatusCodes":            func(c *Config) { c.ClientOptions.Retry.StatusCodes = []int{500} },
		"ClientOptions.Retry.ShouldRetry":            func(c *Config) { c.ClientOptions.Retry.ShouldRetry = nil },
		"ClientOptions.Transport":                    func(c *Config) { c.ClientOptions.Transport = &http.Client{} },
		"ClientOptions.PerCallPolicies":              func(c *Config) { c.ClientOptions.PerCallPolicies = []policy.Policy{nopPolicy{4}} },
		"ClientOptions.Telemetry.Disabled":           func(c *Config) { c.ClientOptions.Telemetry.Disabled = true },
		"ClientOptions.Logging.IncludeBody":          func(c *Config) { c.ClientOptions.Logging.IncludeBody = true },
		"ClientOptions.APIVersion":                   func(c *Config) { c.ClientOptions.APIVersion = "2020-01-01" },
		"ClientOptions.EnableContentResponseOnWrite": func(c *Config) { c.ClientOptions.EnableContentResponseOnWrite = false },
		"ClientOptions.PriorityLevel":                func(c *Config) { high := azcosmos.PriorityLevelHigh; c.ClientOptions.PriorityLevel = &high },
		"ClientOptions.ThroughputBucket":             func(c *Config) { b := int32(2); c.ClientOptions.ThroughputBucket = &b },
	}
	for field, mutate := range tests {
		t.Run(field, func(t *testing.T) {
			cfg := baseConflictConfig()
			mutate(&cfg)
			c3, err := New(cfg)
			if err == nil {
				c3.Close()
				t.Fatalf("New with another %s shared the open client", field)
			}
			if !errors.Is(err, cosmoserr.ErrConfigConflict) {
				t.Fatalf("New = %v, want cosmoserr.ErrConfigConflict", err)
			}
			var cc *cosmoserr.ConfigConflictError
			// Dropping ClientOptions also drops its Telemetry.ApplicationID: ApplicationName differs too.
			if !errors.As(err, &cc) || !slices.ContainsFunc(cc.Differences, func(d cosmoserr.Difference) bool { return d.Field == field }) ||
				len(cc.Differences) != 1 && field != "ClientOptions" {
				t.Fatalf("New = %v, want a ConfigConflictError with the one difference %s", err, field)
			}
			var ve *cosmoserr.ValidationError
			if !errors.As(err, &ve) || ve.Field != "Config."+cc.Differences[0].Field || !errors.Is(err, cosmoserr.ErrValidation) {
				t.Errorf("the conflict unwraps to %v, want a ValidationError for Config.%s", ve, cc.Differences[0].Field)
			}
			assertNoSecret(t, err.Error())
		})
	}
}

// TestConflictDifferencesAreData: the conflict lists each differing field with the wanted and
// the open client's values for plain settings (regions, names, numbers), and with no values for
// a logger, a policy or a pointer.
func TestConflictDifferencesAreData(t *testing.T) {
	c, err := New(baseConflictConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg := baseConflictConfig()
	cfg.PreferredRegions = []string{"East US", "West US"}
	cfg.ApplicationName = "other"
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Retry.Throttle.MaxRetries = 7
	_, err = New(cfg)
	var cc *cosmoserr.ConfigConflictError
	if !errors.As(err, &cc) {
		t.Fatalf("New = %v, want a *cosmoserr.ConfigConflictError", err)
	}
	want := []cosmoserr.Difference{
		{Field: "PreferredRegions", Want: "eastus,westus", Have: "westus"},
		{Field: "ApplicationName", Want: "other", Have: "(none)"}, // the base config sets ClientOptions.Telemetry.ApplicationID
		{Field: "Logger"},
		{Field: "Retry.Throttle.MaxRetries", Want: "7", Have: "3"},
	}
	if !reflect.DeepEqual(cc.Differences, want) {
		t.Errorf("Differences = %+v\nwant %+v", cc.Differences, want)
	}
	if !errors.Is(err, cosmoserr.ErrConfigConflict) || !errors.Is(err, cosmoserr.ErrValidation) {
		t.Errorf("%v does not match cosmoserr.ErrConfigConflict and ErrValidation", err)
	}
}

// TestLoggersComparedByHandler: two loggers built with slog.New on one handler, or on equal
// comparable handlers (slog.DiscardHandler), are the same setting; another handler, or a logger
// derived with With, is a conflict.
func TestLoggersComparedByHandler(t *testing.T) {
	h := slog.NewTextHandler(io.Discard, nil)
	cfg := func(l *slog.Logger) Config {
		return Config{Endpoint: "https://loggers.documents.azure.com/", Key: testKey, PreferredRegions: []string{"West US"}, Logger: l,
			Diagnostics: diagnostics.Options{Logger: l}}
	}
	c, err := New(cfg(slog.New(h)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c2, err := New(cfg(slog.New(h))) // another component, its own slog.New over the same handler
	if err != nil {
		t.Fatalf("a second logger over the same handler: %v", err)
	}
	c2.Close()
	for name, l := range map[string]*slog.Logger{
		"another handler": slog.New(slog.NewTextHandler(io.Discard, nil)),
		"With":            slog.New(h).With("component", "b"),
	} {
		_, err := New(cfg(l))
		var cc *cosmoserr.ConfigConflictError
		if !errors.As(err, &cc) || len(cc.Differences) != 2 || cc.Differences[0].Field != "Logger" || cc.Differences[1].Field != "Diagnostics.Logger" {
			t.Errorf("%s: New = %v, want a conflict on Logger and Diagnostics.Logger", name, err)
		}
	}

	d, err := New(Config{Endpoint: "https://discard.documents.azure.com/", Key: testKey, PreferredRegions: []string{"West US"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d2, err := New(Config{Endpoint: "https://discard.documents.azure.com/", Key: testKey, PreferredRegions: []string{"West US"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("two slog.New(slog.DiscardHandler): %v", err)
	}
	d2.Close()
}

// TestSettingsCoverConfig: every Config field is either compared for conflicts or part of the
// registry key, so a field added later cannot be forgotten silently.
func TestSettingsCoverConfig(t *testing.T) {
	notSettings := map[string]string{
		"Endpoint": "registry key", "Key": "registry key", "ConnectionString": "registry key",
		"Credential": "registry key", "Database": "not used by New", "ServerCertificatePEM": "compared as ServerCertificate",
	}
	names := map[string]bool{}
	r, err := resolve(baseConflictConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range settingsOf(r) {
		root, _, _ := strings.Cut(s.name, ".")
		root, _, _ = strings.Cut(root, "[")
		names[root] = true
	}
	ct := reflect.TypeFor[Config]()
	for i := range ct.NumField() {
		f := ct.Field(i)
		if !f.IsExported() {
			continue
		}
		if _, ok := notSettings[f.Name]; !ok && !names[f.Name] {
			t.Errorf("Config.%s takes no part in the conflict check", f.Name)
		}
	}
}
