package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// config is what the command line and the environment ask for.
type config struct {
	Port        int           // --port / PORT, default 8081
	Protocol    string        // --protocol / PROTOCOL: "http" (default), "https" or "https-insecure" (same as https)
	Gateway     string        // --gateway-endpoint / GATEWAY_PUBLIC_ENDPOINT: host[:port] advertised, default "127.0.0.1"
	KeyFile     string        // --key-file / KEY_FILE: file holding the master key; default the emulator key
	LogLevel    string        // --log-level / LOG_LEVEL: quiet, error, warn, info (default), debug, trace
	Partitions  int           // --partitions / COSMOSTEST_PARTITIONS: physical partitions per container, default 1
	Regions     []string      // --regions / COSMOSTEST_REGIONS: comma-separated region names, first is the write region; default "South Central US"
	Consistency string        // --consistency / COSMOSTEST_CONSISTENCY: the account's default consistency level, default "Session"
	Lag         time.Duration // --replication-lag / COSMOSTEST_REPLICATION_LAG: how long writes take to reach the other regions, default 0
	MultiWrite  bool          // --multi-write / COSMOSTEST_MULTI_WRITE: "true" makes every region writable; default false
	AADAudience []string      // --aad-audience / COSMOSTEST_AAD_AUDIENCE: comma-separated audiences AAD tokens must name; default any
	ExportCert  string        // --export-cert / COSMOSTEST_EXPORT_CERT: file to write the TLS certificate (PEM) to; default none
	ControlPort int           // --control-port / COSMOSTEST_CONTROL_PORT: the control API's port, 0 any free one; default -1 (off)
	ControlTok  string        // --control-token / COSMOSTEST_CONTROL_TOKEN: the control API's bearer token; required with a control port
	Explorer    bool          // --explorer / COSMOSTEST_EXPLORER: serve the Data Explorer at /explorer/ of the control port; default false
	Throughput  bool          // --throughput-limits / COSMOSTEST_THROUGHPUT_LIMITS: enforce provisioned RU/s (429/3200); default false
	ClockSkew   time.Duration // --clock-skew / COSMOSTEST_CLOCK_SKEW: accepted x-ms-date distance, negative off; default 15m
	Help        bool          // -h / --help
	Ignored     []string      // emulator flags accepted and ignored, for the start-up log
}

// valueFlags are the flags this command honours, each taking a value.
var valueFlags = map[string]string{
	"port":              "PORT",
	"protocol":          "PROTOCOL",
	"gateway-endpoint":  "GATEWAY_PUBLIC_ENDPOINT",
	"key-file":          "KEY_FILE",
	"log-level":         "LOG_LEVEL",
	"partitions":        "COSMOSTEST_PARTITIONS",
	"regions":           "COSMOSTEST_REGIONS",
	"consistency":       "COSMOSTEST_CONSISTENCY",
	"replication-lag":   "COSMOSTEST_REPLICATION_LAG",
	"multi-write":       "COSMOSTEST_MULTI_WRITE",
	"aad-audience":      "COSMOSTEST_AAD_AUDIENCE",
	"export-cert":       "COSMOSTEST_EXPORT_CERT",
	"control-port":      "COSMOSTEST_CONTROL_PORT",
	"control-token":     "COSMOSTEST_CONTROL_TOKEN",
	"explorer":          "COSMOSTEST_EXPLORER",
	"throughput-limits": "COSMOSTEST_THROUGHPUT_LIMITS",
	"clock-skew":        "COSMOSTEST_CLOCK_SKEW",
}

// ignoredFlags are the vNext emulator's other flags: accepted (with their value) and ignored.
var ignoredFlags = map[string]bool{
	"enable-explorer":   true,
	"explorer-port":     true,
	"explorer-protocol": true,
	"data-path":         true,
	"cert-path":         true,
	"enable-otlp":       true,
	"enable-console":    true,
	"enable-telemetry":  true,
}

