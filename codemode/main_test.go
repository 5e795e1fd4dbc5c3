package codemode_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/internal/demo"
)

func TestMain(m *testing.M) {
	demo.ServeIfChild()
	codemode.ServeIfChild()
	goleak.VerifyTestMain(m)
}
