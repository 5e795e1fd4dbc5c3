package catalog_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/demo"
)

// The test binary doubles as the demo server the tests start as
// subprocesses (demo.ChildEnv=stdio).
func TestMain(m *testing.M) {
	demo.ServeIfChild()
	goleak.VerifyTestMain(m)
}
