package vector_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain closes the servers shared by the large tests and benchmarks, then fails the run if a
// goroutine outlives the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range largeServers {
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
