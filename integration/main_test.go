package integration

import (
	"net"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	// The reaper image cannot be pulled on machines without a registry; tests clean up themselves.
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	// Inside a container (/.dockerenv) Testcontainers reaches published ports through the default
	// gateway. When the Docker engine runs in this very network namespace (its docker0 bridge is
	// here: Docker in Docker, CI sandboxes), they are on localhost instead.
	if os.Getenv("TESTCONTAINERS_HOST_OVERRIDE") == "" && engineIsLocal() {
		_ = os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")
	}
	os.Exit(m.Run())
}

func engineIsLocal() bool {
	if _, err := os.Stat("/.dockerenv"); err != nil {
		return false
	}
	_, err := net.InterfaceByName("docker0")
	return err == nil
}
