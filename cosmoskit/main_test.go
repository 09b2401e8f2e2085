package cosmoskit_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine (a transport's connection, a server, an SDK
// refresh) outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
