package changefeed_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine (a processor's balancer, renewer or lease
// worker, a transport's connection) outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
