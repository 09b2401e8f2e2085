package bulk_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine (a job's scheduler, reader or sender, or a
// transport's connection) outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
