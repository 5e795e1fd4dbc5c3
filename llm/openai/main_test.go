package openai_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test closes its fake server, which closes the idle connections of the
// client it hands out (httptest.Server.Client), so no net/http goroutine is
// left to ignore.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
