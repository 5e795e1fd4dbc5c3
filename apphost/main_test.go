package apphost_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/testing/browsertest"
)

// One browser serves every browser test of the package; it is stopped
// before the search for goroutines left behind.
func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Close()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}
