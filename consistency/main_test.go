package consistency_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine (a server, a transport connection, an SDK
// refresh) outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