const usage = `Usage: cosmostest [flags]

Runs cosmoskit's Cosmos DB gateway server, a drop-in for the emulator (flags of the vNext image).
Flags take "--name value" or "--name=value"; each has an environment variable (the flag wins).

  --port N                  PORT                     listen port (default 8081)
  --protocol P              PROTOCOL                 http (default), https or https-insecure
  --gateway-endpoint H[:P]  GATEWAY_PUBLIC_ENDPOINT  host[:port] advertised in the account metadata (default 127.0.0.1,
                                                     as the emulator advertises https://127.0.0.1:8081/)
  --key-file F              KEY_FILE                 file holding the master key (default: the emulator key)
  --log-level L             LOG_LEVEL                quiet, error, warn, info (default), debug, trace
  --partitions N            COSMOSTEST_PARTITIONS    physical partitions of every new container (default 1)
  --regions A,B             COSMOSTEST_REGIONS       account regions, first is the write region (default "South Central US",
                                                     the emulator's); regions after the first listen on loopback ports
  --consistency L           COSMOSTEST_CONSISTENCY   the account's default consistency level: Strong, BoundedStaleness,
                                                     Session (default, the emulator's), ConsistentPrefix or Eventual
  --replication-lag D       COSMOSTEST_REPLICATION_LAG  how long a write takes to reach the other regions, a Go duration
                                                     such as 200ms (default 0: every region sees every write at once)
  --multi-write B           COSMOSTEST_MULTI_WRITE   true: every region accepts writes and concurrent writes to one item
                                                     are settled by the container's conflict resolution policy
                                                     (default false: the first region is the only write region)
  --aad-audience A,B        COSMOSTEST_AAD_AUDIENCE  accept AAD tokens only for these audiences (default: any; AAD tokens
                                                     are accepted as the emulator accepts them, see package cosmostest)
  --export-cert F           COSMOSTEST_EXPORT_CERT   write the TLS certificate (PEM) to F at start, for SSL_CERT_FILE=F;
                                                     it is also served at /_explorer/emulator.pem
  --throughput-limits B     COSMOSTEST_THROUGHPUT_LIMITS  true: enforce the provisioned RU/s per physical partition with
                                                     429/3200 as the service does (default false)
  --clock-skew D            COSMOSTEST_CLOCK_SKEW    how far a request's x-ms-date may be from the wall clock (default 15m,
                                                     the service's window; outside it 403); a negative value turns it off
  --control-port N          COSMOSTEST_CONTROL_PORT  serve the control API on port N (0: any free port; default off)
  --control-token T         COSMOSTEST_CONTROL_TOKEN the control API's bearer token (required with --control-port; not
                                                     the account key)
  --explorer B              COSMOSTEST_EXPLORER      true: serve the Data Explorer, a web UI over the data and the controls,
                                                     at /explorer/ of the control port; it asks for the control token
                                                     (default false; needs --control-port)
` + controlDoc + `
The emulator's --enable-explorer, --explorer-port, --explorer-protocol, --data-path, --cert-path,
--enable-otlp, --enable-console and --enable-telemetry are accepted and ignored, as is any other
--flag (with its value, if one follows).
`

