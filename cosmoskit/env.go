package cosmoskit

import (
	"os"
	"strings"
)

// Environment variables read by LoadConfig and ConfigFromEnv. A variable that is unset or empty is
// ignored.
const (
	EnvEndpoint         = "COSMOS_ENDPOINT"          // Config.Endpoint
	EnvKey              = "COSMOS_KEY"               // Config.Key
	EnvConnectionString = "COSMOS_CONNECTION_STRING" // Config.ConnectionString
	EnvDatabase         = "COSMOS_DATABASE"          // Config.Database
	EnvPreferredRegions = "COSMOS_PREFERRED_REGIONS" // Config.PreferredRegions, comma-separated
	EnvExcludedRegions  = "COSMOS_EXCLUDED_REGIONS"  // Config.ExcludedRegions, comma-separated
	EnvApplicationName  = "COSMOS_APPLICATION_NAME"  // Config.ApplicationName
)

// ConfigFromEnv returns the Config described by the environment alone: LoadConfig(Config{}).
func ConfigFromEnv() Config { return LoadConfig(Config{}) }

// LoadConfig returns base with the gaps filled from the environment. The precedence rule:
//
//   - A value set in code wins. The environment only fills fields that base leaves empty (a nil
//     region slice is empty; an empty non-nil slice is an explicit "none").
//   - Credentials come from one place. If base sets any of Key, ConnectionString or Credential,
//     COSMOS_KEY and COSMOS_CONNECTION_STRING are ignored, so a key from the environment is never
//     paired with a credential chosen in code. COSMOS_ENDPOINT still fills an empty Endpoint (the
//     common "managed identity in code, endpoint from the environment" set-up).
//   - Comma-separated lists are split on commas, each entry trimmed, empty entries dropped.
//
// So code that hard-wires a local emulator can never be pointed at another account by an ambient
// COSMOS_ENDPOINT, and a deployment configures everything code leaves open. Validation happens in
// New; errors about values from the environment name the variable. LoadConfig never fails.
func LoadConfig(base Config) Config {
	cfg := base
	origins := make(map[string]string, len(base.origins)+4)
	for k, v := range base.origins {
		origins[k] = v
	}
	setStr := func(dst *string, field, name string) {
		if *dst != "" {
			return
		}
		if v := strings.TrimSpace(os.Getenv(name)); v != "" {
			*dst = v
			origins[field] = name
		}
	}
	setList := func(dst *[]string, field, name string) {
		if *dst != nil {
			return
		}
		if v := os.Getenv(name); strings.TrimSpace(v) != "" {
			*dst = splitList(v)
			origins[field] = name
		}
	}
	setStr(&cfg.Endpoint, "Endpoint", EnvEndpoint)
	if base.Key == "" && base.ConnectionString == "" && base.Credential == nil {
		setStr(&cfg.Key, "Key", EnvKey)
		setStr(&cfg.ConnectionString, "ConnectionString", EnvConnectionString)
	}
	setStr(&cfg.Database, "Database", EnvDatabase)
	setList(&cfg.PreferredRegions, "PreferredRegions", EnvPreferredRegions)
	setList(&cfg.ExcludedRegions, "ExcludedRegions", EnvExcludedRegions)
	setStr(&cfg.ApplicationName, "ApplicationName", EnvApplicationName)
	if len(origins) > 0 {
		cfg.origins = origins
	}
	return cfg
}

// splitList splits a comma-separated list, trimming entries and dropping empty ones.
func splitList(v string) []string {
	parts := strings.Split(v, ",")
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
