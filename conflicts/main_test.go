package conflicts_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine (a transport's connection) outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