// parseConfig reads args (without the program name) over the environment given by getenv.
func parseConfig(args []string, getenv func(string) string) (config, error) {
	raw := map[string]string{}
	for name, env := range valueFlags {
		if v := getenv(env); v != "" {
			raw[name] = v
		}
	}
	cfg := config{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "-h" || arg == "-help" || arg == "--help" {
			cfg.Help = true
			continue
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
			return cfg, fmt.Errorf("unexpected argument %q (flags are --name value)", arg)
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		_, known := valueFlags[name]
		if !hasValue && i+1 < len(args) && (known || !strings.HasPrefix(args[i+1], "-")) {
			i++
			value, hasValue = args[i], true
		}
		if !known {
			cfg.Ignored = append(cfg.Ignored, name)
			continue
		}
		if !hasValue {
			return cfg, fmt.Errorf("flag --%s needs a value", name)
		}
		raw[name] = value
	}

	cfg.Port = 8081
	if v, ok := raw["port"]; ok {
		p, err := strconv.Atoi(v)
		if err != nil || p < 0 || p > 65535 {
			return cfg, fmt.Errorf("port %q is not a port number", v)
		}
		cfg.Port = p
	}
	cfg.Protocol = "http"
	if v, ok := raw["protocol"]; ok {
		switch v = strings.ToLower(v); v {
		case "http", "https", "https-insecure":
			cfg.Protocol = v
		default:
			return cfg, fmt.Errorf("protocol %q: want http, https or https-insecure", v)
		}
	}
	cfg.Gateway = "127.0.0.1"
	if v, ok := raw["gateway-endpoint"]; ok {
		cfg.Gateway = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(v, "http://"), "https://"), "/")
	}
	cfg.KeyFile = raw["key-file"]
	cfg.LogLevel = "info"
	if v, ok := raw["log-level"]; ok {
		v = strings.ToLower(v)
		if _, err := newLogger(io.Discard, v); err != nil {
			return cfg, err
		}
		cfg.LogLevel = v
	}
	cfg.Partitions = 1
	if v, ok := raw["partitions"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("partitions %q: want a whole number ≥ 1", v)
		}
		cfg.Partitions = n
	}
	cfg.Regions = []string{"South Central US"}
	if v, ok := raw["regions"]; ok {
		if cfg.Regions = splitList(v); len(cfg.Regions) == 0 {
			return cfg, fmt.Errorf("regions %q: want comma-separated region names", v)
		}
	}
	cfg.Consistency = "Session"
	if v, ok := raw["consistency"]; ok {
		cfg.Consistency = v // checked by cosmostest.Start, which knows the levels
	}
	if v, ok := raw["replication-lag"]; ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return cfg, fmt.Errorf("replication-lag %q: want a duration ≥ 0 such as 200ms or 2s", v)
		}
		cfg.Lag = d
	}
	if v, ok := raw["multi-write"]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return cfg, fmt.Errorf("multi-write %q: want true or false", v)
		}
		cfg.MultiWrite = b
	}
	if v, ok := raw["aad-audience"]; ok {
		if cfg.AADAudience = splitList(v); len(cfg.AADAudience) == 0 {
			return cfg, fmt.Errorf("aad-audience %q: want comma-separated audiences", v)
		}
	}
	cfg.ExportCert = raw["export-cert"]
	cfg.ControlPort = -1
	if v, ok := raw["control-port"]; ok {
		p, err := strconv.Atoi(v)
		if err != nil || p < 0 || p > 65535 {
			return cfg, fmt.Errorf("control-port %q is not a port number", v)
		}
		cfg.ControlPort = p
	}
	cfg.ControlTok = raw["control-token"]
	if cfg.ControlPort >= 0 && cfg.ControlTok == "" {
		return cfg, errors.New("--control-port needs --control-token (or COSMOSTEST_CONTROL_TOKEN): the control API is never open without its own token")
	}
	if v, ok := raw["explorer"]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return cfg, fmt.Errorf("explorer %q: want true or false", v)
		}
		cfg.Explorer = b
	}
	if cfg.Explorer && cfg.ControlPort < 0 {
		return cfg, errors.New("--explorer needs --control-port and --control-token: the Data Explorer is served on the control port and answers only the control token")
	}
	if v, ok := raw["throughput-limits"]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return cfg, fmt.Errorf("throughput-limits %q: want true or false", v)
		}
		cfg.Throughput = b
	}
	cfg.ClockSkew = 15 * time.Minute
	if v, ok := raw["clock-skew"]; ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			return cfg, fmt.Errorf("clock-skew %q: want a duration such as 15m, or -1s to turn the check off", v)
		}
		cfg.ClockSkew = d
	}
	return cfg, nil
}

// splitList splits a comma-separated list, dropping empty items and surrounding white space.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// readKey reads the master key from path: the file's content with surrounding white space removed.
func readKey(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("key file: %w", err)
	}
	key := strings.TrimSpace(string(b))
	if key == "" {
		return "", errors.New("key file " + path + " is empty")
	}
	return key, nil
}

// newLogger returns the logger for an emulator log level, writing text to w; "quiet" discards.
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	switch level {
	case "quiet":
		return slog.New(slog.DiscardHandler), nil
	case "error":
		l = slog.LevelError
	case "warn", "warning":
		l = slog.LevelWarn
	case "info", "":
		l = slog.LevelInfo
	case "debug":
		l = slog.LevelDebug
	case "trace":
		l = slog.LevelDebug - 4
	default:
		return nil, fmt.Errorf("log level %q: want quiet, error, warn, info, debug or trace", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}
