package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	// The emulator's account metadata: region South Central US, endpoint 127.0.0.1, Session.
	defaults := config{Port: 8081, Protocol: "http", Gateway: "127.0.0.1", LogLevel: "info", Partitions: 1,
		Regions: []string{"South Central US"}, Consistency: "Session", ControlPort: -1, ClockSkew: 15 * time.Minute}
	with := func(f func(*config)) config {
		c := defaults
		f(&c)
		return c
	}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want config
	}{
		{"defaults", nil, nil, defaults},
		{"flags with space", []string{"--port", "9000", "--protocol", "https", "--gateway-endpoint", "cosmos.local:9000"}, nil,
			with(func(c *config) { c.Port, c.Protocol, c.Gateway = 9000, "https", "cosmos.local:9000" })},
		{"flags with =", []string{"--port=9001", "--log-level=DEBUG", "--partitions=4", "--regions=West US, East US"}, nil,
			with(func(c *config) {
				c.Port, c.LogLevel, c.Partitions, c.Regions = 9001, "debug", 4, []string{"West US", "East US"}
			})},
		{"single dash", []string{"-port", "9002"}, nil, with(func(c *config) { c.Port = 9002 })},
		{"environment", nil, map[string]string{"PORT": "7000", "PROTOCOL": "HTTPS", "GATEWAY_PUBLIC_ENDPOINT": "host.docker.internal",
			"KEY_FILE": "/k", "LOG_LEVEL": "quiet", "COSMOSTEST_PARTITIONS": "3", "COSMOSTEST_REGIONS": "A,B"},
			with(func(c *config) {
				c.Port, c.Protocol, c.Gateway, c.KeyFile, c.LogLevel, c.Partitions, c.Regions =
					7000, "https", "host.docker.internal", "/k", "quiet", 3, []string{"A", "B"}
			})},
		{"flag beats environment", []string{"--port", "7001"}, map[string]string{"PORT": "7000"}, with(func(c *config) { c.Port = 7001 })},
		{"gateway endpoint given as URL", []string{"--gateway-endpoint", "http://localhost:9081/"}, nil,
			with(func(c *config) { c.Gateway = "localhost:9081" })},
		{"https-insecure", []string{"--protocol", "https-insecure"}, nil, with(func(c *config) { c.Protocol = "https-insecure" })},
		{"emulator flags ignored", []string{"--enable-explorer", "false", "--explorer-port", "1234", "--port", "8082",
			"--data-path=/data", "--enable-telemetry", "false", "--enable-otlp", "--cert-path", "/c.pfx", "--some-future-flag"}, nil,
			with(func(c *config) {
				c.Port = 8082
				c.Ignored = []string{"enable-explorer", "explorer-port", "data-path", "enable-telemetry", "enable-otlp", "cert-path", "some-future-flag"}
			})},
		{"help", []string{"--help"}, nil, with(func(c *config) { c.Help = true })},
		{"emulator suite", []string{"--consistency", "strong", "--aad-audience", "https://localhost:8081, https://cosmos.azure.com/", "--export-cert=/tmp/c.pem"}, nil,
			with(func(c *config) {
				c.Consistency, c.AADAudience, c.ExportCert = "strong", []string{"https://localhost:8081", "https://cosmos.azure.com/"}, "/tmp/c.pem"
			})},
		{"suite environment", nil, map[string]string{"COSMOSTEST_CONSISTENCY": "Eventual", "COSMOSTEST_AAD_AUDIENCE": "a", "COSMOSTEST_EXPORT_CERT": "f"},
			with(func(c *config) { c.Consistency, c.AADAudience, c.ExportCert = "Eventual", []string{"a"}, "f" })},
		{"replication lag", []string{"--regions", "A,B", "--replication-lag", "250ms"}, map[string]string{"COSMOSTEST_REPLICATION_LAG": "1s"},
			with(func(c *config) { c.Regions, c.Lag = []string{"A", "B"}, 250*time.Millisecond })},
		{"replication lag from the environment", nil, map[string]string{"COSMOSTEST_REPLICATION_LAG": "2s"},
			with(func(c *config) { c.Lag = 2 * time.Second })},
		{"multi-write", []string{"--regions", "A,B", "--multi-write", "true"}, map[string]string{"COSMOSTEST_MULTI_WRITE": "false"},
			with(func(c *config) { c.Regions, c.MultiWrite = []string{"A", "B"}, true })},
		{"multi-write from the environment", nil, map[string]string{"COSMOSTEST_MULTI_WRITE": "1"},
			with(func(c *config) { c.MultiWrite = true })},
		{"control API, throughput limits, clock skew", []string{"--control-port", "0", "--throughput-limits", "true", "--clock-skew", "-1s"},
			map[string]string{"COSMOSTEST_CONTROL_TOKEN": "t"},
			with(func(c *config) { c.ControlPort, c.ControlTok, c.Throughput, c.ClockSkew = 0, "t", true, -time.Second })},
		{"Data Explorer", []string{"--control-port", "9001"}, map[string]string{"COSMOSTEST_CONTROL_TOKEN": "t", "COSMOSTEST_EXPLORER": "true"},
			with(func(c *config) { c.ControlPort, c.ControlTok, c.Explorer = 9001, "t", true })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseConfig(tc.args, func(k string) string { return tc.env[k] })
			if err != nil {
				t.Fatalf("parseConfig(%q): %v", tc.args, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseConfig(%q)\n got %+v\nwant %+v", tc.args, got, tc.want)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--port", "http"}, nil, "not a port number"},
		{[]string{"--port", "70000"}, nil, "not a port number"},
		{nil, map[string]string{"PORT": "-1"}, "not a port number"},
		{[]string{"--protocol", "ftp"}, nil, "want http, https"},
		{[]string{"--replication-lag", "soon"}, nil, "want a duration"},
		{[]string{"--replication-lag", "-1s"}, nil, "want a duration"},
		{[]string{"--multi-write", "yes please"}, nil, "want true or false"},
		{[]string{"--log-level", "loud"}, nil, "want quiet, error"},
		{[]string{"--partitions", "0"}, nil, "partitions"},
		{[]string{"--regions", " , "}, nil, "regions"},
		{[]string{"--port"}, nil, "needs a value"},
		{[]string{"serve"}, nil, "unexpected argument"},
		{[]string{"--aad-audience", ","}, nil, "aad-audience"},
		{[]string{"--control-port", "9999"}, nil, "needs --control-token"},
		{[]string{"--control-port", "x", "--control-token", "t"}, nil, "not a port number"},
		{[]string{"--throughput-limits", "maybe"}, nil, "want true or false"},
		{[]string{"--explorer", "true"}, nil, "needs --control-port"},
		{[]string{"--explorer", "sure", "--control-port", "0", "--control-token", "t"}, nil, "want true or false"},
		{[]string{"--clock-skew", "soon"}, nil, "want a duration"},
	}
	for _, tc := range tests {
		_, err := parseConfig(tc.args, func(k string) string { return tc.env[k] })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseConfig(%q, %v) = %v, want an error containing %q", tc.args, tc.env, err, tc.want)
		}
	}
}

func TestReadKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key")
	if err := os.WriteFile(path, []byte("  c2VjcmV0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := readKey(path); err != nil || got != "c2VjcmV0" {
		t.Errorf("readKey = %q, %v", got, err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readKey(empty); err == nil {
		t.Error("readKey of an empty file: no error")
	}
	if _, err := readKey(filepath.Join(dir, "missing")); err == nil {
		t.Error("readKey of a missing file: no error")
	}
}

func TestAdvertised(t *testing.T) {
	tests := []struct {
		gateway, protocol, listening, want string
	}{
		{"localhost", "http", "http://[::]:8081/", "http://localhost:8081/"},
		{"localhost:9081", "http", "http://[::]:8081/", "http://localhost:9081/"},
		{"example.com", "https", "https://[::]:40000/", "https://example.com:40000/"},
		{"[::1]", "http", "http://[::]:8081/", "http://[::1]:8081/"},
	}
	for _, tc := range tests {
		cfg := config{Port: 8081, Protocol: tc.protocol, Gateway: tc.gateway}
		if got := advertised(cfg, tc.listening); got != tc.want {
			t.Errorf("advertised(%q, %q) = %q, want %q", tc.gateway, tc.listening, got, tc.want)
		}
	}
}
