package crosspartition

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a goroutine outlives the tests (the benchmarks' servers are closed
// first).
func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range benchServers {
		s.Close()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
