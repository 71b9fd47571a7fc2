package testparts

import (
	"testing"

	"go.uber.org/goleak"
)

// The envtest test starts a control plane and client-go; everything it starts
// must be gone when the tests end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
