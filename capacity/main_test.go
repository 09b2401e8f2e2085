package capacity_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the tests if a server, transport or SDK goroutine outlives them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
